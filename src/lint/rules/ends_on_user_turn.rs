use crate::lint::registry::{Check, FileInput};
use crate::lint::view::{shown, Event, Speaker};
use crate::lint::{Anchor, Diagnostic};

crate::declare_rule! {
    /// Finds dialogues whose last turn is the user's: nothing answers it.
    /// A warning, since a closing remark ("Thanks!") is harmless; a request
    /// left there is not.
    ///
    /// ## Why
    /// Evaluation asks the assistant for each of its turns in the gold
    /// conversation, and only for those: a user turn after the last
    /// assistant turn is never shown to a model and never scored. Whatever
    /// it asks for (and the gold calls it needed) silently drops out of
    /// the benchmark, and stats still count the conversation as complete.
    ///
    /// ## Example
    /// ```json
    /// {"index": 2, "role": "user", "text": "Also move my 7am alarm to 6:30."}
    /// ```
    /// as the conversation's last turn: write the assistant turn that does
    /// it, or end on the assistant's last answer.
    name: "ends-on-user-turn",
    severity: Warning,
    summary: "the dialogue ends on a user turn that nothing answers or evaluates",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    let Some(view) = input.view else { return };
    let Some(Event::Say {
        speaker: Speaker::User,
        turn,
        text,
    }) = view.events.last()
    else {
        return;
    };
    let at = match input.conversation {
        Some(_) => Anchor::value(format!("/conversation/{turn}/text")),
        None => Anchor::value("/text").in_line(Some(*turn)),
    };
    out.push(
        Diagnostic::new(
            NAME,
            format!(
                "the dialogue ends on a user turn, which no assistant turn answers and evaluation never reaches: {:?}",
                shown(text)
            ),
        )
        .turn(*turn)
        .at(at)
        .help("write the assistant turn that answers it, or end on the assistant's last answer"),
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::lint::rules::testing::{conversation, dialogue, run, run_on};

    #[test]
    fn a_conversation_ending_on_the_user_is_reported_with_its_turn() {
        let answered = conversation(&[
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
        ]);
        assert!(run_on(&RULE, &answered).is_empty());
        let mut left = answered.clone();
        left["conversation"]
            .as_array_mut()
            .unwrap()
            .push(json!({"index": 2, "role": "user", "text": "Also move it to 6:30."}));
        let found = run_on(&RULE, &left);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].turn, Some(2));
        assert!(found[0].message.contains("Also move it"));
    }

    #[test]
    fn an_apibank_dialogue_ending_on_the_user_is_reported_at_its_line() {
        let text = dialogue(&[
            json!({"role": "User", "text": "What's the time?"}),
            json!({"role": "AI", "text": "Nine."}),
            json!({"role": "User", "text": "Thanks."}),
        ]);
        let found = run(&RULE, "d.jsonl", &text);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].turn, Some(2));
        let answered = dialogue(&[
            json!({"role": "User", "text": "What's the time?"}),
            json!({"role": "AI", "text": "Nine."}),
        ]);
        assert!(run(&RULE, "d.jsonl", &answered).is_empty());
    }

    #[test]
    fn a_long_last_text_is_shown_cut_on_a_character_boundary() {
        let text = "é".repeat(100);
        let left = dialogue(&[json!({"role": "User", "text": text})]);
        let found = run(&RULE, "d.jsonl", &left);
        assert_eq!(found.len(), 1);
        let shown = format!("{}… (100 characters)", "é".repeat(60));
        assert!(found[0].message.contains(&shown), "{}", found[0].message);
    }
}
