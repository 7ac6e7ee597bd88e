use crate::lint::document::Document;
use crate::lint::registry::{Check, FileInput};
use crate::lint::view::{closest_name, shown};
use crate::lint::{Anchor, Diagnostic};

crate::declare_rule! {
    /// Finds accepted scenarios in a scenario pool (the output of
    /// `talkforge generate`) that mention a tool the catalog does not have,
    /// and pools whose `required_tool` is not a tool. Rejected scenarios
    /// are left alone: the filter already recorded why.
    ///
    /// ## Why
    /// A scenario is the brief a maintainer writes a conversation from. One
    /// that relies on a hallucinated tool cannot be written faithfully; the
    /// generation filter rejects these, so an accepted one means the pool
    /// was edited or produced by a different filter.
    ///
    /// ## Example
    /// ```json
    /// {"text": "... (SearchInbox + ArchiveEmail) ...", "tools": ["SearchInbox", "ArchiveEmail"], "accepted": true}
    /// ```
    /// There is no `ArchiveEmail`.
    name: "scenario-unknown-tool",
    severity: Error,
    summary: "an accepted scenario mentions a tool that is not in the catalog",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Document::Pool(file) = input.document else {
        return;
    };
    let Some(pool) = &file.typed else { return };
    let catalog = input.suite.catalog();
    let names: Vec<&str> = catalog.tools().iter().map(|t| t.name).collect();
    let hint = |name: &str| closest_name(name, &names).map(|n| format!("did you mean `{n}`?"));
    if catalog.tool(&pool.required_tool).is_none() {
        let mut d = Diagnostic::new(
            NAME,
            format!(
                "the required tool `{}` is not in the catalog",
                shown(&pool.required_tool)
            ),
        )
        .at(Anchor::value("/required_tool"));
        if let Some(h) = hint(&pool.required_tool) {
            d = d.help(h);
        }
        out.push(d);
    }
    for (i, scenario) in pool.scenarios.iter().enumerate() {
        if !scenario.accepted {
            continue;
        }
        let mut mentioned = scenario.tools.clone();
        for name in crate::suite::mentions::mentioned_tools(catalog, &scenario.text) {
            if !mentioned.contains(&name) {
                mentioned.push(name);
            }
        }
        for name in mentioned {
            if catalog.tool(&name).is_some() {
                continue;
            }
            let pointer = match scenario.tools.iter().position(|t| *t == name) {
                Some(k) => format!("/scenarios/{i}/tools/{k}"),
                None => format!("/scenarios/{i}/text"),
            };
            let mut d = Diagnostic::new(
                NAME,
                format!(
                    "accepted scenario {i} mentions `{}`, which is not in the catalog",
                    shown(&name)
                ),
            )
            .at(Anchor::value(pointer));
            if let Some(h) = hint(&name) {
                d = d.help(h);
            }
            out.push(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::rules::testing::{pool, run};

    #[test]
    fn an_accepted_scenario_with_a_hallucinated_tool_is_caught() {
        let good = pool("AddAlarm", &[(&["AddAlarm", "QueryCalendar"], true)]);
        assert!(run(&RULE, "p.json", &good).is_empty());
        let bad = pool("AddAlarm", &[(&["AddAlarm", "SnoozeAlarm"], true)]);
        let found = run(&RULE, "p.json", &bad);
        assert!(!found.is_empty());
        assert!(found[0].message.contains("SnoozeAlarm"));
        // Rejected scenarios are the filter's business.
        let rejected = pool("AddAlarm", &[(&["AddAlarm", "SnoozeAlarm"], false)]);
        assert!(run(&RULE, "p.json", &rejected).is_empty());
    }
}
