//! The samples of one dialogue, as the reference's evaluator builds them
//! (`Sample.from_chat_history`): for every API line, one sample whose
//! target is that line (the dialogue before it as history) and one whose
//! target is the line after it (the dialogue up to and including the API
//! line). The second is a reply sample when the next line is the AI's, and
//! a second sample of the next call when that line is an API line too: an
//! API line right after another is a target twice, with the same history.
//! A line after the last API line that is the user's is no sample; an API
//! line that ends the file has no second sample (the reference fails
//! there).

use crate::dialogue::{Conversation, Role};

/// A call sample's place as a person reads it: its line as an editor
/// numbers it (`line` is 0-based, as JSON's `turn`), and "(second
/// sample)" for the second sample of a line (JSON's `occurrence` 1). Every
/// report, summary and error names a sample this way.
pub fn sample_place(line: usize, occurrence: u8) -> String {
    let second = if occurrence > 0 {
        " (second sample)"
    } else {
        ""
    };
    format!("line {}{second}", line + 1)
}

/// A sample whose target is a gold API line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallSample {
    /// The 0-based line of the gold API line; the history is every line
    /// before it.
    pub line: usize,
    /// 0 for the line's first sample, 1 for its second (the line follows
    /// another API line).
    pub occurrence: u8,
    /// Whether the AI's reply right after the line is a sample too (its
    /// history ends with the API line; its score goes with the line's
    /// first sample).
    pub reply: bool,
}

/// The call samples of `dialogue` in the reference's order (one turn per
/// line, as API-Bank dialogues read).
pub fn samples(dialogue: &Conversation) -> Vec<CallSample> {
    let lines = &dialogue.conversation;
    let is_api = |line: usize| lines.get(line).is_some_and(|l| l.apis.is_some());
    let mut samples: Vec<CallSample> = Vec::new();
    for line in (0..lines.len()).filter(|&line| is_api(line)) {
        // The line's own sample, then the next line's when it is an API
        // line too (a sample of the same history).
        let targets = [line, line + 1];
        for target in targets.into_iter().filter(|&t| t == line || is_api(t)) {
            // Lines come in order, so a line's earlier sample is the last one.
            let occurrence = match samples.last() {
                Some(last) if last.line == target => last.occurrence + 1,
                _ => 0,
            };
            let next = lines.get(target + 1);
            let replied = next.is_some_and(|n| n.apis.is_none() && n.role == Role::Assistant);
            samples.push(CallSample {
                line: target,
                occurrence,
                reply: occurrence == 0 && replied,
            });
        }
    }
    samples
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_is_named_by_its_editor_line_and_which_sample_of_it() {
        assert_eq!(sample_place(0, 0), "line 1");
        assert_eq!(sample_place(2, 1), "line 3 (second sample)");
    }

    fn dialogue(roles: &[&str]) -> Conversation {
        let text: String = roles
            .iter()
            .map(|role| match *role {
                "API" => "{\"role\": \"API\", \"api_name\": \"GetToday\", \"param_dict\": {}}\n"
                    .to_string(),
                role => format!("{{\"role\": \"{role}\", \"text\": \"hi\"}}\n"),
            })
            .collect();
        crate::formats::apibank::read_conversation(std::path::Path::new("d.jsonl"), &text).unwrap()
    }

    fn sample(line: usize, occurrence: u8, reply: bool) -> CallSample {
        CallSample {
            line,
            occurrence,
            reply,
        }
    }

    #[test]
    fn one_sample_per_api_line_and_a_reply_sample_after_it() {
        let s = samples(&dialogue(&["User", "API", "AI", "User", "API", "AI"]));
        assert_eq!(s, vec![sample(1, 0, true), sample(4, 0, true)]);
    }

    #[test]
    fn an_api_line_after_another_is_a_target_twice() {
        let s = samples(&dialogue(&["User", "API", "API", "AI"]));
        assert_eq!(
            s,
            vec![sample(1, 0, false), sample(2, 0, true), sample(2, 1, false)]
        );
    }

    #[test]
    fn a_user_line_after_a_call_and_a_last_api_line_make_no_second_sample() {
        let s = samples(&dialogue(&["User", "API", "User", "API"]));
        assert_eq!(s, vec![sample(1, 0, false), sample(3, 0, false)]);
    }
}
