//! What a predictor sees and what it answers.
//!
//! A predictor is asked, once per step of an assistant turn, what the
//! assistant does next: call tools or answer with text. It sees the gold
//! history of the conversation up to the turn (user and assistant texts,
//! earlier gold calls with their recorded results) followed by the calls it
//! already made in this turn with the results the world gave them, exactly
//! the history ToolTalk's `run_conversation` builds.
//!
//! Order within an earlier assistant turn: its gold calls (each with its
//! recorded result) first, then its text, as the assistant produced them.
//! This is the reference's order since its fix "move API calls *before*
//! assistant response in the history" (microsoft/ToolTalk #10, commit
//! 19e23f0, May 2024; the data snapshot talkforge follows, e05f4ce, is
//! later). The code as first published, at the paper's time, appended the
//! text before the calls.

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::dialogue::{Conversation, GoldCall, Metadata, Role};
use crate::sim::{Reply, Response};
use crate::suite::catalog::CallRef;

/// The argument the world injects for tools that need a session.
const SESSION_TOKEN: &str = "session_token";

/// A call the predictor asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct ProposedCall {
    pub api_name: String,
    /// `None` when the model's arguments could not be read as a JSON
    /// object; the call is then recorded as failed, as the reference does.
    pub parameters: Option<Map<String, Value>>,
    /// Anything worth keeping about how the call came about (the raw
    /// arguments, the tool-call id); written to the output as is.
    pub metadata: Option<Value>,
}

/// The predictor's answer for one step.
#[derive(Debug, Clone, PartialEq)]
pub enum Prediction {
    /// Call these tools, in order, then ask again.
    Calls(Vec<ProposedCall>),
    /// The turn's answer to the user; the turn ends.
    Text {
        text: String,
        metadata: Option<Value>,
    },
}

/// What the simulation asks a predictor for (see [`Predictor::propose`]):
/// a [`Prediction`], or calls that reuse arguments the predictor was given.
#[derive(Debug, Clone, PartialEq)]
pub enum Proposal<'c> {
    Predicted(Prediction),
    /// Call these tools, in order, then ask again; an empty list ends the
    /// turn with an empty answer, as an empty [`Prediction::Calls`] does.
    Borrowed(Vec<BorrowedCall<'c>>),
    /// The turn's answer, a text the predictor was given (borrowed from the
    /// conversation): [`Prediction::Text`] without metadata.
    Text(&'c str),
}

impl From<Prediction> for Proposal<'_> {
    fn from(prediction: Prediction) -> Self {
        Proposal::Predicted(prediction)
    }
}

/// A call whose arguments are borrowed from what the predictor was given
/// (a call of the conversation), less their session token, which the
/// world puts in for a tool that needs one. The same as a
/// [`ProposedCall`] with those arguments copied and the token removed
/// (`Map::remove`: the last argument takes its place), without the copy
/// where the world can run them as they are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BorrowedCall<'c> {
    pub api_name: &'c str,
    pub parameters: &'c Map<String, Value>,
}

/// The arguments a predicted call was executed with. Equal when they list
/// the same arguments in the same order, however they are held.
#[derive(Debug, Clone)]
pub enum Arguments<'c> {
    Owned(Map<String, Value>),
    /// A [`BorrowedCall`]'s arguments as the world ran them: the same keys
    /// and values, with the session token (when there is one) moved to the
    /// end, as removing it and injecting it again leaves it.
    TokenLast(&'c Map<String, Value>),
}

impl PartialEq for Arguments<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_ref().len() == other.as_ref().len()
            && self.as_ref().iter().eq(other.as_ref().iter())
    }
}

impl Arguments<'_> {
    pub fn as_ref(&self) -> ArgumentsRef<'_> {
        match self {
            Arguments::Owned(map) => ArgumentsRef::InOrder(map),
            Arguments::TokenLast(map) => ArgumentsRef::TokenLast(map),
        }
    }
}

/// Borrowed [`Arguments`] (or a gold call's, in their order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ArgumentsRef<'a> {
    InOrder(&'a Map<String, Value>),
    TokenLast(&'a Map<String, Value>),
}

impl<'a> ArgumentsRef<'a> {
    /// The arguments by key: every key and value, not always in order.
    pub fn by_key(self) -> &'a Map<String, Value> {
        match self {
            ArgumentsRef::InOrder(map) | ArgumentsRef::TokenLast(map) => map,
        }
    }

    pub fn get(self, key: &str) -> Option<&'a Value> {
        crate::sim::pyargs::lookup(self.by_key(), key)
    }

    pub fn len(self) -> usize {
        self.by_key().len()
    }

    pub fn is_empty(self) -> bool {
        self.by_key().is_empty()
    }

    /// The arguments in the order they were executed in.
    pub fn iter(self) -> impl Iterator<Item = (&'a String, &'a Value)> {
        let map = self.by_key();
        // Where the token sits, when it has to move: the last entry takes
        // its place and it goes to the end.
        let moved = match self {
            ArgumentsRef::TokenLast(map) => map
                .keys()
                .position(|k| k == SESSION_TOKEN)
                .filter(|&p| p + 1 < map.len()),
            ArgumentsRef::InOrder(_) => None,
        };
        let n = map.len();
        let p = moved.unwrap_or(n);
        let (swapped, token) = match moved {
            Some(p) => (map.iter().next_back(), map.iter().nth(p)),
            None => (None, None),
        };
        map.iter()
            .take(p)
            .chain(swapped)
            .chain(map.iter().skip(p + 1).take(n.saturating_sub(p + 2)))
            .chain(token)
    }

    /// The arguments as a map, in the order they were executed in.
    pub fn to_map(self) -> Map<String, Value> {
        match self {
            ArgumentsRef::InOrder(map) => map.clone(),
            ArgumentsRef::TokenLast(map) => {
                let mut map = map.clone();
                if let Some(token) = map.remove(SESSION_TOKEN) {
                    map.insert(SESSION_TOKEN.to_string(), token);
                }
                map
            }
        }
    }
}

impl std::ops::Index<&str> for ArgumentsRef<'_> {
    type Output = Value;

    fn index(&self, key: &str) -> &Value {
        &self.by_key()[key]
    }
}

/// In the order they were executed in.
impl Serialize for ArgumentsRef<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (key, value) in self.iter() {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// A predicted call after the world ran it.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictedCall<'c> {
    pub api_name: Cow<'c, str>,
    /// The arguments as executed: the session token injected for auth
    /// tools, empty when they could not be parsed.
    pub arguments: Arguments<'c>,
    /// What the tool returned (a listing holds the world's items, shared).
    pub response: Reply,
    pub exception: Option<String>,
    /// Whether the arguments were readable (the reference writes
    /// `"parameters": null` for unreadable ones).
    pub parsed: bool,
    pub metadata: Option<Value>,
}

impl<'c> PredictedCall<'c> {
    /// A call executed with owned arguments.
    pub fn from_call(call: GoldCall, parsed: bool, metadata: Option<Value>) -> Self {
        PredictedCall {
            api_name: Cow::Owned(call.request.api_name),
            arguments: Arguments::Owned(call.request.parameters),
            response: Reply::Json(call.response),
            exception: call.exception,
            parsed,
            metadata,
        }
    }

    /// The call as a comparator sees it.
    pub fn as_call(&self) -> CallRef<'_> {
        CallRef {
            api_name: &self.api_name,
            parameters: self.arguments.as_ref().by_key(),
            response: self.response.as_response(),
            exception: self.exception.as_deref(),
        }
    }
}

/// Everything a predictor may look at for one step.
#[derive(Debug, Clone, Copy)]
pub struct TurnInput<'a> {
    pub conversation: &'a Conversation,
    /// Position of the assistant turn in the `conversation` array.
    pub turn: usize,
    /// Calls made so far in this turn, with their results.
    pub predicted: &'a [PredictedCall<'a>],
}

/// One entry of the history a predictor sees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HistoryItem<'a> {
    User(&'a str),
    Assistant(&'a str),
    /// A tool call with its result; `parameters` is `None` for a predicted
    /// call whose arguments could not be parsed.
    Call {
        api_name: &'a str,
        parameters: Option<ArgumentsRef<'a>>,
        response: Response<'a>,
        exception: Option<&'a str>,
    },
}

impl<'a> TurnInput<'a> {
    pub fn metadata(&self) -> &'a Metadata {
        &self.conversation.metadata
    }

    /// The history in order: every earlier turn (an assistant turn as its
    /// gold calls, then its text, as the reference orders them), then this
    /// turn's calls so far.
    pub fn history(&self) -> impl Iterator<Item = HistoryItem<'a>> + 'a {
        let earlier = self.conversation.conversation[..self.turn]
            .iter()
            .flat_map(|turn| {
                let calls = match turn.role {
                    Role::User => &[][..],
                    Role::Assistant => turn.calls(),
                };
                let text = match turn.role {
                    Role::User => HistoryItem::User(&turn.text),
                    Role::Assistant => HistoryItem::Assistant(&turn.text),
                };
                calls
                    .iter()
                    .map(|c| gold_item(c, true))
                    .chain(std::iter::once(text))
            });
        let current = self.predicted.iter().map(|p| HistoryItem::Call {
            api_name: &p.api_name,
            parameters: p.parsed.then(|| p.arguments.as_ref()),
            response: p.response.as_response(),
            exception: p.exception.as_deref(),
        });
        earlier.chain(current)
    }
}

fn gold_item(call: &GoldCall, parsed: bool) -> HistoryItem<'_> {
    HistoryItem::Call {
        api_name: &call.request.api_name,
        parameters: parsed.then_some(ArgumentsRef::InOrder(&call.request.parameters)),
        response: Response::Json(&call.response),
        exception: call.exception.as_deref(),
    }
}

/// Why a predictor could not answer; the run stops (exit 2), and what was
/// finished stays on disk for a resumed run.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictError(pub String);

impl std::fmt::Display for PredictError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// An assistant under evaluation.
pub trait Predictor: Sync {
    /// A short name for reports ("oracle", "openai:gpt-4o", ...).
    fn name(&self) -> String;

    /// What the predictor was set up with, recorded in every output file
    /// so that a resumed run re-evaluates what another setting produced.
    fn settings(&self) -> super::output::PredictorSettings {
        super::output::PredictorSettings::default()
    }

    /// What the assistant does next in `input.turn`.
    fn predict(&self, input: &TurnInput<'_>) -> Result<Prediction, PredictError>;

    /// Whether a prediction waits on something outside the process (a
    /// model's endpoint): such conversations are handed to the workers one
    /// at a time, so that as many are in flight as there are workers.
    fn waits(&self) -> bool {
        false
    }

    /// What the simulation asks: [`Predictor::predict`]'s answer, or calls
    /// that borrow their arguments from `conversation` (which is
    /// `input.conversation`, borrowed for as long as the simulation keeps
    /// its calls). A predictor that proposes arguments it was given avoids
    /// copying them this way; by default, `predict`.
    fn propose<'c>(
        &self,
        conversation: &'c Conversation,
        input: &TurnInput<'_>,
    ) -> Result<Proposal<'c>, PredictError> {
        let _ = conversation;
        self.predict(input).map(Proposal::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What the reference's executed request holds: the arguments with the
    /// token removed (`Map::remove`) and injected again.
    fn removed_and_injected(map: &Map<String, Value>) -> Map<String, Value> {
        let mut map = map.clone();
        if let Some(token) = map.remove(SESSION_TOKEN) {
            map.insert(SESSION_TOKEN.to_string(), token);
        }
        map
    }

    fn keys(map: &Map<String, Value>) -> Vec<&str> {
        map.keys().map(String::as_str).collect()
    }

    #[test]
    fn borrowed_arguments_read_in_the_order_they_were_executed_in() {
        let cases = [
            json!({"session_token": "t", "a": 1, "b": 2, "c": 3}),
            json!({"a": 1, "session_token": "t", "b": 2, "c": 3}),
            json!({"a": 1, "b": 2, "session_token": "t"}),
            json!({"session_token": "t", "a": 1}),
            json!({"session_token": "t"}),
            json!({"a": 1, "b": 2}),
            json!({}),
        ];
        for case in cases {
            let map = case.as_object().unwrap();
            let want = removed_and_injected(map);
            let borrowed = Arguments::TokenLast(map);
            let args = borrowed.as_ref();
            assert_eq!(keys(&args.to_map()), keys(&want), "{case}");
            assert_eq!(args.to_map(), want);
            let listed: Vec<(&String, &Value)> = args.iter().collect();
            assert_eq!(listed, want.iter().collect::<Vec<_>>(), "{case}");
            assert_eq!(args.len(), want.len());
            assert_eq!(
                serde_json::to_string(&args).unwrap(),
                serde_json::to_string(&want).unwrap()
            );
            for (key, value) in &want {
                assert_eq!(args.get(key), Some(value));
                assert_eq!(&args[key.as_str()], value);
            }
            // Equal to the same arguments held in that order, and only then.
            assert_eq!(borrowed, Arguments::Owned(want.clone()));
            if keys(map) != keys(&want) {
                assert_ne!(borrowed, Arguments::Owned(map.clone()));
            }
            // Arguments held in order read as they are.
            let owned = Arguments::Owned(map.clone());
            assert_eq!(keys(&owned.as_ref().to_map()), keys(map));
            assert_eq!(
                serde_json::to_string(&owned.as_ref()).unwrap(),
                serde_json::to_string(map).unwrap()
            );
        }
    }
}
