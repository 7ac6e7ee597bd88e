use crate::lint::registry::{Check, FileInput};
use crate::lint::view::shown;
use crate::lint::{Anchor, Diagnostic};
use crate::words::noun_for;

crate::declare_rule! {
    /// Finds conversations whose `apis_used` or `suites_used` disagree with
    /// the gold calls: a tool or plugin called but not listed (an error), or
    /// listed but never called (a warning: an unintended distractor).
    /// Plugins are spelt as the reference names its suites (`Messages` for
    /// the message tools).
    ///
    /// ## Why
    /// Evaluation picks the tools it shows the model from these lists (in
    /// ToolTalk's "suite" and "exact" modes) and statistics count by them. A
    /// tool missing from `apis_used` is hidden from the model that needs it;
    /// an extra one is a distractor nobody intended.
    ///
    /// ## Example
    /// ```json
    /// {"apis_used": ["AddAlarm"], "suites_used": ["Alarm"], ...}
    /// ```
    /// while a gold call uses `FindAlarms`: `apis_used` misses it.
    ///
    /// A called tool that is not in the catalog is never asked for in
    /// `apis_used` (`unknown-tool` reports the call; listing the name
    /// would fix nothing), and listing it is not reported either.
    name: "metadata-mismatch",
    severity: Error,
    summary: "apis_used/suites_used differ from the tools the gold calls use",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(conv) = input.conversation else {
        return;
    };
    let suite = input.suite;
    let catalog = suite.catalog();
    let called = sorted_set(
        conv.gold_calls()
            .map(|(_, _, call)| call.request.api_name.as_str()),
    );
    let listed = sorted_set(conv.apis_used.iter().map(String::as_str));
    // A tool the catalog lacks is `unknown-tool`'s to report: listing it
    // would hide nothing from the model, so it is never asked for here.
    let known: Vec<&str> = called
        .iter()
        .copied()
        .filter(|name| catalog.tool(name).is_some())
        .collect();
    compare("apis_used", "tool", &listed, &known, &called, out);

    let used_plugins = sorted_set(
        called
            .iter()
            .filter_map(|name| catalog.tool(name))
            .map(|t| t.group),
    );
    let listed_plugins = sorted_set(conv.suites_used.iter().map(String::as_str));
    compare(
        "suites_used",
        "plugin",
        &listed_plugins,
        &used_plugins,
        &used_plugins,
        out,
    );
}

/// The names in order without repeats, as a set holds them (a file names
/// a handful, so a sorted vector rather than a tree).
fn sorted_set<'a>(names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut names: Vec<&str> = names.collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The names of `set` (sorted, no repeats) that `other` lacks, in order.
fn difference<'a>(set: &[&'a str], other: &[&str]) -> Vec<&'a str> {
    set.iter()
        .copied()
        .filter(|name| other.binary_search(name).is_err())
        .collect()
}

/// `listed` against the names the gold calls use: those of `wanted`
/// missing from it are errors, those it lists that `used` lacks warnings.
fn compare(
    field: &str,
    what: &str,
    listed: &[&str],
    wanted: &[&str],
    used: &[&str],
    out: &mut Vec<Diagnostic>,
) {
    let missing = difference(wanted, listed);
    let extra = difference(listed, used);
    if !missing.is_empty() {
        out.push(
            Diagnostic::new(
                NAME,
                format!(
                    "`{field}` misses the {} the gold calls use: {}",
                    noun_for(missing.len(), what),
                    listed_shown(&missing)
                ),
            )
            .at(Anchor::value(format!("/{field}")))
            .help(format!("add {} to `{field}`", quoted(&missing))),
        );
    }
    if !extra.is_empty() {
        out.push(
            Diagnostic::new(
                NAME,
                format!(
                    "`{field}` lists {} no gold call uses: {}",
                    if extra.len() == 1 {
                        format!("a {what}")
                    } else {
                        noun_for(extra.len(), what)
                    },
                    listed_shown(&extra)
                ),
            )
            .at(Anchor::value(format!("/{field}")))
            .help(format!(
                "remove {} from `{field}`, unless it is there on purpose as a distractor",
                quoted(&extra)
            ))
            .warning(),
        );
    }
}

fn listed_shown(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| shown(n))
        .collect::<Vec<_>>()
        .join(", ")
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("\"{}\"", shown(n)))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lint::rules::testing::{conversation, run_on};

    #[test]
    fn sorted_sets_hold_and_differ_as_tree_sets_do() {
        use std::collections::BTreeSet;
        let a = ["Email", "Alarm", "Email", "Calendar", "alarm", "Zed"];
        let b = ["Calendar", "Zed", "Account", "Calendar"];
        let (sa, sb) = (sorted_set(a.into_iter()), sorted_set(b.into_iter()));
        let (ta, tb): (BTreeSet<&str>, BTreeSet<&str>) = (a.into(), b.into());
        assert_eq!(sa, ta.iter().copied().collect::<Vec<_>>());
        assert_eq!(
            difference(&sa, &sb),
            ta.difference(&tb).copied().collect::<Vec<_>>()
        );
        assert_eq!(
            difference(&sb, &sa),
            tb.difference(&ta).copied().collect::<Vec<_>>()
        );
    }

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
    fn lists_that_match_the_calls_pass() {
        assert!(run_on(&RULE, &alarm()).is_empty());
    }

    #[test]
    fn a_tool_missing_from_apis_used_is_an_error_and_an_extra_one_a_warning() {
        let mut missing = alarm();
        missing["apis_used"] = json!([]);
        let found = run_on(&RULE, &missing);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].severity, None);
        assert_eq!(
            found[0].help.as_deref(),
            Some("add \"AddAlarm\" to `apis_used`")
        );
        let mut extra = alarm();
        extra["suites_used"] = json!(["Alarm", "Email"]);
        let found = run_on(&RULE, &extra);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].severity, Some(crate::lint::Severity::Warning));
        assert!(found[0]
            .help
            .as_deref()
            .unwrap()
            .starts_with("remove \"Email\""));
    }

    #[test]
    fn a_tool_the_catalog_lacks_is_never_to_be_added_to_apis_used() {
        let mut c = conversation(&[
            ("user", "wake me at 7am", vec![]),
            (
                "assistant",
                "done",
                vec![
                    (
                        "AddAlarm",
                        json!({"time": "07:00:00"}),
                        json!({"alarm_id": "a1"}),
                    ),
                    ("CreateAlarm", json!({"time": "07:00:00"}), json!(null)),
                ],
            ),
        ]);
        assert_eq!(c["apis_used"], json!(["AddAlarm"]));
        assert!(run_on(&RULE, &c).is_empty(), "{:#?}", run_on(&RULE, &c));
        c["apis_used"] = json!([]);
        let found = run_on(&RULE, &c);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(
            found[0].help.as_deref(),
            Some("add \"AddAlarm\" to `apis_used`")
        );
        // Listed as well as called: not an extra.
        c["apis_used"] = json!(["AddAlarm", "CreateAlarm"]);
        assert!(run_on(&RULE, &c).is_empty());
    }
}
