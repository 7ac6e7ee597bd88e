//! Scenarios out of a model's reply, and the filter that keeps the usable
//! ones.
//!
//! Replies vary. When a reply labels its scenarios ("- Scenario 1:",
//! "**Scenario 1:**", "### Scenario 2 -", "1. Scenario 1:"), only those
//! labels start a scenario, and numbered steps inside one stay part of it.
//! Otherwise list items start scenarios, but only those at the shallowest
//! indentation: numbered items ("1.", "2)") when that level has any, else
//! bullets ("-", "*", "+"). So a numbered scenario with indented numbered
//! sub-steps is one scenario, not several. Code fences and bold are dropped.

use std::sync::OnceLock;

use regex::Regex;

use crate::formats::scenario::Scenario;
pub use crate::suite::mentions::mentioned_tools;
use crate::suite::mentions::word;
use crate::suite::Catalog;

/// A "Scenario N" label at the start of a line, with the punctuation and
/// emphasis around it.
fn scenario_header() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?im)^[ \t]*(?:[-*+][ \t]+|\d+[.)][ \t]+)?(?:#+[ \t]*)?(?:\*\*|__)?[ \t]*scenario[ \t]*#?[ \t]*\d+[ \t]*(?:\*\*|__)?[ \t]*[:.)\-–—]?[ \t]*(?:\*\*|__)?",
        )
        .expect("valid regex")
    })
}

/// A list item at the start of a line: group 1 is the indentation, group
/// 2 the number (absent for a bullet).
fn list_item() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?m)^([ \t]*)(?:(?:[-*+][ \t]*)?(?:#+[ \t]*)?(?:\*\*|__)?[ \t]*(\d+)[.)]|[-*+][ \t]+)[ \t]*(?:\*\*|__)?[ \t]*[:.)\-–—]?[ \t]*(?:\*\*|__)?",
        )
        .expect("valid regex")
    })
}

/// The scenario texts in a reply, whitespace collapsed, in reply order.
pub fn split_scenarios(reply: &str) -> Vec<String> {
    let cleaned: String = reply
        .lines()
        .filter(|l| !l.trim_start().starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut starts: Vec<(usize, usize)> = scenario_header()
        .find_iter(&cleaned)
        .map(|m| (m.start(), m.end()))
        .collect();
    if starts.is_empty() {
        starts = top_level_items(&cleaned);
    }
    let mut out = Vec::new();
    for (i, &(_, body_start)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(cleaned.len(), |&(s, _)| s);
        let text = collapse(&cleaned[body_start..end]);
        if !text.is_empty() {
            out.push(text);
        }
    }
    out
}

/// Indentation width, a tab counting as four spaces.
fn indent_width(indent: &str) -> usize {
    indent.chars().map(|c| if c == '\t' { 4 } else { 1 }).sum()
}

/// The list items at the shallowest indentation: the numbered ones when
/// that level has any, else its bullets. (start, body start) of each.
fn top_level_items(text: &str) -> Vec<(usize, usize)> {
    let items: Vec<(usize, bool, usize, usize)> = list_item()
        .captures_iter(text)
        .map(|c| {
            let whole = c.get(0).expect("group 0");
            let indent = indent_width(c.get(1).map_or("", |m| m.as_str()));
            (indent, c.get(2).is_some(), whole.start(), whole.end())
        })
        .collect();
    let Some(shallowest) = items.iter().map(|i| i.0).min() else {
        return Vec::new();
    };
    let numbered = items.iter().any(|i| i.0 == shallowest && i.1);
    items
        .into_iter()
        .filter(|i| i.0 == shallowest && i.1 == numbered)
        .map(|i| (i.2, i.3))
        .collect()
}

fn collapse(text: &str) -> String {
    text.replace("**", "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the filter requires of a scenario.
#[derive(Debug, Clone)]
pub struct Filter {
    /// The catalog the prompt documented.
    pub catalog: &'static Catalog,
    pub required_tool: String,
    /// The tools the prompt offered.
    pub offered: Vec<String>,
    pub min_tools: usize,
}

fn normalized(text: &str) -> String {
    word()
        .find_iter(text)
        .map(|m| m.as_str().to_lowercase())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Filter {
    /// Extract and judge every scenario of a reply.
    pub fn apply(&self, reply: &str) -> Vec<Scenario> {
        let mut seen: Vec<String> = Vec::new();
        split_scenarios(reply)
            .into_iter()
            .map(|text| {
                let tools = mentioned_tools(self.catalog, &text);
                let mut reasons = Vec::new();
                if !tools.contains(&self.required_tool) {
                    reasons.push(format!(
                        "the required tool {} is not mentioned",
                        self.required_tool
                    ));
                }
                for name in &tools {
                    if self.catalog.tool(name).is_none() {
                        reasons.push(format!("mentions {name}, which is not a tool"));
                    } else if !self.offered.contains(name) {
                        reasons.push(format!("mentions {name}, which this prompt did not offer"));
                    }
                }
                if tools.len() < self.min_tools {
                    reasons.push(format!(
                        "uses {} distinct tools, at least {} needed",
                        tools.len(),
                        self.min_tools
                    ));
                }
                let key = normalized(&text);
                if let Some(first) = seen.iter().position(|s| *s == key) {
                    reasons.push(format!("duplicate of scenario {first}"));
                }
                seen.push(key);
                Scenario {
                    accepted: reasons.is_empty(),
                    text,
                    tools,
                    reasons,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalog the replies below were written against (ToolTalk's).
    fn catalog() -> &'static Catalog {
        crate::suites::registry()
            .by_name("tooltalk")
            .expect("registered")
            .catalog()
    }

    #[test]
    fn splits_common_variants() {
        let reply =
            "```\n- Scenario 1: first one (AddAlarm)\ncontinues here\n- Scenario 2: second\n```";
        assert_eq!(
            split_scenarios(reply),
            ["first one (AddAlarm) continues here", "second"]
        );
        let reply = "**Scenario 1:** alpha\n\n**Scenario 2:** beta";
        assert_eq!(split_scenarios(reply), ["alpha", "beta"]);
        let reply = "### Scenario 1\nalpha\n### Scenario 2 - beta";
        assert_eq!(split_scenarios(reply), ["alpha", "beta"]);
        let reply = "Here you go:\n1. alpha\n2) beta\n3. gamma";
        assert_eq!(split_scenarios(reply), ["alpha", "beta", "gamma"]);
        assert!(split_scenarios("no scenarios at all").is_empty());
    }

    #[test]
    fn finds_tools_in_parentheses_and_text() {
        let text = "Check mail (SearchInbox + SendEmail), then (e.g. Monday) use AddAlarm and (MakeCoffee).";
        assert_eq!(
            mentioned_tools(catalog(), text),
            ["SearchInbox", "SendEmail", "AddAlarm", "MakeCoffee"]
        );
    }

    #[test]
    fn brand_names_in_parentheses_are_not_tools() {
        let text = "Watch a talk (YouTube) and edit slides (PowerPoint) on the phone (iPhone), \
                    then mail them (SendEmails), file them (ArchiveEmail) and check (QueryCalender).";
        assert_eq!(
            mentioned_tools(catalog(), text),
            ["SendEmails", "ArchiveEmail", "QueryCalender"]
        );
    }

    #[test]
    fn a_brand_name_does_not_reject_a_scenario() {
        let filter = Filter {
            catalog: catalog(),
            required_tool: "SendEmail".into(),
            offered: vec![
                "SearchInbox".into(),
                "SendEmail".into(),
                "QueryCalendar".into(),
            ],
            min_tools: 3,
        };
        let got = filter.apply(
            "1. The user finds the link to a talk (YouTube) in the inbox (SearchInbox), \
             checks the calendar (QueryCalendar) and sends it on (SendEmail).",
        );
        assert_eq!(got.len(), 1);
        assert!(got[0].accepted, "{:?}", got[0].reasons);
        assert_eq!(got[0].tools, ["SearchInbox", "QueryCalendar", "SendEmail"]);
    }

    #[test]
    fn nested_numbered_steps_stay_in_their_scenario() {
        let reply = "Here are three scenarios:\n\n\
            1. **Morning planning**:\n\
            \x20  1. The user asks what is on today (QueryCalendar)\n\
            \x20  2. and sets an alarm before the first meeting (AddAlarm)\n\
            \x20  3. then tells a colleague (SendMessage).\n\
            2. **Evening wrap-up**:\n\
            \x20  1. Lists alarms (FindAlarms)\n\
            \x20  2. Deletes one (DeleteAlarm)\n\
            3. **Weekend**: plans a trip (CreateEvent).\n";
        let got = split_scenarios(reply);
        assert_eq!(got.len(), 3, "{got:#?}");
        assert_eq!(
            got[0],
            "Morning planning: 1. The user asks what is on today (QueryCalendar) \
             2. and sets an alarm before the first meeting (AddAlarm) 3. then tells a colleague (SendMessage)."
        );
        assert!(got[1].starts_with("Evening wrap-up:") && got[1].contains("(DeleteAlarm)"));
        assert_eq!(got[2], "Weekend: plans a trip (CreateEvent).");

        // Tabs and sub-bullets under numbered items.
        let reply = "1. Morning\n\t1. (QueryCalendar)\n\t2. (AddAlarm)\n2. Evening\n   - (FindAlarms)\n   - (DeleteAlarm)";
        assert_eq!(
            split_scenarios(reply),
            [
                "Morning 1. (QueryCalendar) 2. (AddAlarm)",
                "Evening - (FindAlarms) - (DeleteAlarm)"
            ]
        );

        // Bullets at the top, numbered steps below.
        let reply =
            "- Morning:\n  1. (QueryCalendar)\n  2. (AddAlarm)\n- Evening:\n  1. (FindAlarms)";
        assert_eq!(
            split_scenarios(reply),
            [
                "Morning: 1. (QueryCalendar) 2. (AddAlarm)",
                "Evening: 1. (FindAlarms)"
            ]
        );
    }

    #[test]
    fn scenario_labels_win_over_numbered_steps() {
        let reply = "Scenario 1: Morning planning\n\
            1. The user asks what is on today (QueryCalendar)\n\
            2. sets an alarm (AddAlarm)\n\n\
            Scenario 2: Evening\n\
            1. lists alarms (FindAlarms)\n\
            2. deletes one (DeleteAlarm)\n";
        let got = split_scenarios(reply);
        assert_eq!(got.len(), 2, "{got:#?}");
        assert!(got[0].starts_with("Morning planning 1. The user asks"));
        assert!(got[0].ends_with("sets an alarm (AddAlarm)"));
        assert_eq!(
            got[1],
            "Evening 1. lists alarms (FindAlarms) 2. deletes one (DeleteAlarm)"
        );

        let reply =
            "1. **Scenario 1:** alpha\n   1. step (AddAlarm)\n2. **Scenario 2:** beta\n   1. step";
        assert_eq!(
            split_scenarios(reply),
            ["alpha 1. step (AddAlarm)", "beta 1. step"]
        );
    }

    #[test]
    fn filter_records_reasons() {
        let filter = Filter {
            catalog: catalog(),
            required_tool: "AddAlarm".into(),
            offered: vec!["AddAlarm".into(), "FindAlarms".into(), "DeleteAlarm".into()],
            min_tools: 3,
        };
        let reply = "- Scenario 1: set (AddAlarm), list (FindAlarms), drop (DeleteAlarm).\n\
                     - Scenario 2: list (FindAlarms + DeleteAlarm) and brew (MakeCoffee).\n\
                     - Scenario 3: set (AddAlarm) only.\n\
                     - Scenario 4: Set (AddAlarm), list (FindAlarms), drop (DeleteAlarm)!";
        let got = filter.apply(reply);
        assert_eq!(got.len(), 4);
        assert!(got[0].accepted, "{:?}", got[0].reasons);
        assert!(!got[1].accepted);
        assert!(got[1]
            .reasons
            .iter()
            .any(|r| r.contains("AddAlarm is not mentioned")));
        assert!(got[1]
            .reasons
            .iter()
            .any(|r| r.contains("MakeCoffee, which is not a tool")));
        assert!(got[2]
            .reasons
            .iter()
            .any(|r| r.contains("1 distinct tools")));
        assert_eq!(got[3].reasons, ["duplicate of scenario 0"]);
    }
}
