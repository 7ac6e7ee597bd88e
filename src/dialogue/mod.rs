//! A ToolTalk-compatible conversation: the model every command works on,
//! whatever the file format.
//!
//! The typed view is for reading and reasoning; files are rewritten by
//! their format's writer from their own text, so that key order and
//! unknown keys survive byte for byte (see `formats`).
//!
//! An API-Bank dialogue (`formats::apibank`) maps to it one line a turn: a
//! User line is a user turn, an AI line an assistant turn, and an API line
//! an assistant turn with no text holding that one call (its `param_dict`
//! as the request's parameters, its whole `result` object as the recorded
//! response, the result's `exception` as the exception). Blank lines make
//! no turn; a turn's `index` is its line, and each call carries its
//! [`Place`] in the file (line, index among the API lines), so reports name
//! the line whatever blank lines come before it. The dialogue's name and id
//! are the file's stem; it has no user, clock or scenario.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One conversation file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Conversation {
    /// A stable human name, unique in a dataset (ToolTalk uses the file stem).
    pub name: String,
    /// A unique id (ToolTalk uses UUIDs).
    pub conversation_id: String,
    /// Plugins whose tools the gold calls use.
    #[serde(default)]
    pub suites_used: Vec<String>,
    /// Tools the gold calls use.
    #[serde(default)]
    pub apis_used: Vec<String>,
    /// The scenario the conversation was written from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// The user the conversation is with.
    pub user: User,
    /// What the assistant is told: where and when the conversation happens.
    pub metadata: Metadata,
    /// The turns, user and assistant alternating.
    pub conversation: Vec<Turn>,
    /// Known problems of the gold results (see `talkforge::errata`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errata: Vec<Erratum>,
}

/// One known problem of a gold call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Erratum {
    /// The dialogue's file (its path or its last components); only in an
    /// errata file, where it is required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The call's turn (verify's `turn`).
    pub turn: usize,
    /// The call's position (verify's `call`).
    pub call: usize,
    /// The tool called there.
    pub api_name: String,
    /// Why the recorded result differs from what the tool returns.
    pub reason: String,
    /// When the problem was first known: a date, a commit or a release.
    pub since: String,
}

/// The account behind the user side of a conversation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct User {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// Present when the conversation starts logged in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_token: Option<String>,
    /// Seeded into the account before the conversation starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_code: Option<String>,
}

/// Context the assistant is given.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Metadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// The conversation's "now", `%Y-%m-%d %H:%M:%S`.
    #[schemars(regex(pattern = r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$"))]
    pub timestamp: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// One turn of the dialogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Turn {
    /// The turn's position; optional in upstream files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
    pub role: Role,
    pub text: String,
    /// Gold tool calls the assistant makes before answering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub apis: Option<Vec<GoldCall>>,
}

impl Turn {
    pub fn calls(&self) -> &[GoldCall] {
        self.apis.as_deref().unwrap_or(&[])
    }
}

/// A tool call with its recorded result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GoldCall {
    pub request: Request,
    /// The tool's result; null when it raised. A call written by hand may
    /// leave it out: `fill` records it.
    #[serde(default)]
    pub response: Value,
    /// The exception text when the tool raised.
    #[serde(default)]
    pub exception: Option<String>,
    /// Where the file has the call, when its format numbers calls otherwise
    /// than the model's positions (see [`GoldCall::place`]). Not part of the
    /// file.
    #[serde(skip)]
    pub place: Option<Place>,
}

/// Where a gold call is in its file, in the numbers reports give (verify's
/// and fill's `turn` and `call`): for a conversation, the turn's position
/// in `conversation` and the call's in that turn's `apis`; for an API-Bank
/// dialogue, the 0-based line of the file and the call's 0-based index
/// among the file's API lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Place {
    pub turn: usize,
    pub call: usize,
}

impl GoldCall {
    /// The call's place in its file, given its position in the model
    /// (turn `turn`, call `call` of that turn).
    pub fn place(&self, turn: usize, call: usize) -> Place {
        self.place.unwrap_or(Place { turn, call })
    }

    /// The 1-based line of its file the call stands on, as an editor
    /// numbers it, for formats that place a call at a line (API-Bank's
    /// dialogues and level-3 sheets); None for a conversation, whose
    /// calls are named by turn.
    pub fn line(&self) -> Option<usize> {
        self.place.map(|place| place.turn + 1)
    }
}

/// How a report a person reads names a call: `line 14` (1-based, as an
/// editor numbers it) for a call that stands at a line of its file, else
/// `turn 3 call 0` (the positions in `conversation` and the turn's
/// `apis`, as the file's `index` numbers turns).
pub fn place_words(turn: usize, call: usize, line: Option<usize>) -> String {
    match line {
        Some(line) => format!("line {line}"),
        None => format!("turn {turn} call {call}"),
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Request {
    pub api_name: String,
    /// Arguments by name; auth tools carry the injected `session_token`.
    #[serde(deserialize_with = "null_as_empty")]
    pub parameters: Map<String, Value>,
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Map<String, Value>, D::Error> {
    Ok(Option::<Map<String, Value>>::deserialize(d)?.unwrap_or_default())
}

impl Conversation {
    /// Every gold call with its (turn position, call position).
    pub fn gold_calls(&self) -> impl Iterator<Item = (usize, usize, &GoldCall)> {
        self.gold_calls_in(0..self.conversation.len())
    }

    /// The gold calls of the turns at `turns` (positions past the end are
    /// left out), with their (turn position, call position).
    pub fn gold_calls_in(
        &self,
        turns: std::ops::Range<usize>,
    ) -> impl Iterator<Item = (usize, usize, &GoldCall)> {
        let end = turns.end.min(self.conversation.len());
        let start = turns.start.min(end);
        self.conversation[start..end]
            .iter()
            .enumerate()
            .flat_map(move |(t, turn)| {
                turn.calls().iter().enumerate().map(move |(c, call)| {
                    count_gold_call_read();
                    (start + t, c, call)
                })
            })
    }
}

#[cfg(test)]
thread_local! {
    /// Gold calls this thread has read through [`Conversation::gold_calls`]
    /// (for the tests that check that work is linear in a dialogue).
    pub(crate) static GOLD_CALLS_READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn count_gold_call_read() {
    #[cfg(test)]
    GOLD_CALLS_READ.with(|n| n.set(n.get() + 1));
}
