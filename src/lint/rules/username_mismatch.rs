use crate::lint::registry::{Check, FileInput};
use crate::lint::{Anchor, Diagnostic};

crate::declare_rule! {
    /// Finds conversations whose `metadata.username` is not the
    /// `user.username`: a name given in the metadata while the user has
    /// another one, or none.
    ///
    /// ## Why
    /// The two describe one person seen from two sides. The world sets up
    /// the session, and the tools act, for `user.username`; the assistant
    /// is shown `metadata.username` as the logged-in user's name. When they
    /// differ, the assistant is told one user while the tools act for
    /// another, and a gold call that names the user (a receiver, an
    /// attendee, `QueryUser`) is grounded in a name the world does not
    /// know as the user.
    ///
    /// ## Example
    /// ```json
    /// "user": {"username": "mariel", ...},
    /// "metadata": {"timestamp": "2024-05-13 12:30:00", "username": "mariel.o", ...}
    /// ```
    /// `metadata.username` should be `"mariel"` (or be left out, for a
    /// conversation that starts logged out).
    name: "username-mismatch",
    severity: Error,
    summary: "metadata.username differs from user.username",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(conv) = input.conversation else {
        return;
    };
    let Some(shown) = conv.metadata.username.as_deref() else {
        return;
    };
    let user = conv.user.username.as_deref();
    if user == Some(shown) {
        return;
    }
    let (message, help) = match user {
        Some(user) => (
            format!("`metadata.username` is {shown:?}, but `user.username` is {user:?}"),
            format!("write {user:?} in `metadata.username`, or correct `user.username`"),
        ),
        None => (
            format!("`metadata.username` is {shown:?}, but the user has no `username`"),
            "give `user` the same `username`, or leave `metadata.username` out".to_owned(),
        ),
    };
    out.push(
        Diagnostic::new(NAME, message)
            .at(Anchor::value("/metadata/username"))
            .help(help),
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lint::rules::testing::{conversation, run_on};

    fn alarm() -> serde_json::Value {
        conversation(&[
            ("user", "wake me at 7am", vec![]),
            (
                "assistant",
                "done",
                vec![(
                    "AddAlarm",
                    json!({"time": "07:00:00"}),
                    json!({"alarm_id": "a1"}),
                )],
            ),
        ])
    }

    #[test]
    fn the_same_name_or_none_in_the_metadata_passes() {
        let same = alarm();
        assert_eq!(same["metadata"]["username"], same["user"]["username"]);
        assert!(run_on(&RULE, &same).is_empty());
        let mut none = alarm();
        none["metadata"].as_object_mut().unwrap().remove("username");
        assert!(run_on(&RULE, &none).is_empty());
    }

    #[test]
    fn another_name_or_a_user_without_one_is_reported() {
        let mut other = alarm();
        other["metadata"]["username"] = json!("jdoe2");
        let found = run_on(&RULE, &other);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(found[0].message.contains("\"jdoe2\""));
        assert!(found[0].message.contains("\"jdoe\""));
        let mut nameless = alarm();
        nameless["user"].as_object_mut().unwrap().remove("username");
        let found = run_on(&RULE, &nameless);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(found[0].message.contains("no `username`"));
    }
}
