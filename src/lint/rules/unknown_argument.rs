use crate::lint::registry::{Check, FileInput};
use crate::lint::view::{closest_name, shown};
use crate::lint::Diagnostic;

crate::declare_rule! {
    /// Finds arguments that the called tool does not take. ToolTalk's
    /// `session_token` is accepted on tools that need a session, since the
    /// world passes it to them.
    ///
    /// ## Why
    /// The reference simulators bind arguments like Python keyword
    /// arguments: an unexpected one raises `TypeError`, so the recorded
    /// result cannot be what the tool returns. In a prompt it also teaches
    /// the model a parameter that does not exist.
    ///
    /// ## Example
    /// ```json
    /// {"api_name": "AddAlarm", "parameters": {"time": "07:00:00", "label": "gym"}}
    /// ```
    /// `AddAlarm` takes no `label`.
    name: "unknown-argument",
    severity: Error,
    summary: "a call passes an argument the tool does not take",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(view) = input.view else { return };
    for call in view.calls() {
        let Some(tool) = view.tool(call.api_name) else {
            continue;
        };
        let names: Vec<&str> = tool.parameters.iter().map(|p| p.name).collect();
        for name in call.arguments.keys() {
            if names.contains(&name) || view.is_injected(tool, name) {
                continue;
            }
            let mut d = Diagnostic::new(
                NAME,
                format!("`{}` takes no argument `{}`", tool.name, shown(name)),
            )
            .call(call.turn, call.call)
            .argument(name)
            .at(call.argument_key_anchor(name));
            d = match closest_name(name, &names) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help(format!("`{}` takes: {}", tool.name, list(&names))),
            };
            out.push(d);
        }
    }
}

pub(crate) fn list(names: &[&str]) -> String {
    if names.is_empty() {
        return "no arguments".to_owned();
    }
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lint::rules::testing::{conversation, run_on};

    fn alarm(arguments: serde_json::Value) -> serde_json::Value {
        conversation(&[
            ("user", "wake me at 7am", vec![]),
            (
                "assistant",
                "done",
                vec![("AddAlarm", arguments, json!({"alarm_id": "a1"}))],
            ),
        ])
    }

    #[test]
    fn an_argument_the_tool_does_not_take_is_caught() {
        assert!(run_on(
            &RULE,
            &alarm(json!({"time": "07:00:00", "session_token": "tok-1"}))
        )
        .is_empty());
        let found = run_on(&RULE, &alarm(json!({"time": "07:00:00", "label": "gym"})));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].argument.as_deref(), Some("label"));
        let found = run_on(&RULE, &alarm(json!({"tme": "07:00:00"})));
        assert_eq!(found[0].help.as_deref(), Some("did you mean `time`?"));
    }
}
