//! A drafted dialogue as the model writes it, one turn a line:
//!
//! ```text
//! User: Wake me at seven tomorrow.
//! API-Request: [AddAlarm(time='2023-03-16 07:00:00')]
//! AI: Your alarm is set.
//! ```
//!
//! Read leniently, as models write: the role in any case, in bold
//! (`**User:**`) or after a list dash; `Assistant:` for `AI:`; `API:` or
//! `API Request:` for `API-Request:`; a line with no role continues the
//! text of the turn before it; code fences and text before the first turn
//! are ignored. What the model says an API returned (`API-Response:`,
//! `Result:`) is dropped: the API runs for real afterwards.

/// One line of the draft.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    User(String),
    Assistant(String),
    /// The text after `API-Request:`, read by the suite; `line` is its
    /// 1-based line in the reply.
    Call {
        line: usize,
        text: String,
    },
}

/// The turns of `reply`, and how many results the model wrote (dropped).
pub fn read(reply: &str) -> (Vec<Line>, usize) {
    let mut lines: Vec<Line> = Vec::new();
    let mut guessed_results = 0;
    // Whether unprefixed lines continue the last turn (not after a
    // dropped result, whose continuation is dropped with it).
    let mut continuing = false;
    for (number, raw) in reply.lines().enumerate() {
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with("```") {
            continue;
        }
        match role(trimmed) {
            Some((Role::User, text)) => {
                lines.push(Line::User(text.to_string()));
                continuing = true;
            }
            Some((Role::Assistant, text)) => {
                lines.push(Line::Assistant(text.to_string()));
                continuing = true;
            }
            Some((Role::Call, text)) => {
                lines.push(Line::Call {
                    line: number + 1,
                    text: text.to_string(),
                });
                continuing = false;
            }
            Some((Role::Result, _)) => {
                guessed_results += 1;
                continuing = false;
            }
            None if continuing => {
                if let Some(Line::User(text) | Line::Assistant(text)) = lines.last_mut() {
                    text.push('\n');
                    text.push_str(trimmed);
                }
            }
            None => {}
        }
    }
    (lines, guessed_results)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
    Call,
    Result,
}

/// The role a line starts with and the text after it.
fn role(line: &str) -> Option<(Role, &str)> {
    const PREFIXES: &[(&str, Role)] = &[
        ("user", Role::User),
        ("ai", Role::Assistant),
        ("assistant", Role::Assistant),
        ("api-request", Role::Call),
        ("api request", Role::Call),
        ("api", Role::Call),
        ("api-response", Role::Result),
        ("api response", Role::Result),
        ("response", Role::Result),
        ("result", Role::Result),
    ];
    let bare = line.trim_start_matches(['-', '*', ' ']);
    let (head, rest) = bare.split_once(':')?;
    let head = head.trim_end_matches('*').trim();
    let found = PREFIXES
        .iter()
        .find(|(prefix, _)| head.eq_ignore_ascii_case(prefix))?;
    Some((found.1, rest.trim_start_matches('*').trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_turns_calls_and_drops_guessed_results() {
        let reply = "Here is the dialogue:\n```\nUser: Wake me at 7.\nAPI-Request: [AddAlarm(time='07:00')]\nAPI-Response: {\"status\": \"ok\"}\nAI: Done, your alarm\nis set.\n```";
        let (lines, guessed) = read(reply);
        assert_eq!(
            lines,
            vec![
                Line::User("Wake me at 7.".into()),
                Line::Call {
                    line: 4,
                    text: "[AddAlarm(time='07:00')]".into()
                },
                Line::Assistant("Done, your alarm\nis set.".into()),
            ]
        );
        assert_eq!(guessed, 1);
    }

    #[test]
    fn reads_roles_as_models_write_them() {
        let reply = "**User:** hi\n- Assistant: hello\nAPI: [GetToday()]\napi request: [GetToday()]\nai: ok";
        let (lines, _) = read(reply);
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0], Line::User("hi".into()));
        assert_eq!(lines[1], Line::Assistant("hello".into()));
        assert!(matches!(&lines[2], Line::Call { text, .. } if text == "[GetToday()]"));
        assert!(matches!(&lines[3], Line::Call { line: 4, .. }));
        assert_eq!(lines[4], Line::Assistant("ok".into()));
    }

    #[test]
    fn text_before_the_first_turn_is_no_turn() {
        let (lines, _) = read("Sure! Note: this is fiction.\nUser: hi");
        assert_eq!(lines, vec![Line::User("hi".into())]);
    }
}
