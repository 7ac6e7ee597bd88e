//! Scenarios out of a model's reply, and the filter that keeps the usable
//! ones. Replies vary: "- Scenario 1:", "**Scenario 1:**", "### Scenario 1",
//! "1.", "2)" all start a scenario; code fences and bold are dropped.

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;

use crate::model::Scenario;
use crate::sim::tool;

fn header() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?im)^[ \t]*(?:[-*+][ \t]*)?(?:#+[ \t]*)?(?:\*\*|__)?[ \t]*(?:scenario[ \t]*#?[ \t]*\d+|\d+[.)])[ \t]*(?:\*\*|__)?[ \t]*[:.)\-–—]?[ \t]*(?:\*\*|__)?",
        )
        .expect("valid regex")
    })
}

fn parenthesis() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\(([^()]*)\)").expect("valid regex"))
}

fn camel_word() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+$").expect("valid regex"))
}

fn word() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"[A-Za-z][A-Za-z0-9]*").expect("valid regex"))
}

/// The scenario texts in a reply, whitespace collapsed, in reply order.
pub fn split_scenarios(reply: &str) -> Vec<String> {
    let cleaned: String = reply
        .lines()
        .filter(|l| !l.trim_start().starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n");
    let starts: Vec<(usize, usize)> = header()
        .find_iter(&cleaned)
        .map(|m| (m.start(), m.end()))
        .collect();
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

fn collapse(text: &str) -> String {
    text.replace("**", "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The tools a scenario mentions, first mention first: every tool-like
/// name inside parentheses ("(SearchInbox + SendEmail)"), and catalog tool
/// names anywhere in the text.
pub fn mentioned_tools(text: &str) -> Vec<String> {
    let mut found: Vec<(usize, String)> = Vec::new();
    for cap in parenthesis().captures_iter(text) {
        let inner = cap.get(1).expect("group 1");
        for m in word().find_iter(inner.as_str()) {
            if camel_word().is_match(m.as_str()) {
                found.push((inner.start() + m.start(), m.as_str().to_owned()));
            }
        }
    }
    for m in word().find_iter(text) {
        if tool(m.as_str()).is_some() {
            found.push((m.start(), m.as_str().to_owned()));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    let mut seen = HashSet::new();
    found
        .into_iter()
        .filter(|(_, name)| seen.insert(name.clone()))
        .map(|(_, name)| name)
        .collect()
}

/// What the filter requires of a scenario.
#[derive(Debug, Clone)]
pub struct Filter {
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
                let tools = mentioned_tools(&text);
                let mut reasons = Vec::new();
                if !tools.contains(&self.required_tool) {
                    reasons.push(format!(
                        "the required tool {} is not mentioned",
                        self.required_tool
                    ));
                }
                for name in &tools {
                    if tool(name).is_none() {
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
            mentioned_tools(text),
            ["SearchInbox", "SendEmail", "AddAlarm", "MakeCoffee"]
        );
    }

    #[test]
    fn filter_records_reasons() {
        let filter = Filter {
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
