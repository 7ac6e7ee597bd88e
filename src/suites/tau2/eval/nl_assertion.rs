//! NL_ASSERTION: a model reads the conversation and says of each
//! assertion whether the agent met it; the reward is 1 when all are met
//! (1 for none). The judge is asked in our own words, for a JSON answer
//! with one verdict per assertion, in order.

use serde::Deserialize;
use serde_json::json;

use super::message::Message;
use crate::run::answer::Model;

const INSTRUCTIONS: &str = "You grade a customer-service conversation between an agent and a customer against a list of expected outcomes. Decide for each outcome, on its own, whether the agent's behaviour in the conversation satisfies it. Answer with one JSON object and nothing else: {\"results\": [{\"outcome\": <the outcome as given>, \"reasoning\": <one or two sentences>, \"met\": <true or false>}]}, one entry per outcome, in the order given.";

/// One assertion's verdict.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Verdict {
    #[serde(default)]
    pub outcome: String,
    #[serde(default)]
    pub reasoning: String,
    pub met: bool,
}

#[derive(Deserialize)]
struct Answer {
    results: Vec<Verdict>,
}

/// The conversation as the judge reads it: a line per message, `role:
/// text` (tau2's transcript shape).
pub fn transcript(trajectory: &[Message]) -> String {
    trajectory
        .iter()
        .map(|m| format!("{}: {}", m.role(), m.content().unwrap_or("None")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The request body for `assertions` over `trajectory`.
pub fn request(model: &Model, assertions: &[String], trajectory: &[Message]) -> serde_json::Value {
    let listed: Vec<String> = assertions
        .iter()
        .enumerate()
        .map(|(i, a)| format!("{}. {a}", i + 1))
        .collect();
    let mut body = json!({
        "model": model.model,
        "messages": [
            {"role": "system", "content": INSTRUCTIONS},
            {"role": "user", "content": format!(
                "Conversation:\n{}\n\nExpected outcomes:\n{}",
                transcript(trajectory),
                listed.join("\n")
            )},
        ],
        "response_format": {"type": "json_object"},
    });
    if let Some(t) = model.temperature {
        body["temperature"] = json!(t);
    }
    body
}

/// Read the judge's answer: one verdict per assertion.
pub fn read_answer(text: &str, assertions: usize) -> Result<Vec<Verdict>, String> {
    let trimmed = text
        .trim()
        .trim_start_matches("```json")
        .trim_start_matches("```")
        .trim_end_matches("```")
        .trim();
    let answer: Answer = serde_json::from_str(trimmed)
        .map_err(|e| format!("the judge's answer is not the JSON asked for ({e})"))?;
    if answer.results.len() != assertions {
        return Err(format!(
            "the judge gave {} verdicts for {assertions} assertions",
            answer.results.len()
        ));
    }
    Ok(answer.results)
}

/// Ask `judge` about `assertions`.
pub fn judge(
    judge: &Model,
    assertions: &[String],
    trajectory: &[Message],
) -> Result<Vec<Verdict>, String> {
    let body = request(judge, assertions, trajectory);
    let completion = judge
        .client
        .chat_blocking(&judge.model, &body, Some("tau2-nl-assertions"))
        .map_err(|e| format!("the judge could not be asked: {e}"))?;
    read_answer(&completion.text(), assertions.len())
}

/// 1 when every verdict is met, else 0.
pub fn reward(verdicts: &[Verdict]) -> f64 {
    if verdicts.iter().all(|v| v.met) {
        1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_needs_a_verdict_per_assertion_and_all_met_for_the_reward() {
        let text = "```json\n{\"results\": [{\"outcome\": \"a\", \"reasoning\": \"r\", \"met\": true}, {\"outcome\": \"b\", \"met\": false}]}\n```";
        let verdicts = read_answer(text, 2).unwrap();
        assert_eq!(reward(&verdicts), 0.0);
        assert_eq!(reward(&verdicts[..1]), 1.0);
        assert!(read_answer(text, 3)
            .unwrap_err()
            .contains("2 verdicts for 3"));
        assert!(read_answer("yes", 1).is_err());
    }

    #[test]
    fn the_transcript_is_a_line_per_message() {
        let t = transcript(&[
            Message::User {
                content: Some("hi".into()),
                tool_calls: None,
            },
            Message::Assistant {
                content: None,
                tool_calls: Some(vec![]),
            },
        ]);
        assert_eq!(t, "user: hi\nassistant: None");
    }
}
