//! A conversation between the assistant under test and a simulated user,
//! for any suite whose scenarios give a user something to ask for: the
//! user opens with the scenario's first utterance; the assistant then
//! answers, and while its message is a call (as the suite reads it,
//! [`Task::read`]) the call runs in the scenario's world and its result
//! goes back to it, up to a bound of calls a turn; its first message that
//! is no call goes to the user, who answers in turn. A turn is one user
//! message and everything the assistant does until it speaks to the user
//! again. The conversation ends when the suite says the task is done, at
//! the turn cap, when the user leaves, or on an error.
//!
//! After it, the state check compares the databases the conversation left
//! with those of the world the suite says the task should have left
//! ([`Task::gold_world`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::sim::Databases;
use crate::suite::state::{compare_documents, StateCheck};
use crate::suite::{Execution, World};

pub mod assistant;
pub mod functions;
pub mod user;

pub use assistant::Assistant;
pub use user::{Turn, User};

/// Who a message of the conversation is from (and to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    /// The user, to the assistant.
    User,
    /// The assistant, to the user.
    Assistant,
    /// The assistant, calling a tool.
    Call,
    /// A tool's result, to the assistant.
    Api,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub from: Speaker,
    pub text: String,
}

/// Why a conversation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    Completed,
    MaxTurns,
    UserLeft,
    Error,
}

/// What an assistant's message is, as the suite reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// Words for the user: the assistant's turn ends.
    Speech,
    /// A call to run.
    Call {
        api_name: String,
        arguments: Map<String, Value>,
    },
    /// A call that does not read: the assistant is told why, as a failed
    /// call's result.
    Unreadable(String),
}

/// What a suite gives for one scenario's conversation.
pub trait Task {
    /// What the user says first.
    fn first_utterance(&self) -> &str;

    /// Read one of the assistant's messages.
    fn read(&self, text: &str) -> Reading;

    /// Take note of a call the world ran in `turn`.
    fn record(&mut self, executed: &Execution, turn: usize);

    /// What the assistant is told a call returned.
    fn result_text(&self, executed: &Execution) -> String;

    /// (goals met, goals): the conversation is complete when they are equal.
    fn progress(&self) -> (usize, usize);

    /// The world the scenario should end in (for the state check), made
    /// after the conversation from what it did; None when none can be made.
    fn gold_world(&self) -> Option<Box<dyn World>>;
}

/// How long a conversation may go.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// A conversation still incomplete after this many turns stops.
    pub max_turns: usize,
    /// Calls the assistant may make in one turn before the user speaks.
    pub max_calls_per_turn: usize,
}

/// What a conversation came to.
#[derive(Debug, Clone, PartialEq)]
pub struct Talk {
    pub transcript: Vec<Message>,
    /// Turns held, complete or not.
    pub turns: usize,
    pub stop: Stop,
    pub error: Option<String>,
    /// Calls the assistant made, readable or not.
    pub calls: usize,
    /// Whether the user was asked for a turn (not when the assistant
    /// finished on the first utterance).
    pub user_asked: bool,
    /// The databases it left against those the task should have left.
    pub state_check: Option<StateCheck>,
}

/// Hold one conversation in `world` (made from the databases `before`),
/// from the first utterance to its end.
pub fn converse(
    before: &Databases,
    world: &mut dyn World,
    task: &mut dyn Task,
    assistant: &mut Assistant<'_>,
    user: &mut dyn User,
    bounds: Bounds,
) -> Talk {
    let complete = |task: &dyn Task| {
        let (met, goals) = task.progress();
        met == goals
    };
    let mut talk = Talk {
        transcript: vec![Message {
            from: Speaker::User,
            text: task.first_utterance().to_string(),
        }],
        turns: 1,
        stop: Stop::Error,
        error: None,
        calls: 0,
        user_asked: false,
        state_check: None,
    };
    let (stop, error) = loop {
        if let Err(e) = assistant_turn(world, task, assistant, &mut talk, bounds) {
            break (Stop::Error, Some(e));
        }
        if complete(task) {
            break (Stop::Completed, None);
        }
        if talk.turns >= bounds.max_turns {
            break (Stop::MaxTurns, None);
        }
        talk.user_asked = true;
        match user.reply(&talk.transcript, task.progress()) {
            Err(e) => break (Stop::Error, Some(e)),
            Ok(Turn::Leaves) => break (Stop::UserLeft, None),
            Ok(Turn::Says(text)) => {
                talk.transcript.push(Message {
                    from: Speaker::User,
                    text,
                });
                talk.turns += 1;
            }
        }
    };
    (talk.stop, talk.error) = (stop, error);
    talk.state_check = task.gold_world().map(|gold| {
        StateCheck::new(compare_documents(
            talk.turns,
            before,
            &gold.databases(),
            &world.databases(),
        ))
    });
    talk
}

/// The assistant's side of one turn: calls until it speaks to the user
/// (or makes its last allowed call, or the task is done).
fn assistant_turn(
    world: &mut dyn World,
    task: &mut dyn Task,
    assistant: &mut Assistant<'_>,
    talk: &mut Talk,
    bounds: Bounds,
) -> Result<(), String> {
    for _ in 0..bounds.max_calls_per_turn {
        let text = assistant.reply(&talk.transcript)?;
        let result = match task.read(&text) {
            Reading::Speech => {
                talk.transcript.push(Message {
                    from: Speaker::Assistant,
                    text,
                });
                return Ok(());
            }
            Reading::Unreadable(why) => {
                talk.calls += 1;
                format!("Exception: cannot read the call: {why}")
            }
            Reading::Call {
                api_name,
                arguments,
            } => {
                talk.calls += 1;
                let executed = world.execute(&api_name, arguments, None);
                task.record(&executed, talk.turns);
                task.result_text(&executed)
            }
        };
        talk.transcript.push(Message {
            from: Speaker::Call,
            text,
        });
        talk.transcript.push(Message {
            from: Speaker::Api,
            text: result,
        });
        let (met, goals) = task.progress();
        if met == goals {
            return Ok(());
        }
    }
    Ok(())
}
