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
//! the same world (execution is deterministic), so the world the earlier
//! gold calls left is kept from turn to turn. When a turn's predictions
//! were exactly its gold calls, the world they leave is the replay's world
//! and is taken as it is. Turns run in that world itself until one
//! diverges from its gold calls; the gold world is then set up again (a
//! replay from the start, once per conversation), and the later turns run
//! in a copy of it, which leaves it untouched for replaying their gold
//! calls. A predictor that follows the gold calls never pays for a copy; one
//! that does not pays at most one replay from the start per conversation.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::predict::{
    Arguments, BorrowedCall, PredictError, PredictedCall, Prediction, Predictor, Proposal,
    ProposedCall, TurnInput,
};
use crate::dialogue::{Conversation, GoldCall, Request, Role};
use crate::sim::pyargs::lookup;
use crate::sim::{Databases, Reply};
use crate::suites::tooltalk::World;

/// The exception the reference records for a call whose arguments could
/// not be parsed.
pub const PARSE_FAILURE: &str = "Failed to parse API call";

/// The default bound on calls within one assistant turn.
pub const DEFAULT_MAX_CALLS_PER_TURN: usize = 10;

/// The turn's closing answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<'c> {
    /// Borrowed from the conversation when the predictor answered with a
    /// text it was given.
    pub text: Cow<'c, str>,
    pub metadata: Option<Value>,
}

/// What the predictor did in one assistant turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnRun<'c> {
    /// Position in the `conversation` array.
    pub turn: usize,
    pub calls: Vec<PredictedCall<'c>>,
    /// `None` when the call bound stopped the turn.
    pub answer: Option<Answer<'c>>,
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
    pub turns: Vec<TurnRun<'c>>,
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
    let set_up = || World::for_conversation(databases, conversation).map_err(SimulateError::Setup);
    // The world after the gold calls of the turns so far.
    let mut gold_world = set_up()?;
    let mut run_in_copy = false;
    // Sized once: a run per assistant turn, a reference per gold call.
    let assistant_turns = conversation
        .conversation
        .iter()
        .filter(|turn| turn.role == Role::Assistant)
        .count();
    let mut turns = Vec::with_capacity(assistant_turns);
    let mut gold = Vec::with_capacity(conversation.gold_calls().count());
    let last_assistant_turn = conversation
        .conversation
        .iter()
        .rposition(|turn| turn.role == Role::Assistant);

    for (t, turn) in conversation.conversation.iter().enumerate() {
        if turn.role == Role::User {
            continue;
        }
        let mut copy = run_in_copy.then(|| gold_world.clone());
        let world = copy.as_mut().unwrap_or(&mut gold_world);
        let run = run_turn(world, conversation, t, predictor, max_calls_per_turn)?;
        let calls = turn.calls().iter().enumerate();
        if Some(t) == last_assistant_turn {
            // The last assistant turn's calls are never replayed.
            gold.extend(calls.map(|(c, call)| GoldRef {
                turn: t,
                call: c,
                gold: Cow::Borrowed(call),
            }));
        } else if let Some(injected) = replayed_injections(turn.calls(), &run.calls) {
            // The world the predictions left is the replay's.
            if let Some(world) = copy {
                gold_world = world;
            }
            gold.extend(calls.zip(injected).map(|((c, call), injected)| GoldRef {
                turn: t,
                call: c,
                gold: as_replayed(call, injected),
            }));
        } else {
            if copy.is_none() {
                // The turn ran in the gold world: set it up again, with the
                // earlier turns' gold calls (recorded as replayed already).
                gold_world = set_up()?;
                for (_, _, call) in gold_calls_before(conversation, t) {
                    gold_world.execute(&call.request.api_name, &call.request.parameters);
                }
                run_in_copy = true;
            }
            for (c, call) in calls {
                let executed = gold_world.execute(&call.request.api_name, &call.request.parameters);
                gold.push(GoldRef {
                    turn: t,
                    call: c,
                    gold: as_executed(call, executed.request),
                });
            }
        }
        turns.push(run);
    }
    Ok(Simulation { turns, gold })
}

/// The gold calls of the assistant turns before `turn`, in order.
fn gold_calls_before(
    conversation: &Conversation,
    turn: usize,
) -> impl Iterator<Item = (usize, usize, &GoldCall)> {
    conversation
        .gold_calls()
        .take_while(move |&(t, _, _)| t < turn)
        .filter(|&(t, _, _)| conversation.conversation[t].role == Role::Assistant)
}

/// What replaying a gold call puts into its arguments.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Injected<'a> {
    Nothing,
    /// The world's session token, for a tool that needs a session.
    SessionToken(&'a Value),
}

/// When the turn's predictions executed exactly what replaying `gold`
/// would: the same tools, in the same order, with the same arguments (the
/// session token aside, which the world injects into both alike), what the
/// replay would put into each gold call. Execution is deterministic, so the
/// world the predictions left is then the world the replay would reach,
/// and replaying it again can be skipped. `None` when anything differs.
///
/// The comparison is the gold arguments with the token put in against the
/// executed ones, made without building the former.
fn replayed_injections<'p>(
    gold: &[GoldCall],
    predicted: &'p [PredictedCall<'_>],
) -> Option<Vec<Injected<'p>>> {
    if gold.len() != predicted.len() {
        return None;
    }
    gold.iter()
        .zip(predicted)
        .map(|(gold, predicted)| {
            if !predicted.parsed || predicted.api_name != gold.request.api_name {
                return None;
            }
            // Compared by key (`Map`'s equality ignores order).
            let executed = predicted.arguments.as_ref().by_key();
            let gold = &gold.request.parameters;
            let auth =
                crate::suites::tooltalk::tool(&predicted.api_name).is_some_and(|t| t.requires_auth);
            if std::ptr::eq(executed, gold) {
                // The gold arguments themselves ran (a borrowed call):
                // for a tool that needs a session, with the world's token,
                // which they hold.
                return Some(if auth {
                    Injected::SessionToken(lookup(executed, SESSION_TOKEN)?)
                } else {
                    Injected::Nothing
                });
            }
            if !auth {
                return (gold == executed).then_some(Injected::Nothing);
            }
            // What the replay injects: the token the world held then, the
            // same one the prediction was given.
            let token = lookup(executed, SESSION_TOKEN)?;
            let injected_len = gold.len() + usize::from(lookup(gold, SESSION_TOKEN).is_none());
            let same = injected_len == executed.len()
                && gold
                    .iter()
                    .filter(|(key, _)| key.as_str() != SESSION_TOKEN)
                    .all(|(key, value)| lookup(executed, key) == Some(value));
            same.then_some(Injected::SessionToken(token))
        })
        .collect()
}

const SESSION_TOKEN: &str = "session_token";

/// The gold call with what the replay put into its parameters.
fn as_replayed<'c>(call: &'c GoldCall, injected: Injected<'_>) -> Cow<'c, GoldCall> {
    match injected {
        Injected::SessionToken(token)
            if lookup(&call.request.parameters, SESSION_TOKEN) != Some(token) =>
        {
            let mut request = call.request.clone();
            request
                .parameters
                .insert(SESSION_TOKEN.to_string(), token.clone());
            Cow::Owned(GoldCall {
                request,
                response: call.response.clone(),
                exception: call.exception.clone(),
            })
        }
        _ => Cow::Borrowed(call),
    }
}

/// The gold call with the parameters its replay executed.
fn as_executed(call: &GoldCall, executed: Request) -> Cow<'_, GoldCall> {
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

fn run_turn<'c>(
    world: &mut World,
    conversation: &'c Conversation,
    turn: usize,
    predictor: &dyn Predictor,
    max_calls: usize,
) -> Result<TurnRun<'c>, SimulateError> {
    // Room for as many calls as the gold turn makes (what an assistant
    // that gets the turn right makes too).
    let gold_calls = conversation.conversation[turn].calls().len();
    let mut calls: Vec<PredictedCall<'c>> = Vec::with_capacity(gold_calls.min(max_calls));
    let answered = |calls, text, metadata| TurnRun {
        turn,
        calls,
        answer: Some(Answer { text, metadata }),
        stopped_by_bound: false,
    };
    loop {
        let input = TurnInput {
            conversation,
            turn,
            predicted: &calls,
        };
        let proposal = predictor
            .propose(conversation, &input)
            .map_err(SimulateError::Predict)?;
        let ran = match proposal {
            Proposal::Text(text) => return Ok(answered(calls, Cow::Borrowed(text), None)),
            Proposal::Predicted(Prediction::Text { text, metadata }) => {
                return Ok(answered(calls, Cow::Owned(text), metadata))
            }
            Proposal::Borrowed(borrowed) => {
                run_calls(world, &mut calls, max_calls, borrowed, execute_borrowed)
            }
            Proposal::Predicted(Prediction::Calls(proposed)) => {
                let owned = |world: &mut World, call| -> PredictedCall<'c> { execute(world, call) };
                run_calls(world, &mut calls, max_calls, proposed, owned)
            }
        };
        match ran {
            // Neither a call nor text: an empty answer ends the turn.
            Ran::Nothing => return Ok(answered(calls, Cow::Borrowed(""), None)),
            Ran::StoppedByBound => {
                return Ok(TurnRun {
                    turn,
                    calls,
                    answer: None,
                    stopped_by_bound: true,
                })
            }
            Ran::All => {}
        }
    }
}

/// How a step's calls went.
enum Ran {
    /// The step proposed no call.
    Nothing,
    /// The turn reached its bound on calls before the step's last call.
    StoppedByBound,
    All,
}

/// Run a step's calls in order, up to the turn's bound.
fn run_calls<'c, C>(
    world: &mut World,
    calls: &mut Vec<PredictedCall<'c>>,
    max_calls: usize,
    proposed: Vec<C>,
    execute: impl Fn(&mut World, C) -> PredictedCall<'c>,
) -> Ran {
    if proposed.is_empty() {
        return Ran::Nothing;
    }
    for call in proposed {
        if calls.len() >= max_calls {
            return Ran::StoppedByBound;
        }
        calls.push(execute(world, call));
    }
    Ran::All
}

/// Run one borrowed call: without copying its arguments where the world
/// can run them as they are, else as the [`ProposedCall`] it stands for.
pub fn execute_borrowed<'c>(world: &mut World, call: BorrowedCall<'c>) -> PredictedCall<'c> {
    let mut parameters = call.parameters.clone();
    parameters.remove(SESSION_TOKEN);
    execute(
        world,
        ProposedCall {
            api_name: call.api_name.to_string(),
            parameters: Some(parameters),
            metadata: None,
        },
    )
}

/// Run one proposed call; unreadable arguments fail without touching the world.
pub fn execute(world: &mut World, proposed: ProposedCall) -> PredictedCall<'static> {
    let ProposedCall {
        api_name,
        parameters,
        metadata,
    } = proposed;
    match parameters {
        Some(parameters) => {
            let executed = world.execute(&api_name, &parameters);
            PredictedCall {
                api_name: Cow::Owned(executed.request.api_name),
                arguments: Arguments::Owned(executed.request.parameters),
                response: Reply::Json(executed.response),
                exception: executed.exception,
                parsed: true,
                metadata,
            }
        }
        None => PredictedCall {
            api_name: Cow::Owned(api_name),
            arguments: Arguments::Owned(Map::new()),
            response: Reply::default(),
            exception: Some(PARSE_FAILURE.to_string()),
            parsed: false,
            metadata,
        },
    }
}
