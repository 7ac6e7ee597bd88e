use crate::lint::document::Document;
use crate::lint::registry::{Check, FileInput};
use crate::lint::{Anchor, Diagnostic};
use crate::model::Role;

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
        Document::ToolTalk(file) => {
            if let Some(conv) = &file.typed {
                tooltalk(conv, out);
            }
        }
        Document::ApiBank(dialogue) => {
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
                        .at(at),
                    ),
                    (Some("User"), "User") => out.push(
                        Diagnostic::new(NAME, "two user lines in a row")
                            .turn(line.position)
                            .at(at),
                    ),
                    _ => {}
                }
                previous = Some(role);
            }
        }
        Document::Pool(_) => {}
    }
}

fn tooltalk(conv: &crate::model::Conversation, out: &mut Vec<Diagnostic>) {
    let turns = &conv.conversation;
    if turns.is_empty() {
        out.push(
            Diagnostic::new(NAME, "the conversation has no turns")
                .at(Anchor::value("/conversation")),
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
                .at(role_at(t)),
            ),
            (Some(a), b) if a == b => {
                let who = if b == Role::User { "user" } else { "assistant" };
                out.push(
                    Diagnostic::new(
                        NAME,
                        format!("turn {t} is a second {who} turn in a row; turns must alternate"),
                    )
                    .turn(t)
                    .at(role_at(t)),
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
                .at(Anchor::key(format!("/conversation/{t}/apis"))),
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
                    .at(Anchor::value(format!("/conversation/{t}/index"))),
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
            .warning(),
        );
    }
}
