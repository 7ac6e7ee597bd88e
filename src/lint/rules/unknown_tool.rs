use crate::lint::registry::{Check, FileInput};
use crate::lint::view::{closest_name, shown};
use crate::lint::Diagnostic;

crate::declare_rule! {
    /// Finds gold calls to tools that are not in the catalog: a hallucinated
    /// tool, or a misspelt one. ToolTalk conversations are checked against
    /// the 28 tools of the simulated world; API-Bank dialogues against
    /// API-Bank's 53 APIs.
    ///
    /// ## Why
    /// A call to a tool that does not exist cannot be executed, so `verify`
    /// cannot reproduce it and `evaluate` can never match a prediction to it:
    /// the conversation silently stops measuring anything.
    ///
    /// ## Example
    /// ```json
    /// {"request": {"api_name": "CreateAlarm", "parameters": {"time": "07:00:00"}}}
    /// ```
    /// There is no `CreateAlarm`; the tool is `AddAlarm`.
    name: "unknown-tool",
    severity: Error,
    summary: "a gold call names a tool that is not in the catalog",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(view) = input.view else { return };
    let names = view.tool_names();
    for call in view.calls() {
        if view.tool(call.api_name).is_some() {
            continue;
        }
        let mut d = Diagnostic::new(
            NAME,
            format!("`{}` is not a tool of the catalog", shown(call.api_name)),
        )
        .call(call.turn, call.call)
        .at(call.name_anchor());
        d = match closest_name(call.api_name, &names) {
            Some(near) => d.help(format!("did you mean `{near}`?")),
            None => d.help(view.suite.lint_help().unknown_tool),
        };
        out.push(d);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lint::rules::testing::{conversation, run_on};

    #[test]
    fn a_tool_not_in_the_catalog_is_caught_with_a_suggestion() {
        let good = conversation(&[
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
        ]);
        assert!(run_on(&RULE, &good).is_empty());
        let bad = conversation(&[
            ("user", "wake me at 7am", vec![]),
            (
                "assistant",
                "done",
                vec![("AddAlram", json!({"time": "07:00:00"}), json!(null))],
            ),
        ]);
        let found = run_on(&RULE, &bad);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].help.as_deref(), Some("did you mean `AddAlarm`?"));
        let far = conversation(&[
            ("user", "wake me at 7am", vec![]),
            (
                "assistant",
                "done",
                vec![("SetWakeUpCall", json!({}), json!(null))],
            ),
        ]);
        assert_eq!(
            run_on(&RULE, &far)[0].help.as_deref(),
            Some("`talkforge tools` lists the catalog")
        );
    }
}
