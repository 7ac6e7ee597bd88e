//! Algorithm 1 and 2 on hand-built conversations and prediction sets whose
//! metrics are worked out by hand below: a match, an unmatched query, a bad
//! action, a failed action, a duplicate call, an empty turn, a turn without
//! gold calls, unparseable arguments, the call bound, and the reference's
//! session-token quirk.

use std::borrow::Cow;

use serde_json::{json, Map, Value};
use talkforge::dialogue::{Conversation, GoldCall, Role};
use talkforge::eval::outcome::{classify, ErrorTypes};
use talkforge::eval::output::turn_outcomes;
use talkforge::run::answer::oracle::Oracle;
use talkforge::run::answer::{self, Answerer, Request};
use talkforge::run::replayed::{execute, score, simulate, PARSE_FAILURE};
use talkforge::run::turn_request::{self, ApiMode, TurnPrompt};
use talkforge::sim::Databases;
use talkforge::suite::predict::TurnInput;
use talkforge::suite::protocol::Metrics;
use talkforge::suite::protocol::{Answer, GoldRef, Scoring, Simulation, TurnRun};
use talkforge::suite::similarity::ExactText;
use talkforge::suite::Suite;
use talkforge::suites::tooltalk::ToolTalk;
use talkforge::suites::tooltalk::World;

const TOKEN: &str = "tok-alice";

fn databases() -> Databases {
    let tables = [
        (
            "Account",
            json!({"alice": {"username": "alice", "email": "alice@example.com",
                "phone": "555-000-1111", "name": "Alice", "password": "pw",
                "session_token": null}}),
        ),
        (
            "Alarm",
            json!({"alice": {"aaaa-bbbb": {"alarm_id": "aaaa-bbbb", "time": "08:00:00"}}}),
        ),
    ];
    Databases::from_tables(tables.into_iter().map(|(name, v)| {
        let Value::Object(t) = v else { unreachable!() };
        (name.to_string(), t)
    }))
}

fn call(api: &str, params: Value) -> Value {
    let mut p = params.as_object().cloned().unwrap_or_default();
    p.insert("session_token".into(), json!(TOKEN));
    json!({"request": {"api_name": api, "parameters": p}, "response": null, "exception": null})
}

/// A conversation whose assistant turns carry `gold` (None: no `apis` key),
/// with the gold responses filled in by the simulator.
fn conversation(id: &str, gold: Vec<Option<Vec<Value>>>) -> Conversation {
    conversation_with(
        id,
        json!({"username": "alice", "session_token": TOKEN}),
        gold,
    )
}

/// `conversation` with another `user`.
fn conversation_with(id: &str, user: Value, gold: Vec<Option<Vec<Value>>>) -> Conversation {
    let mut turns = Vec::new();
    for (i, apis) in gold.into_iter().enumerate() {
        turns.push(json!({"role": "user", "text": format!("request {i}")}));
        let mut turn = json!({"role": "assistant", "text": format!("answer {i}")});
        if let Some(apis) = apis {
            turn["apis"] = Value::Array(apis);
        }
        turns.push(turn);
    }
    let value = json!({
        "name": id, "conversation_id": id,
        "user": user,
        "metadata": {"location": "Springfield", "timestamp": "2024-05-13 09:00:00",
                     "username": "alice"},
        "conversation": turns,
    });
    let mut conversation: Conversation = serde_json::from_value(value).unwrap();
    let replay = talkforge::verify::replay(
        &talkforge::suites::tooltalk::ToolTalk,
        &databases(),
        &conversation,
        &talkforge::suite::WorldOptions::default(),
    )
    .unwrap();
    for (t, c, executed) in replay.executions {
        let gold = &mut conversation.conversation[t].apis.as_mut().unwrap()[c];
        gold.response = executed.response.into_value();
        gold.exception = executed.exception;
    }
    conversation
}

/// Answers each assistant turn (by its position) with a fixed list of
/// calls, all at once, then with text.
struct Scripted(Vec<(usize, Vec<answer::Call>)>);

fn proposed(api: &str, params: Value) -> answer::Call {
    answer::Call {
        name: api.into(),
        arguments: Some(params.as_object().cloned().unwrap_or_default()),
        ..Default::default()
    }
}

fn calls(calls: Vec<answer::Call>) -> answer::Answer {
    answer::Answer {
        calls,
        ..Default::default()
    }
}

impl Answerer for Scripted {
    fn name(&self) -> String {
        "scripted".into()
    }
    fn answer(&self, request: &Request<'_>) -> talkforge::Result<answer::Answer> {
        let planned = self
            .0
            .iter()
            .find(|(t, _)| *t == request.key.position)
            .map(|(_, c)| c.clone())
            .unwrap_or_default();
        if request.step == 0 && !planned.is_empty() {
            Ok(calls(planned))
        } else {
            Ok(answer::Answer::text("done"))
        }
    }
}

/// What a model is shown (never asked here).
fn prompt() -> TurnPrompt {
    TurnPrompt {
        catalog: ToolTalk.catalog(),
        api_mode: ApiMode::All,
        docs: true,
    }
}

/// Ask `answerer` for the next step of `input`.
fn ask(answerer: &dyn Answerer, input: &TurnInput<'_>) -> answer::Answer {
    let chat = || Ok(turn_request::chat(&prompt(), input));
    let request = Request {
        key: turn_request::key(input),
        step: input.predicted.len(),
        gold: turn_request::gold(input, ToolTalk.injected_argument()),
        chat: &chat,
    };
    answerer.answer(&request).unwrap()
}

/// Keeps asking for the same query.
struct Looping;

impl Answerer for Looping {
    fn name(&self) -> String {
        "looping".into()
    }
    fn answer(&self, _: &Request<'_>) -> talkforge::Result<answer::Answer> {
        Ok(calls(vec![proposed("FindAlarms", json!({}))]))
    }
}

fn run<'c>(
    conversation: &'c Conversation,
    predictor: &dyn Answerer,
    bound: usize,
) -> (Simulation<'c>, Scoring) {
    let simulation = simulate(
        &ToolTalk,
        &databases(),
        conversation,
        predictor,
        &prompt(),
        bound,
    )
    .unwrap();
    let gold: Vec<&GoldCall> = simulation.gold.iter().map(|g| g.gold.as_ref()).collect();
    let predictions = simulation.turns.iter().flat_map(|t| &t.calls);
    let scoring = score(ToolTalk.catalog(), predictions, &gold, &ExactText);
    (simulation, scoring)
}

fn assert_close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-12, "{a} != {b}");
}

fn assert_metrics(m: &Metrics, counts: [usize; 6], rates: [f64; 4], success: bool, soft: f64) {
    let [predictions, ground_truths, matches, actions, valid_actions, bad_actions] = counts;
    assert_eq!(
        (
            m.predictions,
            m.ground_truths,
            m.matches,
            m.actions,
            m.valid_actions,
            m.bad_actions
        ),
        (
            predictions,
            ground_truths,
            matches,
            actions,
            valid_actions,
            bad_actions
        )
    );
    assert_close(m.precision, rates[0]);
    assert_close(m.recall, rates[1]);
    assert_close(m.action_precision, rates[2]);
    assert_close(m.bad_action_rate, rates[3]);
    assert_eq!(m.success, success);
    assert_close(m.soft_success, soft);
}

/// Turn positions: assistant turn k of `conversation()` sits at 2k+1
/// (the fourth, T7, only appears in comments).
const T1: usize = 1;
const T3: usize = 3;
const T5: usize = 5;

#[test]
fn every_branch_of_algorithm_2() {
    let conversation = conversation(
        "branches",
        vec![
            Some(vec![call("FindAlarms", json!({}))]),
            Some(vec![call("AddAlarm", json!({"time": "07:00:00"}))]),
            None,
            Some(vec![call("DeleteAlarm", json!({"alarm_id": "aaaa-bbbb"}))]),
        ],
    );
    let predictor = Scripted(vec![
        (
            T1,
            vec![
                // A query whose result lacks the gold alarm: no match, not an action.
                proposed("FindAlarms", json!({"start_range": "09:00:00"})),
                // The gold query: match.
                proposed("FindAlarms", json!({})),
            ],
        ),
        (
            T3,
            vec![
                // Wrong time, runs fine: a bad action.
                proposed("AddAlarm", json!({"time": "06:00:00"})),
                // The gold action: match.
                proposed("AddAlarm", json!({"time": "07:00:00"})),
                // The same again: the gold call is taken, so a bad action.
                proposed("AddAlarm", json!({"time": "07:00:00"})),
            ],
        ),
        // A turn without gold calls: an action that fails (unknown id) is
        // not a bad action.
        (
            T5,
            vec![proposed("DeleteAlarm", json!({"alarm_id": "zzzz-zzzz"}))],
        ),
        // T7: an empty turn, the gold DeleteAlarm is missed.
    ]);
    let (simulation, scoring) = run(&conversation, &predictor, 10);

    let flags: Vec<(bool, bool)> = scoring
        .predictions
        .iter()
        .map(|f| (f.matched.is_some(), f.bad_action))
        .collect();
    assert_eq!(
        flags,
        vec![
            (false, false),
            (true, false),
            (false, true),
            (true, false),
            (false, true),
            (false, false),
        ]
    );
    assert_eq!(scoring.gold_matched, vec![true, true, false]);
    let failed = &simulation.turns[2].calls[0];
    assert_eq!(
        failed.exception.as_deref(),
        Some("Alarm zzzz-zzzz not found.")
    );
    assert!(simulation.turns[3].calls.is_empty());

    // 6 predictions, 3 gold calls, 2 matches; actions: 3 AddAlarm + 1
    // DeleteAlarm = 4, of which 1 valid and 2 bad.
    // precision 2/6, recall 2/3, action precision 1/4, bad-action rate 2/4,
    // soft success 2/3 * (1 - 1/2) = 1/3.
    assert_metrics(
        &scoring.metrics,
        [6, 3, 2, 4, 1, 2],
        [2.0 / 6.0, 2.0 / 3.0, 0.25, 0.5],
        false,
        1.0 / 3.0,
    );

    // Table 2: T1 has an unmatched FindAlarms prediction and no unmatched
    // gold call (different tools: planning); T3 two unmatched AddAlarm and
    // none missing (planning); T5 has no gold list and no bad action (no
    // premature call); T7 misses DeleteAlarm (planning).
    let turns = turn_outcomes(&simulation, &scoring);
    assert_eq!(
        classify(&turns),
        ErrorTypes {
            premature_tool_call: 0,
            faulty_planning: 3,
            incorrect_invocation: 0
        }
    );
}

#[test]
fn wrong_arguments_and_premature_calls_are_told_apart() {
    let conversation = conversation(
        "invocation",
        vec![
            Some(vec![call("AddAlarm", json!({"time": "07:00:00"}))]),
            None,
        ],
    );
    let predictor = Scripted(vec![
        // The right tool once, with the wrong time: incorrect invocation.
        (T1, vec![proposed("AddAlarm", json!({"time": "07:30:00"}))]),
        // An action where none was wanted: a premature tool call.
        (T3, vec![proposed("AddAlarm", json!({"time": "05:00:00"}))]),
    ]);
    let (simulation, scoring) = run(&conversation, &predictor, 10);
    // 2 predictions, 1 gold, 0 matches, 2 actions both bad:
    // precision 0, recall 0, action precision 0, bad-action rate 1, soft 0.
    assert_metrics(
        &scoring.metrics,
        [2, 1, 0, 2, 0, 2],
        [0.0, 0.0, 0.0, 1.0],
        false,
        0.0,
    );
    let turns = turn_outcomes(&simulation, &scoring);
    assert_eq!(
        classify(&turns),
        ErrorTypes {
            premature_tool_call: 1,
            faulty_planning: 0,
            incorrect_invocation: 1
        }
    );
}

#[test]
fn too_many_calls_of_the_right_tool_is_faulty_planning() {
    let conversation = conversation(
        "too-often",
        vec![Some(vec![call("AddAlarm", json!({"time": "07:00:00"}))])],
    );
    // Two wrong AddAlarm calls against one gold AddAlarm: the same tools,
    // but called more often than the gold turn does.
    let predictor = Scripted(vec![(
        T1,
        vec![
            proposed("AddAlarm", json!({"time": "07:30:00"})),
            proposed("AddAlarm", json!({"time": "07:45:00"})),
        ],
    )]);
    let (simulation, scoring) = run(&conversation, &predictor, 10);
    let turns = turn_outcomes(&simulation, &scoring);
    assert_eq!(classify(&turns).faulty_planning, 1);
    assert_eq!(classify(&turns).incorrect_invocation, 0);
}

#[test]
fn no_predictions_scores_zero_precision_and_full_action_precision() {
    let conversation = conversation("silent", vec![Some(vec![call("FindAlarms", json!({}))])]);
    let (_, scoring) = run(&conversation, &Scripted(vec![]), 10);
    // Nothing predicted: precision 0 (not a division by zero), recall 0,
    // action precision 1 and bad-action rate 0 (no actions).
    assert_metrics(
        &scoring.metrics,
        [0, 1, 0, 0, 0, 0],
        [0.0, 0.0, 1.0, 0.0],
        false,
        0.0,
    );
}

#[test]
fn a_conversation_without_gold_calls_has_full_recall() {
    let conversation = conversation("chat", vec![None]);
    let (_, scoring) = run(&conversation, &Scripted(vec![]), 10);
    assert_metrics(
        &scoring.metrics,
        [0, 0, 0, 0, 0, 0],
        [0.0, 1.0, 1.0, 0.0],
        true,
        1.0,
    );
}

#[test]
fn unparseable_arguments_are_a_failed_call() {
    let conversation = conversation(
        "unparseable",
        vec![Some(vec![call("FindAlarms", json!({}))])],
    );
    let broken = answer::Call {
        name: "FindAlarms".into(),
        arguments: None,
        metadata: Some(json!({"arguments": "{not json"})),
        ..Default::default()
    };
    let predictor = Scripted(vec![(T1, vec![broken, proposed("FindAlarms", json!({}))])]);
    let (simulation, scoring) = run(&conversation, &predictor, 10);
    let failed = &simulation.turns[0].calls[0];
    assert!(!failed.parsed);
    assert_eq!(failed.exception.as_deref(), Some(PARSE_FAILURE));
    assert_eq!(failed.response, Value::Null);
    assert_eq!(failed.arguments, Map::new());
    // 2 predictions, 1 match, no actions: precision 1/2, recall 1, success.
    assert_metrics(
        &scoring.metrics,
        [2, 1, 1, 0, 0, 0],
        [0.5, 1.0, 1.0, 0.0],
        true,
        1.0,
    );
}

#[test]
fn the_call_bound_stops_a_looping_turn() {
    let conversation = conversation(
        "looping",
        vec![Some(vec![call("FindAlarms", json!({}))]), None],
    );
    let (simulation, scoring) = run(&conversation, &Looping, 3);
    for turn in &simulation.turns {
        assert_eq!(turn.calls.len(), 3);
        assert!(turn.stopped_by_bound);
        assert!(turn.answer.is_none());
    }
    // 6 identical queries against 1 gold call: the first matches.
    assert_metrics(
        &scoring.metrics,
        [6, 1, 1, 0, 0, 0],
        [1.0 / 6.0, 1.0, 1.0, 0.0],
        true,
        1.0,
    );
    let turns = turn_outcomes(&simulation, &scoring);
    assert_eq!(turns.iter().filter(|t| t.stopped_by_bound).count(), 2);
}

#[test]
fn each_turn_starts_from_the_gold_history() {
    // Turn 1's gold adds an alarm; the prediction for turn 1 adds a
    // different one. Turn 3 must see the world after the *gold* call: its
    // query finds the gold alarm and not the predicted one.
    let conversation = conversation(
        "reset",
        vec![
            Some(vec![call("AddAlarm", json!({"time": "07:00:00"}))]),
            Some(vec![call("FindAlarms", json!({}))]),
        ],
    );
    let predictor = Scripted(vec![
        (T1, vec![proposed("AddAlarm", json!({"time": "06:00:00"}))]),
        (T3, vec![proposed("FindAlarms", json!({}))]),
    ]);
    let (simulation, scoring) = run(&conversation, &predictor, 10);
    let response = simulation.turns[1].calls[0].response.clone().into_value();
    let times: Vec<&str> = response["alarms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["time"].as_str().unwrap())
        .collect();
    assert_eq!(times, vec!["08:00:00", "07:00:00"]);
    assert_eq!(scoring.gold_matched, vec![false, true]);
    // The history shown for turn 3 holds the gold call, not the prediction.
    let input = TurnInput {
        conversation: &conversation,
        turn: T3,
        predicted: &[],
    };
    let calls: Vec<String> = turn_request::chat(&prompt(), &input)
        .messages
        .into_iter()
        .filter_map(|message| match message {
            answer::Message::Call { arguments, .. } => {
                let arguments: Value = serde_json::from_str(&arguments).unwrap();
                Some(arguments["time"].to_string())
            }
            _ => None,
        })
        .collect();
    assert_eq!(calls, vec!["\"07:00:00\""]);
}

#[test]
fn replayed_gold_calls_take_the_world_session_token() {
    // The reference injects the session token into the gold call's own
    // parameters when it replays it for a later turn. A stale token in a
    // replayed turn is therefore overwritten and the oracle matches; in the
    // last turn (never replayed) it stays and the oracle misses.
    let mut conversation = conversation(
        "stale-token",
        vec![
            Some(vec![call("FindAlarms", json!({}))]),
            Some(vec![call("FindAlarms", json!({}))]),
        ],
    );
    for t in [T1, T3] {
        conversation.conversation[t].apis.as_mut().unwrap()[0]
            .request
            .parameters
            .insert("session_token".into(), json!("stale"));
    }
    let (simulation, scoring) = run(&conversation, &Oracle, 10);
    assert_eq!(
        simulation.gold[0].gold.request.parameters["session_token"],
        json!(TOKEN)
    );
    assert_eq!(
        simulation.gold[1].gold.request.parameters["session_token"],
        json!("stale")
    );
    assert_eq!(scoring.gold_matched, vec![true, false]);
}

#[test]
fn the_oracle_is_perfect_on_a_consistent_conversation() {
    let conversation = conversation(
        "oracle",
        vec![
            Some(vec![call("FindAlarms", json!({}))]),
            Some(vec![
                call("AddAlarm", json!({"time": "07:00:00"})),
                call("DeleteAlarm", json!({"alarm_id": "aaaa-bbbb"})),
            ]),
            None,
        ],
    );
    let (simulation, scoring) = run(&conversation, &Oracle, 10);
    assert_metrics(
        &scoring.metrics,
        [3, 3, 3, 2, 2, 0],
        [1.0, 1.0, 1.0, 0.0],
        true,
        1.0,
    );
    let answers: Vec<&str> = simulation
        .turns
        .iter()
        .map(|t| t.answer.as_ref().unwrap().text.as_str())
        .collect();
    assert_eq!(answers, vec!["answer 0", "answer 1", "answer 2"]);
}

#[test]
fn a_turn_that_made_exactly_the_gold_calls_hands_on_the_same_world() {
    // The world a turn starts in is the one the gold replay reaches, random
    // streams included: turn 3's new alarm gets the second id of the
    // AddAlarm stream, and its query lists exactly what the gold recording
    // (made by a plain replay) lists.
    let conversation = conversation(
        "same-world",
        vec![
            Some(vec![call("AddAlarm", json!({"time": "07:00:00"}))]),
            Some(vec![
                call("AddAlarm", json!({"time": "09:00:00"})),
                call("FindAlarms", json!({})),
            ]),
        ],
    );
    let (simulation, scoring) = run(&conversation, &Oracle, 10);
    let recorded = &conversation.conversation[T3].apis.as_ref().unwrap();
    for (c, gold) in recorded.iter().enumerate() {
        let predicted = &simulation.turns[1].calls[c];
        assert_eq!(predicted.response, gold.response, "call {c}");
        assert_eq!(predicted.exception, gold.exception, "call {c}");
    }
    assert_eq!(
        recorded[1].response["alarms"].as_array().unwrap().len(),
        3,
        "the seeded alarm and both new ones"
    );
    assert_eq!(scoring.gold_matched, vec![true, true, true]);
    // The replayed gold turn keeps its parameters, token injected.
    assert_eq!(
        simulation.gold[0].gold.request.parameters,
        conversation.conversation[T1].apis.as_ref().unwrap()[0]
            .request
            .parameters
    );
}

/// Algorithm 1 as the reference runs it, which `simulate` is held to: every
/// assistant turn starts from a fresh world
/// into which every earlier gold call is replayed, and the gold calls as
/// replayed are those of the last replay (the last turn's never are).
fn simulate_from_scratch<'c>(
    databases: &Databases,
    conversation: &'c Conversation,
    predictor: &dyn Answerer,
    bound: usize,
) -> Simulation<'c> {
    let assistant_turns: Vec<usize> = (0..conversation.conversation.len())
        .filter(|&t| conversation.conversation[t].role == Role::Assistant)
        .collect();
    let mut turns = Vec::new();
    let mut gold = Vec::new();
    let mut state = Vec::new();
    for (i, &t) in assistant_turns.iter().enumerate() {
        let mut world = World::for_conversation(databases, conversation).unwrap();
        gold.clear();
        for &earlier in &assistant_turns[..i] {
            for call in conversation.conversation[earlier].calls() {
                let executed =
                    world.execute(&call.request.api_name, call.request.parameters.clone());
                let replayed = if executed.request.parameters == call.request.parameters {
                    Cow::Borrowed(call)
                } else {
                    Cow::Owned(GoldCall {
                        request: executed.request,
                        response: call.response.clone(),
                        exception: call.exception.clone(),
                        place: None,
                    })
                };
                gold.push(GoldRef {
                    turn: earlier,
                    gold: replayed,
                });
            }
        }
        // The state check, from scratch: the world before the turn, after
        // its gold calls, and after the predictions.
        let before = world.clone();
        let mut gold_after = world.clone();
        for call in conversation.conversation[t].calls() {
            gold_after.execute(&call.request.api_name, call.request.parameters.clone());
        }
        let mut run = TurnRun {
            turn: t,
            calls: Vec::new(),
            answer: None,
            stopped_by_bound: false,
        };
        'turn: loop {
            let input = TurnInput {
                conversation,
                turn: t,
                predicted: &run.calls,
            };
            let answer = ask(predictor, &input);
            if answer.calls.is_empty() {
                run.answer = Some(Answer {
                    text: answer.text,
                    metadata: None,
                });
                break;
            }
            for call in answer.calls {
                if run.calls.len() >= bound {
                    run.stopped_by_bound = true;
                    break 'turn;
                }
                run.calls.push(execute(&mut world, call, None));
            }
        }
        state.extend(talkforge::suite::state::compare(
            t,
            before.tables(),
            gold_after.tables(),
            world.tables(),
        ));
        turns.push(run);
    }
    if let Some(&last) = assistant_turns.last() {
        for call in conversation.conversation[last].calls() {
            gold.push(GoldRef {
                turn: last,
                gold: Cow::Borrowed(call),
            });
        }
    }
    Simulation {
        turns,
        gold,
        state: Some(state),
    }
}

/// The oracle on some turns; on others it answers at once, or makes every
/// gold call twice (changing the world the gold calls did not).
struct Unreliable<'c>(&'c Conversation);

impl Answerer for Unreliable<'_> {
    fn name(&self) -> String {
        "unreliable".into()
    }
    fn answer(&self, request: &Request<'_>) -> talkforge::Result<answer::Answer> {
        let turn = request.key.position;
        match (turn / 2) % 3 {
            0 => Oracle.answer(request),
            1 => Ok(answer::Answer::text("at once")),
            _ => {
                let gold = self.0.conversation[turn].calls();
                let made = request.step;
                if made >= 2 * gold.len() {
                    return Ok(answer::Answer::text("twice"));
                }
                let mut arguments = gold[made / 2].request.parameters.clone();
                arguments.remove("session_token");
                Ok(calls(vec![answer::Call {
                    name: gold[made / 2].request.api_name.clone(),
                    arguments: Some(arguments),
                    ..Default::default()
                }]))
            }
        }
    }
}

/// The oracle's calls, each also passing a session token of its own, as a
/// model that read the token in the history might: the world overwrites
/// it for a tool that needs a session and leaves it for one that does not
/// (`RegisterUser` then raises on an unexpected argument).
struct ExplicitToken;

impl Answerer for ExplicitToken {
    fn name(&self) -> String {
        "explicit-token".into()
    }
    fn answer(&self, request: &Request<'_>) -> talkforge::Result<answer::Answer> {
        let mut answer = Oracle.answer(request)?;
        for call in &mut answer.calls {
            if let Some(parameters) = &mut call.arguments {
                parameters.insert("session_token".into(), json!("not-a-real-token"));
            }
        }
        Ok(answer)
    }
}

fn assert_same_as_from_scratch(databases: &Databases, conversation: &Conversation) {
    let unreliable = Unreliable(conversation);
    let predictors: [&dyn Answerer; 5] = [
        &Oracle,
        &ExplicitToken,
        &unreliable,
        &Looping,
        &Scripted(vec![(
            T1,
            vec![proposed("AddAlarm", json!({"time": "06:00:00"}))],
        )]),
    ];
    for predictor in predictors {
        for bound in [1, 10] {
            assert_eq!(
                simulate(
                    &ToolTalk,
                    databases,
                    conversation,
                    predictor,
                    &prompt(),
                    bound
                )
                .unwrap(),
                simulate_from_scratch(databases, conversation, predictor, bound),
                "{} with {}, bound {bound}",
                conversation.name,
                predictor.name()
            );
        }
    }
}

#[test]
fn simulating_matches_replaying_every_turn_from_scratch() {
    let mut stale = conversation(
        "stale-token",
        vec![
            Some(vec![call("FindAlarms", json!({}))]),
            Some(vec![call("AddAlarm", json!({"time": "07:00:00"}))]),
            Some(vec![call("FindAlarms", json!({}))]),
        ],
    );
    stale.conversation[T1].apis.as_mut().unwrap()[0]
        .request
        .parameters
        .insert("session_token".into(), json!("stale"));
    let conversations = [
        stale,
        conversation(
            "many-turns",
            vec![
                Some(vec![call("AddAlarm", json!({"time": "07:00:00"}))]),
                None,
                Some(vec![
                    call("AddAlarm", json!({"time": "09:00:00"})),
                    call("FindAlarms", json!({})),
                ]),
                Some(vec![call("DeleteAlarm", json!({"alarm_id": "aaaa-bbbb"}))]),
                Some(vec![call("FindAlarms", json!({}))]),
                Some(vec![]),
                Some(vec![call("FindAlarms", json!({}))]),
            ],
        ),
    ];
    for conversation in &conversations {
        assert_same_as_from_scratch(&databases(), conversation);
    }
}

/// A conversation that starts with no one logged in and registers alice's
/// colleague in its first assistant turn.
fn registering_conversation() -> Conversation {
    conversation_with(
        "registers",
        json!({}),
        vec![
            Some(vec![
                json!({"request": {"api_name": "RegisterUser", "parameters": {
                "username": "bob", "password": "pw2", "email": "bob@example.com"}},
                "response": null, "exception": null}),
            ]),
            // No token written: the world puts bob's in.
            Some(vec![json!({"request": {"api_name": "AddAlarm",
                "parameters": {"time": "07:00:00"}}, "response": null, "exception": null})]),
        ],
    )
}

/// A prediction that raises leaves the next turn's world alone: the
/// reference rebuilds it from the gold calls, so the gold registration's
/// session holds at turn 3 whatever the model did at turn 1. (A model's
/// own `session_token` on `RegisterUser` once made the failed turn pass
/// for the gold one.)
#[test]
fn a_token_the_model_writes_itself_does_not_pass_for_the_gold_call() {
    let conversation = registering_conversation();
    let (simulation, scoring) = run(&conversation, &ExplicitToken, 10);
    let register = &simulation.turns[0].calls[0];
    assert!(
        register
            .exception
            .as_deref()
            .is_some_and(|e| e.contains("session_token")),
        "{register:?}"
    );
    let alarm = &simulation.turns[1].calls[0];
    assert_eq!(alarm.exception, None, "{alarm:?}");
    assert_ne!(alarm.arguments["session_token"], json!("not-a-real-token"));
    assert_eq!(scoring.gold_matched, vec![false, true]);
    assert_same_as_from_scratch(&databases(), &conversation);
}

#[test]
fn simulating_upstream_matches_replaying_every_turn_from_scratch() {
    let Some(dir) = talkforge::test_support::upstream("tooltalk") else {
        return;
    };
    let databases = Databases::load(&dir.join("databases")).unwrap();
    let files =
        talkforge::formats::discover(&[dir.join("easy"), dir.join("tooltalk")], &["json"]).unwrap();
    assert!(!files.is_empty());
    for file in &files {
        let conversation: Conversation =
            serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        assert_same_as_from_scratch(&databases, &conversation);
    }
}

/// Proposes no call at all.
struct Silent;

impl Answerer for Silent {
    fn name(&self) -> String {
        "silent".into()
    }

    fn answer(&self, _: &Request<'_>) -> talkforge::Result<answer::Answer> {
        Ok(calls(Vec::new()))
    }
}

/// An empty list of calls ends the turn with an empty answer: no call
/// runs and the bound is not what stopped it.
#[test]
fn an_empty_proposal_ends_the_turn_with_an_empty_answer() {
    let conversation = conversation(
        "silent",
        vec![Some(vec![call(
            "FindAlarms",
            json!({"session_token": TOKEN}),
        )])],
    );
    let (simulation, scoring) = run(&conversation, &Silent, 10);
    assert_eq!(simulation.turns.len(), 1);
    let turn = &simulation.turns[0];
    assert!(turn.calls.is_empty());
    assert!(!turn.stopped_by_bound);
    let answer = turn.answer.as_ref().expect("an answer");
    assert_eq!(answer.text, "");
    assert_eq!(answer.metadata, None);
    assert_eq!(scoring.metrics.predictions, 0);
    assert_eq!(scoring.metrics.matches, 0);
}
