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
