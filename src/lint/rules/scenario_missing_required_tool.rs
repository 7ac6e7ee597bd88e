use crate::lint::document::Document;
use crate::lint::registry::{Check, FileInput};
use crate::lint::{Anchor, Diagnostic};

crate::declare_rule! {
    /// Finds accepted scenarios in a scenario pool that do not use the
    /// pool's required tool. Rejected scenarios are left alone.
    ///
    /// ## Why
    /// Pools are sampled evenly across required tools so that every tool is
    /// covered by the dataset. An accepted scenario without its required
    /// tool skews that balance and leaves a tool without the conversation it
    /// was meant to get.
    ///
    /// ## Example
    /// A pool with `"required_tool": "DeleteAlarm"` and an accepted scenario
    /// whose tools are `["AddAlarm", "FindAlarms", "SendEmail"]`.
    name: "scenario-missing-required-tool",
    severity: Error,
    summary: "an accepted scenario does not use the pool's required tool",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Document::Pool(file) = input.document else {
        return;
    };
    let Some(pool) = &file.typed else { return };
    for (i, scenario) in pool.scenarios.iter().enumerate() {
        if scenario.accepted && !scenario.tools.contains(&pool.required_tool) {
            out.push(
                Diagnostic::new(
                    NAME,
                    format!(
                        "accepted scenario {i} does not use the required tool `{}`",
                        pool.required_tool
                    ),
                )
                .at(Anchor::value(format!("/scenarios/{i}/tools")))
                .help(format!("its tools: {}", scenario.tools.join(", "))),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::rules::testing::{pool, run};

    #[test]
    fn an_accepted_scenario_without_the_required_tool_is_caught() {
        let good = pool("AddAlarm", &[(&["AddAlarm", "QueryCalendar"], true)]);
        assert!(run(&RULE, "p.json", &good).is_empty());
        let bad = pool("AddAlarm", &[(&["FindAlarms", "QueryCalendar"], true)]);
        let found = run(&RULE, "p.json", &bad);
        assert_eq!(found.len(), 1);
        assert!(found[0].help.as_deref().unwrap().contains("FindAlarms"));
        let rejected = pool("AddAlarm", &[(&["FindAlarms"], false)]);
        assert!(run(&RULE, "p.json", &rejected).is_empty());
    }
}
