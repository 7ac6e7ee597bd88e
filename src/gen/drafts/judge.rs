//! The optional last check of a draft (`--judge-model`): a second model
//! reads the executed dialogue, its real results included, and answers
//! whether the calls do what the user asked and the replies state only
//! what the results hold. Its prompt is a template
//! (`prompts/judge-draft.j2`); its answer is read leniently, and an answer
//! that holds no verdict refuses the draft with a reason that says so.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::dialogue::{Conversation, Role};
use crate::suite::Suite;
use crate::{Error, Result};

use super::{documented, Template};

/// The built-in judge prompt: its name and text.
pub const TEMPLATE: (&str, &str) = (
    "prompts/judge-draft.j2",
    include_str!("../../../prompts/judge-draft.j2"),
);

/// The judge's answer about one draft.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judgement {
    /// `accept`, `reject`, or `unreadable` (no verdict in the reply).
    pub verdict: String,
    /// The judge's reason (unreadable: what it answered instead).
    pub reason: String,
    /// The model the server says answered.
    pub model: Option<String>,
}

impl Judgement {
    pub fn accepts(&self) -> bool {
        self.verdict == "accept"
    }
}

/// `template` if it compiles (checked before anything is sent).
pub fn checked(template: Template) -> Result<Template> {
    minijinja::Environment::new()
        .add_template(&template.name, &template.text)
        .map_err(|e| Error::input(&template.name, e.to_string()))?;
    Ok(template)
}

/// The dialogue as the judge reads it: one line a turn, each call with the
/// result it really returned.
pub fn transcript(dialogue: &Conversation) -> String {
    let mut text = String::new();
    for turn in &dialogue.conversation {
        let speaker = match turn.role {
            Role::User => "User",
            Role::Assistant => "AI",
        };
        for call in turn.calls() {
            let arguments: Vec<String> = call
                .request
                .parameters
                .iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            text += &format!(
                "Call: {}({})\n",
                call.request.api_name,
                arguments.join(", ")
            );
            match &call.exception {
                Some(exception) => text += &format!("Raised: {exception}\n"),
                None => text += &format!("Result: {}\n", call.response),
            }
        }
        if !turn.text.trim().is_empty() {
            text += &format!("{speaker}: {}\n", turn.text.trim());
        }
    }
    text
}

/// The judge's prompt for one executed draft. The template gets
/// `dialogue` (its [`transcript`]), `targets` (the tools it was drafted
/// for) and `tool_docs` (the documentation of every tool it calls).
pub fn prompt(
    suite: &dyn Suite,
    template: &Template,
    dialogue: &Conversation,
    targets: &[String],
) -> Result<String> {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_template(&template.name, &template.text)
        .map_err(|e| Error::input(&template.name, e.to_string()))?;
    let compiled = env.get_template(&template.name).expect("just added");
    let mut called: Vec<&str> = Vec::new();
    for (_, _, call) in dialogue.gold_calls() {
        if !called.contains(&call.request.api_name.as_str()) {
            called.push(&call.request.api_name);
        }
    }
    let docs: Vec<_> = called
        .iter()
        .filter_map(|name| suite.catalog().tool(name))
        .map(|spec| documented(suite, spec))
        .collect();
    compiled
        .render(minijinja::context! {
            dialogue => transcript(dialogue),
            targets => targets,
            tool_docs => minijinja::Value::from_serialize(&docs),
        })
        .map_err(|e| Error::input(&template.name, e.to_string()))
}

/// Read the judge's reply: a JSON object `{"verdict": "accept" | "reject",
/// "reason": ...}` anywhere in it, else a `verdict: accept` line; anything
/// else is `unreadable`, with what it said as the reason.
pub fn read(reply: &str, model: Option<String>) -> Judgement {
    let (verdict, reason) = from_json(reply)
        .or_else(|| from_lines(reply))
        .unwrap_or_else(|| {
            let said: String = reply.trim().chars().take(200).collect();
            (
                "unreadable".to_string(),
                format!("the judge's reply holds no verdict (accept or reject): {said:?}"),
            )
        });
    Judgement {
        verdict,
        reason,
        model,
    }
}

/// The verdict and reason of the first JSON object in `reply` that has a
/// readable verdict.
fn from_json(reply: &str) -> Option<(String, String)> {
    reply.match_indices('{').find_map(|(start, _)| {
        let mut values = serde_json::Deserializer::from_str(&reply[start..]).into_iter::<Value>();
        let Ok(Value::Object(object)) = values.next()? else {
            return None;
        };
        let verdict = verdict_word(object.get("verdict")?.as_str()?)?;
        let reason = object
            .get("reason")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .unwrap_or("the judge gave no reason");
        Some((verdict.to_string(), reason.to_string()))
    })
}

/// `verdict: accept` and `reason: ...` lines, as a model may write
/// instead of JSON.
fn from_lines(reply: &str) -> Option<(String, String)> {
    let field = |name: &str| {
        reply.lines().find_map(|line| {
            let line = line.trim().trim_start_matches(['-', '*', ' ']);
            let (key, value) = line.split_once(':')?;
            key.trim_matches(['*', ' '])
                .eq_ignore_ascii_case(name)
                .then(|| {
                    value
                        .trim()
                        .trim_matches(['*', '"', '\'', '.', ' '])
                        .to_string()
                })
        })
    };
    let verdict = verdict_word(&field("verdict")?)?;
    let reason = field("reason")
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "the judge gave no reason".into());
    Some((verdict.to_string(), reason))
}

fn verdict_word(word: &str) -> Option<&'static str> {
    match word.trim().to_ascii_lowercase().as_str() {
        "accept" | "accepted" => Some("accept"),
        "reject" | "rejected" => Some("reject"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_json_verdict_among_prose() {
        let j = read(
            "Sure.\n```json\n{\"verdict\": \"reject\", \"reason\": \"the reply invents a time\"}\n```",
            None,
        );
        assert_eq!(
            (j.verdict.as_str(), j.reason.as_str()),
            ("reject", "the reply invents a time")
        );
        let j = read("{\"verdict\": \"Accept\"}", Some("m".into()));
        assert!(j.accepts());
        assert_eq!(j.reason, "the judge gave no reason");
        assert_eq!(j.model.as_deref(), Some("m"));
    }

    #[test]
    fn reads_verdict_lines() {
        let j = read(
            "**Verdict:** reject\nReason: the alarm time is not the one asked for.",
            None,
        );
        assert_eq!(j.verdict, "reject");
        assert_eq!(j.reason, "the alarm time is not the one asked for");
    }

    #[test]
    fn nonsense_is_unreadable_with_what_it_said() {
        for reply in [
            "Looks fine to me!",
            "",
            "{\"verdict\": \"maybe\"}",
            "{ not json",
        ] {
            let j = read(reply, None);
            assert_eq!(j.verdict, "unreadable", "{reply}");
            assert!(j.reason.contains("holds no verdict"), "{}", j.reason);
            assert!(!j.accepts());
        }
    }
}
