//! Algorithm 1 of ToolTalk: simulate every assistant turn of a gold
//! conversation with a predictor.
//!
//! For each assistant turn the world is reset, the gold calls of the
//! earlier assistant turns are replayed, and the predictor is asked for the
//! next step until it answers with text; every call it asks for is run in
//! the world and its result joins the history. The predictions are then
//! set aside and the next turn starts again from the gold history.
//!
//! Two details follow the reference to the letter:
//! - the world replays the earlier gold *requests* (what they did to the
//!   world is recomputed), while the history shown to the predictor holds
//!   the *recorded* responses;
//! - replaying a gold call injects the world's session token into that
//!   call's parameters (the reference mutates the gold dictionary in
//!   place), so Algorithm 2 compares predictions with the gold calls as
//!   replayed. The last assistant turn's calls are never replayed and keep
//!   their recorded parameters.
//!
//! Replaying from scratch for every turn and replaying incrementally reach
//! the same world (execution is deterministic), so the world after the gold
//! calls is kept and cloned per turn; a clone is a few pointer copies. For
//! the same reason, when a turn's predictions were exactly its gold calls,
//! the world they left is the replay's world and is taken as it is.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::predict::{PredictError, PredictedCall, Prediction, Predictor, ProposedCall, TurnInput};
use crate::model::{Conversation, GoldCall, Request, Role};
use crate::sim::{Databases, World};

/// The exception the reference records for a call whose arguments could
/// not be parsed.
pub const PARSE_FAILURE: &str = "Failed to parse API call";

/// The default bound on calls within one assistant turn.
pub const DEFAULT_MAX_CALLS_PER_TURN: usize = 10;

/// The turn's closing answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub text: String,
    pub metadata: Option<Value>,
}

/// What the predictor did in one assistant turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnRun {
    /// Position in the `conversation` array.
    pub turn: usize,
    pub calls: Vec<PredictedCall>,
    /// `None` when the call bound stopped the turn.
    pub answer: Option<Answer>,
    /// The predictor asked for more calls than the bound allows.
    pub stopped_by_bound: bool,
}

/// A gold call as Algorithm 2 sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct GoldRef<'c> {
    pub turn: usize,
    pub call: usize,
    pub gold: Cow<'c, GoldCall>,
}

/// The simulation of one conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation<'c> {
    /// One entry per assistant turn, in order.
    pub turns: Vec<TurnRun>,
    /// Every gold call in order, as replayed.
    pub gold: Vec<GoldRef<'c>>,
}

/// Why a conversation could not be simulated.
#[derive(Debug, Clone, PartialEq)]
pub enum SimulateError {
    /// The conversation's world could not be set up (bad timestamp, unknown user).
    Setup(String),
    Predict(PredictError),
}

impl std::fmt::Display for SimulateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimulateError::Setup(m) => write!(f, "{m}"),
            SimulateError::Predict(e) => write!(f, "predictor failed: {e}"),
        }
    }
}

/// Run Algorithm 1 over `conversation`.
pub fn simulate<'c>(
    databases: &Databases,
    conversation: &'c Conversation,
    predictor: &dyn Predictor,
    max_calls_per_turn: usize,
) -> Result<Simulation<'c>, SimulateError> {
    let mut gold_world =
        World::for_conversation(databases, conversation).map_err(SimulateError::Setup)?;
    let mut turns = Vec::new();
    let mut gold = Vec::new();
    // Gold calls of finished assistant turns that the world has not replayed yet.
    let mut pending: Vec<(usize, usize, &'c GoldCall)> = Vec::new();
    // When the predictor made exactly those calls, the world its turn left
    // and the requests as executed there: the replay's result, already made.
    let mut replayed: Option<(World, Vec<Request>)> = None;

    for (t, turn) in conversation.conversation.iter().enumerate() {
        if turn.role == Role::User {
            continue;
        }
        match replayed.take() {
            Some((world, requests)) => {
                for ((pt, pc, call), request) in pending.drain(..).zip(requests) {
                    gold.push(GoldRef {
                        turn: pt,
                        call: pc,
                        gold: as_replayed(call, request),
                    });
                }
                gold_world = world;
            }
            None => {
                for (pt, pc, call) in pending.drain(..) {
                    let executed =
                        gold_world.execute(&call.request.api_name, &call.request.parameters);
                    gold.push(GoldRef {
                        turn: pt,
                        call: pc,
                        gold: as_replayed(call, executed.request),
                    });
                }
            }
        }
        let mut world = gold_world.clone();
        let run = run_turn(&mut world, conversation, t, predictor, max_calls_per_turn)?;
        replayed = replay_requests(turn.calls(), &run.calls).map(|requests| (world, requests));
        turns.push(run);
        pending.extend(
            turn.calls()
                .iter()
                .enumerate()
                .map(|(c, call)| (t, c, call)),
        );
    }
    // The last assistant turn's calls are never replayed.
    gold.extend(pending.into_iter().map(|(turn, call, g)| GoldRef {
        turn,
        call,
        gold: Cow::Borrowed(g),
    }));
    Ok(Simulation { turns, gold })
}

/// The requests that replaying `gold` would execute, when the turn's
/// predictions executed exactly those: the same tools, in the same order,
/// with the same arguments (the session token aside, which the world
/// injects into both alike). Execution is deterministic, so the world the
/// predictions left is then the world the replay would reach, and
/// replaying it again can be skipped. `None` when anything differs.
fn replay_requests(gold: &[GoldCall], predicted: &[PredictedCall]) -> Option<Vec<Request>> {
    if gold.len() != predicted.len() {
        return None;
    }
    gold.iter()
        .zip(predicted)
        .map(|(gold, predicted)| {
            let executed = &predicted.call.request;
            if !predicted.parsed || executed.api_name != gold.request.api_name {
                return None;
            }
            let mut parameters = gold.request.parameters.clone();
            let auth = crate::sim::tool(&gold.request.api_name).is_some_and(|t| t.requires_auth);
            if auth {
                // What the replay injects: the token the world held then,
                // the same one the prediction was given.
                parameters.insert(
                    "session_token".to_string(),
                    executed.parameters.get("session_token")?.clone(),
                );
            }
            (parameters == executed.parameters).then(|| Request {
                api_name: gold.request.api_name.clone(),
                parameters,
            })
        })
        .collect()
}

/// The gold call with the parameters the replay left in it.
fn as_replayed(call: &GoldCall, executed: Request) -> Cow<'_, GoldCall> {
    if executed.parameters == call.request.parameters {
        Cow::Borrowed(call)
    } else {
        Cow::Owned(GoldCall {
            request: executed,
            response: call.response.clone(),
            exception: call.exception.clone(),
        })
    }
}

fn run_turn(
    world: &mut World,
    conversation: &Conversation,
    turn: usize,
    predictor: &dyn Predictor,
    max_calls: usize,
) -> Result<TurnRun, SimulateError> {
    let mut calls: Vec<PredictedCall> = Vec::new();
    loop {
        let input = TurnInput {
            conversation,
            turn,
            predicted: &calls,
        };
        let proposed = match predictor.predict(&input).map_err(SimulateError::Predict)? {
            Prediction::Text { text, metadata } => {
                return Ok(TurnRun {
                    turn,
                    calls,
                    answer: Some(Answer { text, metadata }),
                    stopped_by_bound: false,
                })
            }
            // Neither a call nor text: an empty answer ends the turn.
            Prediction::Calls(proposed) if proposed.is_empty() => {
                return Ok(TurnRun {
                    turn,
                    calls,
                    answer: Some(Answer {
                        text: String::new(),
                        metadata: None,
                    }),
                    stopped_by_bound: false,
                })
            }
            Prediction::Calls(proposed) => proposed,
        };
        for call in proposed {
            if calls.len() >= max_calls {
                return Ok(TurnRun {
                    turn,
                    calls,
                    answer: None,
                    stopped_by_bound: true,
                });
            }
            calls.push(execute(world, call));
        }
    }
}

/// Run one proposed call; unreadable arguments fail without touching the world.
pub fn execute(world: &mut World, proposed: ProposedCall) -> PredictedCall {
    let ProposedCall {
        api_name,
        parameters,
        metadata,
    } = proposed;
    match parameters {
        Some(parameters) => {
            let executed = world.execute_owned(api_name, parameters);
            PredictedCall {
                call: GoldCall {
                    request: executed.request,
                    response: executed.response,
                    exception: executed.exception,
                },
                parsed: true,
                metadata,
            }
        }
        None => PredictedCall {
            call: GoldCall {
                request: Request {
                    api_name,
                    parameters: Map::new(),
                },
                response: Value::Null,
                exception: Some(PARSE_FAILURE.to_string()),
            },
            parsed: false,
            metadata,
        },
    }
}
