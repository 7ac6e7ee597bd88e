//! The assistant under test: it reads the conversation so far and answers
//! with either a call in its suite's text form (read by the suite's
//! [`crate::suite::interactive::Interactive::read_message`]) or words for the user. Any answerer plays it
//! ([`crate::run::answer`]): the oracle says the scenario's own gold
//! calls, one a message in order, then a closing word (which checks that
//! the scenarios can be completed); a model is asked with the chat below.
//!
//! A model is told about the setting by the suite's system prompt; the
//! user's words reach it as `(User) ...` and tool results as `(API) ...`,
//! both as user messages, its own calls and replies as assistant messages.

use super::{Message, Speaker};
use crate::run::answer::{self, Answer, Answerer, Asked, Chat, Key, Reported};

/// What the oracle says once every gold call is made.
const CLOSING: &str = "That is everything you asked for.";

/// Whoever answers the user in one scenario's conversation.
pub struct Assistant<'a> {
    pub answerer: &'a dyn Answerer,
    /// The scenario, for the requests' keys.
    pub scenario: &'a str,
    /// The suite's system prompt.
    pub system: &'a str,
    /// The gold calls the oracle says, in order.
    pub gold: Vec<String>,
    pub reported: Reported,
}

impl Assistant<'_> {
    /// The next message, given everything said and returned so far.
    pub fn reply(&mut self, transcript: &[Message]) -> Result<String, String> {
        let said = transcript
            .iter()
            .filter(|m| matches!(m.from, Speaker::Assistant | Speaker::Call))
            .count();
        let gold = self.gold.get(said).map_or(CLOSING, String::as_str);
        let key = Key {
            unit: self.scenario.to_string(),
            position: said,
            occurrence: 0,
            asked: Asked::Next,
        };
        let chat = || Chat {
            messages: messages(self.system, transcript),
            tools: Vec::new(),
        };
        let gold = Some(Answer::text(gold));
        let answer = super::ask(self.answerer, &mut self.reported, (key, 0, gold), chat)?;
        Ok(answer.text)
    }
}

/// The messages the assistant's model is sent for `transcript`.
pub fn messages(system: &str, transcript: &[Message]) -> Vec<answer::Message> {
    let mut out = vec![answer::Message::System(system.trim_end().to_string())];
    for message in transcript {
        out.push(match message.from {
            Speaker::User => answer::Message::User(format!("(User) {}", message.text)),
            Speaker::Api => answer::Message::User(format!("(API) {}", message.text)),
            Speaker::Assistant | Speaker::Call => answer::Message::Assistant(message.text.clone()),
        });
    }
    out
}
