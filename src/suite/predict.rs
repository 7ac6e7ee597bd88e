//! What the assistant sees of a turn of a whole conversation: the gold
//! conversation up to the turn and the calls it already made in this turn
//! with the results the world gave them (the history a model is shown is
//! [`crate::run::turn_request`]'s).

use serde_json::{Map, Value};

use crate::dialogue::Conversation;
use crate::sim::Reply;
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
