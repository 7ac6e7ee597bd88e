use crate::json::tree::Json;
use crate::lint::registry::{Check, FileInput};
use crate::lint::{pointer_token, Anchor, Diagnostic};
use crate::scaffold::PLACEHOLDER;

crate::declare_rule! {
    /// Finds text that `talkforge scaffold` left for the maintainer to write
    /// and that is still there: any string, anywhere in the file, that
    /// starts with the scaffold's marker `TODO(talkforge):`.
    ///
    /// ## Why
    /// A skeleton is not a conversation. Left-over placeholders reach
    /// prompts and metrics as if a user had said them.
    ///
    /// ## Example
    /// ```json
    /// {"index": 0, "role": "user", "text": "TODO(talkforge): the user's opening request"}
    /// ```
    name: "placeholder-text",
    severity: Error,
    summary: "a scaffold placeholder was left in the file",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    use crate::lint::document::Document;
    // A string can hold the marker only if the file's text does, or spells
    // some of its characters as \u escapes (the only escapes they have);
    // many files have neither, and are passed by one scan of their text.
    let text = input.document.text().as_bytes();
    if marker().find(text).is_none() && memchr::memmem::find(text, b"\\u").is_none() {
        return;
    }
    // The values to search, with the API-Bank line each one is on.
    let values: Vec<(&Json<'_>, Option<usize>)> = match input.document {
        Document::Conversation(file) => vec![(&file.value, None)],
        Document::Pool(file) => vec![(&file.value, None)],
        // A task's scenario is the simulated user's brief, not text the
        // author fills in later.
        Document::Tasks(_) => Vec::new(),
        Document::Lines(dialogue) => dialogue
            .lines
            .iter()
            .map(|l| (&l.value, Some(l.position)))
            .collect(),
    };
    for (value, line) in values {
        // One pass settles the usual case (no marker) before any pointer
        // is built.
        if holds_placeholder(value) {
            walk(value, &mut String::new(), line, out);
        }
    }
}

fn walk(value: &Json<'_>, pointer: &mut String, line: Option<usize>, out: &mut Vec<Diagnostic>) {
    match value {
        Json::String(s) if has_marker(s) => {
            let at = s.find(PLACEHOLDER).unwrap_or(0);
            let what = s[at + PLACEHOLDER.len()..].trim();
            let place = if pointer.is_empty() {
                "/"
            } else {
                pointer.as_str()
            };
            let mut d = Diagnostic::new(NAME, format!("placeholder left at {place}: {what}"))
                .at(Anchor::value(pointer.clone()).in_line(line));
            if let Some(turn) = turn_of(pointer).or(line) {
                d = d.turn(turn);
            }
            out.push(d.help("write the real text (or remove the field) before committing"));
        }
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if !holds_placeholder(item) {
                    continue;
                }
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                walk(item, pointer, line, out);
                pointer.truncate(len);
            }
        }
        Json::Object(map) => {
            for (key, item) in map {
                if !holds_placeholder(item) {
                    continue;
                }
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&pointer_token(key));
                walk(item, pointer, line, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Whether a placeholder is anywhere inside `value` (checked before the
/// pointer to it is built, since almost nothing holds one).
fn holds_placeholder(value: &Json<'_>) -> bool {
    match value {
        Json::String(s) => has_marker(s),
        Json::Array(items) => items.iter().any(holds_placeholder),
        Json::Object(map) => map.values().any(holds_placeholder),
        _ => false,
    }
}

/// The turn a pointer into a conversation is inside, if any.
/// The marker's searcher, built once rather than for each of a file's many
/// short strings.
fn marker() -> &'static memchr::memmem::Finder<'static> {
    static FINDER: std::sync::OnceLock<memchr::memmem::Finder<'static>> =
        std::sync::OnceLock::new();
    FINDER.get_or_init(|| memchr::memmem::Finder::new(PLACEHOLDER))
}

fn has_marker(s: &str) -> bool {
    s.len() >= PLACEHOLDER.len() && marker().find(s.as_bytes()).is_some()
}

fn turn_of(pointer: &str) -> Option<usize> {
    pointer
        .strip_prefix("/conversation/")?
        .split('/')
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lint::rules::testing::{conversation, dialogue, run, run_on};

    #[test]
    fn a_leftover_placeholder_is_caught_where_it_is() {
        let written = conversation(&[("user", "wake me at 7am", vec![])]);
        assert!(run_on(&RULE, &written).is_empty());
        let left = conversation(&[
            ("user", "wake me at 7am", vec![]),
            (
                "assistant",
                "TODO(talkforge): the assistant's answer",
                vec![],
            ),
        ]);
        let found = run_on(&RULE, &left);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].turn, Some(1));
        assert!(found[0].message.contains("/conversation/1/text"));
        let lines = dialogue(&[json!({"role": "User", "text": "TODO(talkforge): ask"})]);
        assert_eq!(run(&RULE, "d.jsonl", &lines).len(), 1);
    }

    #[test]
    fn a_marker_spelled_with_escapes_is_still_found() {
        let left = conversation(&[("user", "TODO(talkforge): the user's request", vec![])]);
        let text = serde_json::to_string_pretty(&left)
            .unwrap()
            .replace("TODO(talkforge)", "TODO\\u0028talkforge\\u0029");
        assert!(!text.contains(PLACEHOLDER));
        assert_eq!(run(&RULE, "c.json", &text).len(), 1);
    }

    #[test]
    fn a_lookalike_marker_is_no_placeholder() {
        let c = conversation(&[("user", "TODO: call mum", vec![])]);
        assert!(run_on(&RULE, &c).is_empty());
    }
}
