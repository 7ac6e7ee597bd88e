use crate::json::tree::Json;
use crate::lint::registry::{Check, FileInput};
use crate::lint::Diagnostic;
use crate::suite::SessionEffect;

crate::declare_rule! {
    /// Finds calls to tools that need a logged-in user made when nobody is
    /// logged in at that point. In ToolTalk a session starts with the
    /// conversation's `user.session_token` or a successful `UserLogin` or
    /// `RegisterUser`, and ends with a successful `LogoutUser` or
    /// `DeleteAccount`. In API-Bank a token-taking API needs an earlier
    /// successful `GetUserToken` (or `RegisterUser`); in a level-3
    /// scenario, whose calls record no results, an earlier one.
    ///
    /// ## Why
    /// The simulators refuse such calls, so the recorded result cannot be
    /// right; and the dialogue teaches the model to skip the login it needs.
    ///
    /// ## Example
    /// ```text
    /// user: Delete my 7am alarm.
    /// assistant -> DeleteAlarm {"alarm_id": "..."}   (nobody has logged in)
    /// ```
    name: "auth-order",
    severity: Error,
    summary: "a tool that needs a session is called before anyone logs in",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(view) = input.view else { return };
    let help = view.suite.lint_help();
    let mut logged_in = view.starts_logged_in;
    for call in view.calls() {
        let tool = view.tool(call.api_name);
        if let Some(tool) = tool.filter(|t| t.requires_auth && !logged_in) {
            out.push(
                Diagnostic::new(
                    NAME,
                    format!(
                        "`{}` needs a logged-in user, but {}",
                        tool.name, help.no_session
                    ),
                )
                .call(call.turn, call.call)
                .at(call.name_anchor())
                .help(help.open_session),
            );
        }
        if call.failed() {
            continue;
        }
        match tool.map(|t| t.session) {
            Some(SessionEffect::Opens) => {
                logged_in |= !view.records_results || call.result.is_some_and(hands_out_credential)
            }
            Some(SessionEffect::Closes) => logged_in = false,
            Some(SessionEffect::None) | None => {}
        }
    }
}

/// Whether a login's result holds a credential (a text member).
pub(crate) fn hands_out_credential(result: &Json<'_>) -> bool {
    credentials(result).next().is_some()
}

/// The credentials a login's result hands out: its text members.
pub(crate) fn credentials<'r>(result: &'r Json<'r>) -> impl Iterator<Item = &'r str> + 'r {
    result
        .as_object()
        .into_iter()
        .flat_map(|members| members.iter().filter_map(|(_, value)| value.as_str()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lint::rules::testing::{api, conversation, dialogue, run, run_on};

    fn logged_out(mut c: serde_json::Value) -> serde_json::Value {
        c["user"].as_object_mut().unwrap().remove("session_token");
        c["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("session_token");
        c
    }

    #[test]
    fn a_tool_that_needs_a_session_needs_a_login_first() {
        let delete = ("DeleteAlarm", json!({"alarm_id": "a1"}), json!("success"));
        let login = (
            "UserLogin",
            json!({"username": "jdoe", "password": "pw"}),
            json!({"session_token": "tok-2"}),
        );
        let without = logged_out(conversation(&[
            ("user", "delete alarm a1", vec![]),
            ("assistant", "done", vec![delete.clone()]),
        ]));
        let found = run_on(&RULE, &without);
        assert_eq!(found.len(), 1);
        assert!(found[0]
            .help
            .as_deref()
            .unwrap()
            .starts_with("call UserLogin"));
        let with = logged_out(conversation(&[
            ("user", "I'm jdoe, password pw; delete alarm a1", vec![]),
            ("assistant", "done", vec![login, delete.clone()]),
        ]));
        assert!(run_on(&RULE, &with).is_empty());
        // Logged in from the start.
        let from_start = conversation(&[
            ("user", "delete alarm a1", vec![]),
            ("assistant", "done", vec![delete]),
        ]);
        assert!(run_on(&RULE, &from_start).is_empty());
    }

    #[test]
    fn apibank_token_apis_need_get_user_token_first() {
        let agenda = api(
            "AddAgenda",
            json!({"token": "t1", "content": "Dentist", "time": "2023-05-02 15:30:00", "location": "Pearl"}),
            json!("success"),
        );
        let without = dialogue(&[json!({"role": "User", "text": "add it"}), agenda.clone()]);
        assert_eq!(run(&RULE, "d.jsonl", &without).len(), 1);
        let with = dialogue(&[
            json!({"role": "User", "text": "add it; I'm lwong, password tulip"}),
            api(
                "GetUserToken",
                json!({"username": "lwong", "password": "tulip"}),
                json!({"token": "t1"}),
            ),
            agenda,
        ]);
        assert!(run(&RULE, "d.jsonl", &with).is_empty());
    }
}
