use crate::json::tree::Json;
use crate::lint::registry::{Check, FileInput};
use crate::lint::view::CallRef;
use crate::lint::Diagnostic;
use crate::suite::SessionEffect;

crate::declare_rule! {
    /// Finds gold calls of tools that need a logged-in user whose request
    /// lacks the session token, or gives another token than the session's.
    /// Only for suites whose world supplies the token itself (ToolTalk:
    /// `session_token`); API-Bank's tokens are arguments the model writes,
    /// and `auth-order` checks where they come from.
    ///
    /// The session's token is followed through the conversation as the
    /// world keeps it: `user.session_token` at the start (and
    /// `metadata.session_token`, when given, must be the same), then the
    /// token in the recorded result of each successful `UserLogin` or
    /// `RegisterUser`, and none after a successful `LogoutUser` or
    /// `DeleteAccount`. While nobody is logged in, or after a login whose
    /// result is not recorded yet, there is nothing to compare with (that
    /// is for `auth-order` and `fill`).
    ///
    /// ## Why
    /// The world runs the call with the session's token whatever the
    /// request says, so `verify` passes; but evaluation compares a
    /// prediction (which the world also gives the session's token) with
    /// the gold request, and the tools that act check that both ran as the
    /// same user by this argument. A gold call without it, or with another
    /// token, can never be matched: even the oracle loses recall on it.
    /// `talkforge fill` writes the session's token into such requests, so
    /// requests can be written without it.
    ///
    /// ## Example
    /// ```json
    /// "user": {"username": "mariel", "session_token": "f15e138b-33a4-1589", ...},
    /// ...
    /// {"request": {"api_name": "SendMessage",
    ///              "parameters": {"receiver": "tobiasv", "message": "..."}}}
    /// ```
    /// The request lacks `"session_token": "f15e138b-33a4-1589"`; run
    /// `talkforge fill` to write it.
    name: "session-token",
    severity: Error,
    summary: "a call that needs a session lacks the session token or gives another one",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let (Some(view), Some(conv)) = (input.view, input.conversation) else {
        return;
    };
    let Some(argument) = view.suite.injected_argument() else {
        return;
    };
    let start = conv.user.session_token.as_deref();
    if let Some(meta) = conv.metadata.session_token.as_deref() {
        if start != Some(meta) {
            let expected = match start {
                Some(token) => format!("`user.session_token` is {token:?}"),
                None => "`user.session_token` is not set, so the world starts logged out".into(),
            };
            out.push(
                Diagnostic::new(
                    NAME,
                    format!("`metadata.session_token` is {meta:?}, but {expected}"),
                )
                .at(crate::lint::Anchor::value("/metadata/session_token"))
                .help("give `user.session_token` and `metadata.session_token` the same token"),
            );
        }
    }
    // The session's token and where it came from.
    let mut session: Option<(&str, String)> = start.map(|t| (t, "`user.session_token`".into()));
    for call in view.calls() {
        let Some(tool) = view.tool(call.api_name) else {
            continue;
        };
        if let (true, Some((token, source))) = (tool.requires_auth, &session) {
            compare(call, argument, token, source, out);
        }
        if call.failed() {
            continue;
        }
        match tool.session {
            SessionEffect::Opens => {
                session = call
                    .result
                    .and_then(|r| r.get(argument))
                    .and_then(Json::as_str)
                    .map(|t| (t, format!("the {} at turn {}", tool.name, call.turn)));
            }
            SessionEffect::Closes => session = None,
            SessionEffect::None => {}
        }
    }
}

fn compare(
    call: &CallRef<'_>,
    argument: &str,
    token: &str,
    source: &str,
    out: &mut Vec<Diagnostic>,
) {
    let help = format!("run `talkforge fill` to write the session's token ({token:?})");
    match call.arguments.get(argument) {
        None => out.push(
            Diagnostic::new(
                NAME,
                format!(
                    "`{}` needs the session token, but the request lacks `{argument}` (the session's is {token:?}, from {source})",
                    call.api_name
                ),
            )
            .call(call.turn, call.call)
            .argument(argument)
            .at(call.arguments_anchor())
            .help(help),
        ),
        Some(given) if given.as_str() != Some(token) => out.push(
            Diagnostic::new(
                NAME,
                format!(
                    "`{argument}` is {}, but the session's token is {token:?} (from {source})",
                    given.to_value()
                ),
            )
            .call(call.turn, call.call)
            .argument(argument)
            .at(call.argument_anchor(argument))
            .help(help),
        ),
        Some(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lint::rules::testing::{api, conversation, dialogue, run, run_on};

    fn delete(token: Option<&str>) -> (&'static str, serde_json::Value, serde_json::Value) {
        let mut arguments = json!({"alarm_id": "a1"});
        if let Some(token) = token {
            arguments["session_token"] = json!(token);
        }
        ("DeleteAlarm", arguments, json!("success"))
    }

    #[test]
    fn the_logged_in_users_token_must_be_in_every_call_that_needs_it() {
        let right = conversation(&[
            ("user", "delete alarm a1", vec![]),
            ("assistant", "done", vec![delete(Some("tok-1"))]),
        ]);
        assert!(run_on(&RULE, &right).is_empty());
        let missing = conversation(&[
            ("user", "delete alarm a1", vec![]),
            ("assistant", "done", vec![delete(None)]),
        ]);
        let found = run_on(&RULE, &missing);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!((found[0].turn, found[0].call), (Some(1), Some(0)));
        assert_eq!(found[0].argument.as_deref(), Some("session_token"));
        assert!(found[0].message.contains("lacks"), "{}", found[0].message);
        let wrong = conversation(&[
            ("user", "delete alarm a1", vec![]),
            ("assistant", "done", vec![delete(Some("tok-9"))]),
        ]);
        let found = run_on(&RULE, &wrong);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0].message.contains("\"tok-9\""),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn the_token_follows_logins_and_logouts() {
        let login = (
            "UserLogin",
            json!({"username": "jdoe", "password": "pw"}),
            json!({"session_token": "tok-2"}),
        );
        let logout = (
            "LogoutUser",
            json!({"session_token": "tok-1"}),
            json!("success"),
        );
        let mut c = conversation(&[
            (
                "user",
                "log me out, then in again, and delete alarm a1",
                vec![],
            ),
            (
                "assistant",
                "done",
                vec![logout, login, delete(Some("tok-1"))],
            ),
        ]);
        let found = run_on(&RULE, &c);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].call, Some(2));
        assert!(found[0].message.contains("UserLogin"));
        c["conversation"][1]["apis"][2]["request"]["parameters"]["session_token"] = json!("tok-2");
        assert!(run_on(&RULE, &c).is_empty());
        // A login not recorded yet: nothing to compare with.
        c["conversation"][1]["apis"][1]["response"] = json!(null);
        c["conversation"][1]["apis"][2]["request"]["parameters"]["session_token"] = json!("x");
        assert!(run_on(&RULE, &c).is_empty());
    }

    #[test]
    fn metadata_must_start_the_same_session_and_logged_out_calls_are_left_to_auth_order() {
        let mut c = conversation(&[
            ("user", "delete alarm a1", vec![]),
            ("assistant", "done", vec![delete(Some("tok-1"))]),
        ]);
        c["metadata"]["session_token"] = json!("tok-3");
        let found = run_on(&RULE, &c);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(found[0].message.contains("metadata.session_token"));
        c["user"].as_object_mut().unwrap().remove("session_token");
        c["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("session_token");
        c["conversation"][1]["apis"][0]["request"]["parameters"]
            .as_object_mut()
            .unwrap()
            .remove("session_token");
        assert!(run_on(&RULE, &c).is_empty());
    }

    #[test]
    fn apibank_tokens_are_not_its_business() {
        let agenda = api(
            "AddAgenda",
            json!({"content": "Dentist", "time": "2023-05-02 15:30:00", "location": "Pearl"}),
            json!("success"),
        );
        let text = dialogue(&[json!({"role": "User", "text": "add it"}), agenda]);
        assert!(run(&RULE, "d.jsonl", &text).is_empty());
    }
}
