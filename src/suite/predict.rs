//! What the assistant sees of a turn of a whole conversation.
//!
//! An answerer is asked, once per step of an assistant turn, what the
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

use serde_json::{Map, Value};

use crate::dialogue::{Conversation, GoldCall, Role};
use crate::sim::{Reply, Response};
use crate::suite::catalog::CallRef;

/// A predicted call after the world ran it.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictedCall {
    pub api_name: String,
    /// The arguments as executed (a suite may add to them, as ToolTalk
    /// puts in the session token), empty when they could not be parsed.
    pub arguments: Map<String, Value>,
    pub response: Reply,
    pub exception: Option<String>,
    /// Whether the arguments were readable (the reference writes
    /// `"parameters": null` for unreadable ones).
    pub parsed: bool,
    pub metadata: Option<Value>,
}

impl PredictedCall {
    /// A call executed with `call`'s arguments and outcome.
    pub fn from_call(call: GoldCall, parsed: bool, metadata: Option<Value>) -> Self {
        PredictedCall {
            api_name: call.request.api_name,
            arguments: call.request.parameters,
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
            parameters: &self.arguments,
            response: self.response.as_response(),
            exception: self.exception.as_deref(),
        }
    }
}

/// Everything the assistant may look at for one step.
#[derive(Debug, Clone, Copy)]
pub struct TurnInput<'a> {
    pub conversation: &'a Conversation,
    /// Position of the assistant turn in the `conversation` array.
    pub turn: usize,
    /// Calls made so far in this turn, with their results.
    pub predicted: &'a [PredictedCall],
}

/// One entry of the history the assistant sees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HistoryItem<'a> {
    User(&'a str),
    Assistant(&'a str),
    /// A tool call with its result; `parameters` is `None` for a predicted
    /// call whose arguments could not be parsed.
    Call {
        api_name: &'a str,
        parameters: Option<&'a Map<String, Value>>,
        response: Response<'a>,
        exception: Option<&'a str>,
    },
}

impl<'a> TurnInput<'a> {
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
                calls.iter().map(gold_item).chain(std::iter::once(text))
            });
        let current = self.predicted.iter().map(|p| HistoryItem::Call {
            api_name: &p.api_name,
            parameters: p.parsed.then_some(&p.arguments),
            response: p.response.as_response(),
            exception: p.exception.as_deref(),
        });
        earlier.chain(current)
    }
}

fn gold_item(call: &GoldCall) -> HistoryItem<'_> {
    HistoryItem::Call {
        api_name: &call.request.api_name,
        parameters: Some(&call.request.parameters),
        response: Response::Json(&call.response),
        exception: call.exception.as_deref(),
    }
}
