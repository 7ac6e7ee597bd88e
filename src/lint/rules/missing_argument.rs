use crate::lint::registry::{Check, FileInput};
use crate::lint::Diagnostic;

crate::declare_rule! {
    /// Finds calls that leave out an argument the tool requires.
    /// ToolTalk's `session_token` is not required from the model (the world
    /// supplies it).
    ///
    /// ## Why
    /// A call without a required argument fails with `TypeError` in the
    /// reference simulators. Unless the failure is the point of the example,
    /// the gold call teaches the model to call the tool wrongly.
    ///
    /// ## Example
    /// ```json
    /// {"api_name": "AddReminder", "parameters": {"due_date": "2023-09-12 09:00:00"}}
    /// ```
    /// `AddReminder` requires `task`.
    name: "missing-argument",
    severity: Error,
    summary: "a call leaves out a required argument",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(view) = input.view else { return };
    for call in view.calls() {
        let Some(tool) = view.tool(call.api_name) else {
            continue;
        };
        for param in tool.parameters {
            if param.required && !call.arguments.contains_key(param.name) {
                out.push(
                    Diagnostic::new(
                        NAME,
                        format!(
                            "`{}` requires `{}`, which the call leaves out",
                            tool.name, param.name
                        ),
                    )
                    .call(call.turn, call.call)
                    .argument(param.name)
                    .at(call.arguments_anchor())
                    .help(format!(
                        "add \"{}\": {}",
                        param.name,
                        crate::lint::rules::argument_type::expected(view.encoding(), param)
                    )),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lint::rules::testing::{conversation, run_on};

    #[test]
    fn a_required_argument_left_out_is_caught() {
        let with = |arguments| {
            conversation(&[
                ("user", "wake me at 7am", vec![]),
                (
                    "assistant",
                    "done",
                    vec![("AddAlarm", arguments, json!({"alarm_id": "a1"}))],
                ),
            ])
        };
        assert!(run_on(&RULE, &with(json!({"time": "07:00:00"}))).is_empty());
        let found = run_on(&RULE, &with(json!({})));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].argument.as_deref(), Some("time"));
        assert_eq!(
            found[0].help.as_deref(),
            Some("add \"time\": a string like \"14:00:00\"")
        );
    }
}
