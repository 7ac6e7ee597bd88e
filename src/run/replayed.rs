//! Recorded conversations replayed turn by turn: ToolTalk's evaluation
//! protocol (its Algorithms 1 and 2), for every suite whose dialogues are
//! evaluated as whole conversations. Both are written against the seam
//! (the suite's world, its injected argument and its tools' comparators).
//!
//! Algorithm 1 simulates every assistant turn of a gold conversation with an
//! answerer: for each assistant turn the world is set up afresh with the
//! gold calls of the earlier assistant turns replayed, and the predictor is
//! asked for the next step until it answers with text; every call it asks
//! for is run in that world and its result joins the history. The
//! predictions are then set aside and the next turn starts again from the
//! gold history. Here the replayed world is kept from turn to turn (a replay
//! is deterministic) and each turn runs in a copy of it.
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
//! Algorithm 2 takes the predictions in order; each one is matched with the
//! first gold call (in conversation order) that no earlier prediction has
//! matched and that the gold tool's comparator accepts. This is the
//! reference's deque rotation: the order of the unmatched gold calls never
//! changes. A bad action is a prediction of an action tool that matched
//! nothing and ran without an exception.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::answer::{Answerer, Call, Request};
use super::turn_request::{self, TurnPrompt};
use crate::dialogue::{Conversation, GoldCall, Role};
use crate::sim::Databases;
use crate::suite::catalog::default_matches;
use crate::suite::predict::{PredictedCall, TurnInput};
use crate::suite::protocol::{
    Answer, Flags, GoldRef, Metrics, Scoring, SimulateError, Simulation, TurnRun,
};
use crate::suite::{Catalog, Suite, TextSimilarity, World, WorldOptions};

/// The exception the reference records for a call whose arguments could
/// not be parsed.
pub const PARSE_FAILURE: &str = "Failed to parse API call";

/// Algorithm 2 over a simulation: its predictions matched with its gold
/// calls as replayed.
pub fn score_simulation(
    suite: &dyn Suite,
    simulation: &Simulation<'_>,
    text: &dyn TextSimilarity,
) -> Scoring {
    let gold: Vec<&GoldCall> = simulation.gold.iter().map(|g| g.gold.as_ref()).collect();
    let predictions = simulation.turns.iter().flat_map(|t| &t.calls);
    score(suite.catalog(), predictions, &gold, text)
}

/// Algorithm 1 over `conversation`, each step asked of `answerer` (a
/// model shown the tools as `prompt` says).
pub fn simulate<'c>(
    suite: &dyn Suite,
    databases: &Databases,
    conversation: &'c Conversation,
    answerer: &dyn Answerer,
    prompt: &TurnPrompt,
    max_calls_per_turn: usize,
) -> Result<Simulation<'c>, SimulateError> {
    // The world after the gold calls of the assistant turns so far.
    let mut gold_world = suite
        .world(databases, conversation, &WorldOptions::default())
        .map_err(SimulateError::Setup)?;
    let mut turns = Vec::new();
    let mut gold = Vec::new();
    let mut state = gold_world.tables().map(|_| Vec::new());
    let last_assistant_turn = conversation
        .conversation
        .iter()
        .rposition(|turn| turn.role == Role::Assistant);
    for (t, turn) in conversation.conversation.iter().enumerate() {
        if turn.role == Role::User {
            continue;
        }
        let mut world = gold_world.boxed_clone();
        let (run, world_set) = run_turn(
            world.as_mut(),
            conversation,
            t,
            (answerer, prompt),
            max_calls_per_turn,
            suite.injected_argument(),
        )?;
        let last = Some(t) == last_assistant_turn;
        // A turn whose predictions were exactly its gold calls (the
        // oracle's) left the world the replay would: it is taken as the
        // replay, which need not run again.
        let same_as_gold = ran_as_gold(turn.calls(), &run.calls, &world_set, suite);
        let ran_as_gold = !last && same_as_gold;
        // The world before the turn, for the state check (shared, not copied).
        let before = match (&state, same_as_gold) {
            (Some(_), false) => Some(gold_world.boxed_clone()),
            _ => None,
        };
        for (c, call) in turn.calls().iter().enumerate() {
            // The last turn's gold calls are scored as recorded; they are
            // replayed only for the state check.
            let executed = match (ran_as_gold, last, &before) {
                (true, ..) => Some(Cow::Borrowed(&run.calls[c].arguments)),
                (false, true, None) => None,
                _ => {
                    let parameters = call.request.parameters.clone();
                    let executed = gold_world.execute(&call.request.api_name, parameters, None);
                    Some(Cow::Owned(executed.request.parameters))
                }
            };
            let gold_call = match executed {
                Some(executed) if !last => as_replayed(call, &executed),
                _ => Cow::Borrowed(call),
            };
            gold.push(GoldRef {
                turn: t,
                gold: gold_call,
            });
        }
        if let (Some(writes), Some(before)) = (&mut state, before) {
            if let (Some(b), Some(g), Some(p)) =
                (before.tables(), gold_world.tables(), world.tables())
            {
                writes.extend(crate::suite::state::compare(t, b, g, p));
            }
        }
        if ran_as_gold {
            gold_world = world;
        }
        turns.push(run);
    }
    Ok(Simulation { turns, gold, state })
}

/// The gold call with the parameters its replay executed.
fn as_replayed<'c>(call: &'c GoldCall, executed: &Map<String, Value>) -> Cow<'c, GoldCall> {
    if *executed == call.request.parameters {
        return Cow::Borrowed(call);
    }
    let mut replayed = call.clone();
    replayed.request.parameters = executed.clone();
    Cow::Owned(replayed)
}

/// Whether the turn's `predicted` calls ran exactly what a replay of its
/// `gold` calls runs: the same tools in the same order with the same
/// arguments, except the world's injected argument (the session token)
/// where the world put it in (`world_set`). The world a replay leaves is
/// then the one the predictions left, since a tool's outcome depends only
/// on the world and its arguments, and each replayed request is the
/// predicted call's.
///
/// An injected argument the model wrote itself and the world left alone
/// (a `session_token` passed to `RegisterUser`, or to any tool while no
/// one is logged in) is an argument like any other: the replay of a gold
/// call without it runs something else.
fn ran_as_gold(
    gold: &[GoldCall],
    predicted: &[PredictedCall],
    world_set: &[bool],
    suite: &dyn Suite,
) -> bool {
    let injected = suite.injected_argument();
    gold.len() == predicted.len()
        && gold
            .iter()
            .zip(predicted)
            .zip(world_set)
            .all(|((gold, predicted), &world_set)| {
                let injected = injected.filter(|_| world_set);
                predicted.parsed
                    && predicted.api_name == gold.request.api_name
                    && replays_as(&gold.request.parameters, &predicted.arguments, injected)
            })
}

/// Whether replaying a call with the `gold` arguments executes `executed`
/// when the world sets the `injected` argument (if any): every other
/// argument is the gold one.
fn replays_as(
    gold: &Map<String, Value>,
    executed: &Map<String, Value>,
    injected: Option<&str>,
) -> bool {
    let Some(injected) = injected else {
        return gold == executed;
    };
    let added = !gold.contains_key(injected);
    executed.contains_key(injected)
        && executed.len() == gold.len() + usize::from(added)
        && gold
            .iter()
            .all(|(key, value)| key == injected || executed.get(key) == Some(value))
}

/// Ask the answerer for steps until it answers with text, running its
/// calls in `world`, at most `max_calls` of them. Beside the turn, per
/// call: whether the world set the `injected` argument itself.
fn run_turn(
    world: &mut dyn World,
    conversation: &Conversation,
    turn: usize,
    (answerer, prompt): (&dyn Answerer, &TurnPrompt),
    max_calls: usize,
    injected: Option<&str>,
) -> Result<(TurnRun, Vec<bool>), SimulateError> {
    let mut calls: Vec<PredictedCall> = Vec::new();
    let mut world_set = Vec::new();
    // The closing answer; `None` when the call bound stopped the turn.
    let answer =
        'turn: loop {
            let input = TurnInput {
                conversation,
                turn,
                predicted: &calls,
            };
            let chat = || Ok(turn_request::chat(prompt, &input));
            let request = Request {
                key: turn_request::key(&input),
                step: calls.len(),
                gold: turn_request::gold(&input, injected),
                chat: &chat,
            };
            let mut answer = answerer
                .answer_owned(request)
                .map_err(|e| SimulateError::Predict(e.to_string()))?;
            // An answer without calls ends the turn (an empty one too).
            if answer.calls.is_empty() {
                let metadata = turn_request::text_metadata(&answer);
                break Some(Answer {
                    metadata,
                    text: answer.text,
                });
            }
            // Each call is moved into the world that runs it.
            for call in std::mem::take(&mut answer.calls) {
                if calls.len() >= max_calls {
                    break 'turn None;
                }
                let written = injected.and_then(|name| call.arguments.as_ref()?.get(name));
                let written = written.cloned();
                let metadata = turn_request::call_metadata(&call, &answer);
                let call = execute(world, call, metadata);
                world_set.push(injected.is_some_and(|name| {
                    call.parsed && call.arguments.get(name) != written.as_ref()
                }));
                calls.push(call);
            }
        };
    let stopped_by_bound = answer.is_none();
    let run = TurnRun {
        turn,
        calls,
        answer,
        stopped_by_bound,
    };
    Ok((run, world_set))
}

/// Run one call with `metadata` kept beside it; unreadable arguments fail
/// without touching the world.
pub fn execute(world: &mut dyn World, call: Call, metadata: Option<Value>) -> PredictedCall {
    let Some(parameters) = call.arguments else {
        return PredictedCall {
            api_name: call.name,
            arguments: Map::new(),
            response: Default::default(),
            exception: Some(PARSE_FAILURE.to_string()),
            parsed: false,
            metadata,
        };
    };
    let executed = world.execute(&call.name, parameters, None);
    PredictedCall {
        api_name: executed.request.api_name,
        arguments: executed.request.parameters,
        response: executed.response,
        exception: executed.exception,
        parsed: true,
        metadata,
    }
}

/// Algorithm 2: match `predictions` (in order) against `gold` (in order).
pub fn score<'a>(
    catalog: &Catalog,
    predictions: impl IntoIterator<Item = &'a PredictedCall>,
    gold: &[&GoldCall],
    text: &dyn TextSimilarity,
) -> Scoring {
    let mut gold_matched = vec![false; gold.len()];
    let mut flags = Vec::new();
    let (mut matches, mut actions, mut valid_actions, mut bad_actions) = (0, 0, 0, 0);
    for prediction in predictions {
        let prediction = prediction.as_call();
        // A prediction satisfies a gold call of the same tool that the
        // tool's comparator accepts (the default one for a tool outside
        // the catalog).
        let spec = catalog.tool(prediction.api_name);
        let comparator = spec.map_or(default_matches as crate::suite::MatchFn, |t| t.matches);
        let matched = (0..gold.len()).find(|&g| {
            !gold_matched[g]
                && gold[g].request.api_name == prediction.api_name
                && comparator(prediction, gold[g], text)
        });
        if let Some(g) = matched {
            gold_matched[g] = true;
        }
        let action = spec.is_some_and(|t| t.is_action);
        let bad_action = matched.is_none() && action && prediction.exception.is_none();
        matches += usize::from(matched.is_some());
        actions += usize::from(action);
        valid_actions += usize::from(action && matched.is_some());
        bad_actions += usize::from(bad_action);
        flags.push(Flags {
            matched,
            bad_action,
        });
    }
    let metrics = Metrics::from_counts(
        flags.len(),
        gold.len(),
        matches,
        actions,
        valid_actions,
        bad_actions,
    );
    Scoring {
        predictions: flags,
        gold_matched,
        metrics,
    }
}
