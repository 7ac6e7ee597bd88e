use crate::dialogue::Conversation;
use crate::dialogue::Role;
use crate::lint::document::Document;
use crate::lint::registry::{Check, FileInput};
use crate::lint::{Anchor, Diagnostic};

crate::declare_rule! {
    /// Finds dialogues whose turns are out of order: a conversation must
    /// start with the user and then alternate user and assistant; only the
    /// assistant calls tools; an `index`, where present, must equal the
    /// turn's position. Some turns indexed and others not is a warning.
    ///
    /// For API-Bank dialogues (where the AI may speak twice and API lines
    /// follow anything) the dialogue must start with the user, and two user
    /// lines in a row are reported.
    ///
    /// ## Why
    /// Evaluation replays a conversation turn by turn, asking the assistant
    /// to act after every user turn. Two user turns in a row, or a dialogue
    /// that opens with the assistant, cannot be replayed faithfully, and a
    /// wrong `index` makes every report that quotes it misleading.
    ///
    /// ## Example
    /// ```json
    /// [{"index": 0, "role": "user", "text": "Hi"},
    ///  {"index": 1, "role": "user", "text": "Are you there?"}]
    /// ```
    /// The second turn should be the assistant's.
    name: "turn-order",
    severity: Error,
    summary: "turns do not start with the user and alternate",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    match input.document {
        Document::Conversation(_) => {
            if let Some(conv) = input.conversation {
                conversation_order(conv, out);
            }
        }
        Document::Lines(dialogue) => {
            let mut previous: Option<&str> = None;
            for line in &dialogue.lines {
                let Some(role) = line.role() else { continue };
                let at = Anchor::value("/role").in_line(Some(line.position));
                match (previous, role) {
                    (None, "User") => {}
                    (None, other) => out.push(
                        Diagnostic::new(
                            NAME,
                            format!("the dialogue starts with {other:?}, not with the user"),
                        )
                        .turn(line.position)
                        .at(at)
                        .help("start with the user's request: {\"role\": \"User\", \"text\": \"...\"}"),
                    ),
                    (Some("User"), "User") => out.push(
                        Diagnostic::new(NAME, "two user lines in a row")
                            .turn(line.position)
                            .at(at)
                            .help("merge the two lines, or put the AI's reply between them"),
                    ),
                    _ => {}
                }
                previous = Some(role);
            }
        }
        Document::Pool(_) | Document::Tasks(_) => {}
    }
}

fn conversation_order(conv: &Conversation, out: &mut Vec<Diagnostic>) {
    let turns = &conv.conversation;
    if turns.is_empty() {
        out.push(
            Diagnostic::new(NAME, "the conversation has no turns")
                .at(Anchor::value("/conversation"))
                .help("add the user's opening turn: {\"index\": 0, \"role\": \"user\", \"text\": \"...\"}"),
        );
        return;
    }
    let role_at = |t: usize| Anchor::value(format!("/conversation/{t}/role"));
    let mut previous = None;
    for (t, turn) in turns.iter().enumerate() {
        match (previous, turn.role) {
            (None, Role::Assistant) => out.push(
                Diagnostic::new(
                    NAME,
                    "the conversation starts with the assistant, not the user",
                )
                .turn(t)
                .at(role_at(t))
                .help("add the user's request before it, or make this turn the user's"),
            ),
            (Some(a), b) if a == b => {
                let who = if b == Role::User { "user" } else { "assistant" };
                let other = if b == Role::User { "assistant" } else { "user" };
                out.push(
                    Diagnostic::new(
                        NAME,
                        format!("turn {t} is a second {who} turn in a row; turns must alternate"),
                    )
                    .turn(t)
                    .at(role_at(t))
                    .help(format!(
                        "merge it into turn {}, or put the {other}'s turn between them",
                        t - 1
                    )),
                );
            }
            _ => {}
        }
        if turn.role == Role::User && !turn.calls().is_empty() {
            out.push(
                Diagnostic::new(
                    NAME,
                    format!("user turn {t} carries tool calls; only the assistant calls tools"),
                )
                .turn(t)
                .at(Anchor::key(format!("/conversation/{t}/apis")))
                .help("move the calls to the assistant turn that answers it"),
            );
        }
        previous = Some(turn.role);
    }
    let indexed = turns.iter().filter(|t| t.index.is_some()).count();
    for (t, turn) in turns.iter().enumerate() {
        if let Some(index) = turn.index {
            if index != t as u64 {
                out.push(
                    Diagnostic::new(
                        NAME,
                        format!("turn {t} has index {index}; the index must equal its position"),
                    )
                    .turn(t)
                    .at(Anchor::value(format!("/conversation/{t}/index")))
                    .help(format!("set it to {t}")),
                );
            }
        }
    }
    if indexed > 0 && indexed < turns.len() {
        let first_missing = turns.iter().position(|t| t.index.is_none()).unwrap_or(0);
        out.push(
            Diagnostic::new(
                NAME,
                format!(
                    "{indexed} of {} turns have an index; turn {first_missing} has none",
                    turns.len()
                ),
            )
            .turn(first_missing)
            .at(Anchor::value(format!("/conversation/{first_missing}")))
            .help("give every turn an `index` equal to its position, or none of them")
            .warning(),
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lint::rules::testing::{conversation, dialogue, run, run_on};

    #[test]
    fn alternating_turns_pass_and_two_in_a_row_do_not() {
        let good = conversation(&[("user", "hi", vec![]), ("assistant", "hello", vec![])]);
        assert!(run_on(&RULE, &good).is_empty());
        let bad = conversation(&[("user", "hi", vec![]), ("user", "hello?", vec![])]);
        let found = run_on(&RULE, &bad);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].turn, Some(1));
        assert_eq!(
            found[0].help.as_deref(),
            Some("merge it into turn 0, or put the assistant's turn between them")
        );
        let opens_with_assistant = conversation(&[("assistant", "hello", vec![])]);
        assert_eq!(run_on(&RULE, &opens_with_assistant).len(), 1);
    }

    #[test]
    fn a_wrong_index_says_what_it_should_be() {
        let mut c = conversation(&[("user", "hi", vec![]), ("assistant", "hello", vec![])]);
        c["conversation"][1]["index"] = json!(5);
        let found = run_on(&RULE, &c);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].help.as_deref(), Some("set it to 1"));
    }

    #[test]
    fn some_turns_indexed_and_others_not_is_a_warning() {
        let turns = [
            ("user", "hi", vec![]),
            ("assistant", "hello", vec![]),
            ("user", "bye", vec![]),
        ];
        let mut some = conversation(&turns);
        some["conversation"][1]
            .as_object_mut()
            .unwrap()
            .remove("index");
        let found = run_on(&RULE, &some);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].severity, Some(crate::lint::Severity::Warning));
        assert_eq!(found[0].turn, Some(1));
        assert!(found[0].message.starts_with("2 of 3 turns have an index"));
        // All indexed, or none: nothing to say.
        assert!(run_on(&RULE, &conversation(&turns)).is_empty());
        let mut none = conversation(&turns);
        for turn in none["conversation"].as_array_mut().unwrap() {
            turn.as_object_mut().unwrap().remove("index");
        }
        assert!(run_on(&RULE, &none).is_empty());
    }

    #[test]
    fn user_turns_do_not_call_tools() {
        let c = conversation(&[("user", "hi", vec![("GetReminders", json!({}), json!([]))])]);
        let found = run_on(&RULE, &c);
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("carries tool calls"));
    }

    #[test]
    fn apibank_dialogues_start_with_the_user() {
        let good = dialogue(&[
            json!({"role": "User", "text": "hi"}),
            json!({"role": "AI", "text": "hello"}),
            json!({"role": "AI", "text": "anything else?"}),
        ]);
        assert!(run(&RULE, "d.jsonl", &good).is_empty());
        let bad = dialogue(&[
            json!({"role": "AI", "text": "hello"}),
            json!({"role": "User", "text": "hi"}),
            json!({"role": "User", "text": "hi again"}),
        ]);
        let found = run(&RULE, "d.jsonl", &bad);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found.iter().all(|d| d.help.is_some()));
    }
}
