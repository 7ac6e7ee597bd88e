//! The tools a scenario's text mentions, read against a suite's catalog:
//! what the generation filter keeps a scenario for and what `lint`
//! checks a pool's scenarios against.

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;

use super::Catalog;

fn parenthesis() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\(([^()]*)\)").expect("valid regex"))
}

fn camel_word() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+$").expect("valid regex"))
}

/// A word: a letter, then letters and digits.
pub(crate) fn word() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"[A-Za-z][A-Za-z0-9]*").expect("valid regex"))
}

/// Verbs that API names start with. A parenthesised CamelCase word led by
/// one of these reads as a tool the model invented ("(ArchiveEmail)",
/// "(MakeCoffee)"); one that is not ("(YouTube)", "(PowerPoint)") reads as
/// a brand or product name and is no tool mention.
const API_VERBS: &[&str] = &[
    "Add",
    "Approve",
    "Archive",
    "Assign",
    "Book",
    "Buy",
    "Calculate",
    "Call",
    "Cancel",
    "Change",
    "Check",
    "Clear",
    "Close",
    "Complete",
    "Compute",
    "Confirm",
    "Convert",
    "Copy",
    "Count",
    "Create",
    "Delete",
    "Disable",
    "Dismiss",
    "Download",
    "Draft",
    "Edit",
    "Enable",
    "Export",
    "Fetch",
    "Filter",
    "Find",
    "Forward",
    "Generate",
    "Get",
    "Import",
    "Insert",
    "Invite",
    "List",
    "Load",
    "Lock",
    "Log",
    "Login",
    "Logout",
    "Look",
    "Lookup",
    "Make",
    "Mark",
    "Modify",
    "Move",
    "Mute",
    "Notify",
    "Order",
    "Pause",
    "Pay",
    "Play",
    "Post",
    "Query",
    "Read",
    "Register",
    "Remove",
    "Rename",
    "Reply",
    "Request",
    "Reserve",
    "Reset",
    "Restore",
    "Resume",
    "Retrieve",
    "Save",
    "Schedule",
    "Search",
    "Send",
    "Set",
    "Share",
    "Show",
    "Sign",
    "Snooze",
    "Sort",
    "Start",
    "Stop",
    "Submit",
    "Subscribe",
    "Summarize",
    "Sync",
    "Toggle",
    "Track",
    "Translate",
    "Unlock",
    "Unsubscribe",
    "Update",
    "Upload",
    "Validate",
    "Verify",
    "View",
    "Write",
];

/// Whether a parenthesised CamelCase word is meant as a tool: a catalog
/// name, a near miss of one ("SendEmails", "QueryCalender"), or a
/// verb-led API-style name.
fn looks_like_tool(catalog: &Catalog, name: &str) -> bool {
    if catalog.tool(name).is_some() {
        return true;
    }
    let lower = name.to_lowercase();
    let close = catalog
        .tools()
        .iter()
        .any(|t| strsim::normalized_damerau_levenshtein(&lower, &t.name.to_lowercase()) >= 0.8);
    if close {
        return true;
    }
    let first_word_end = name[1..]
        .find(|c: char| c.is_ascii_uppercase())
        .map_or(name.len(), |i| i + 1);
    API_VERBS.contains(&&name[..first_word_end])
}

/// The tools a scenario mentions, first mention first: every tool-like
/// name inside parentheses ("(SearchInbox + SendEmail)"; see
/// `looks_like_tool`), and catalog tool names anywhere in the text.
pub fn mentioned_tools(catalog: &Catalog, text: &str) -> Vec<String> {
    let mut found: Vec<(usize, String)> = Vec::new();
    for cap in parenthesis().captures_iter(text) {
        let inner = cap.get(1).expect("group 1");
        for m in word().find_iter(inner.as_str()) {
            if camel_word().is_match(m.as_str()) && looks_like_tool(catalog, m.as_str()) {
                found.push((inner.start() + m.start(), m.as_str().to_owned()));
            }
        }
    }
    for m in word().find_iter(text) {
        if catalog.tool(m.as_str()).is_some() {
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
