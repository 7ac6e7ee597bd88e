//! A level-3 conversation and its score.
//!
//! The user opens with the scenario's first utterance. The assistant then
//! answers: while its message holds a call (read by `call_text`; a call
//! that does not read is answered as a failed call when it is bracketed
//! or names an API, and is prose otherwise), the call
//! runs in the scenario's world (fresh databases, ToolSearcher with the
//! run's retriever) and the result goes back to it, up to
//! `max_calls_per_turn` calls; its first message that is no call goes to
//! the user, who answers in turn. A turn is one user message and
//! everything the assistant does until it speaks to the user again.
//!
//! The scenario is complete as soon as every ground-truth call has been
//! made ([`super::matching`]: equal arguments, or the reference's own
//! check of the API accepts it), in any order; its
//! score is the number of turns that took (the paper's Table 4, "the
//! minimal number of turns between the user and the model"). A scenario
//! still incomplete after `max_turns` turns, or whose user leaves, is not
//! complete. The run's `mean_turns` is the mean over completed scenarios.
//!
//! Beside the score, and changing nothing of it, the state check
//! ([`crate::suite::state`]): when the conversation ends, the databases
//! the assistant's calls left are compared with those the ground-truth
//! calls leave when run in order on fresh databases. A ground-truth call
//! that draws unseeded randomness (an appointment id) takes the value the
//! assistant's matching call drew, so that the same booking reads the same.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::assistant::Assistant;
use super::matching::{matches, GoldRun, Rule};
use super::user::{Turn, User};
use super::{dialogue, Scenario};
use crate::dialogue::{GoldCall, Request};
use crate::sim::Databases;
use crate::suite::state::{compare_documents, StateCheck};
use crate::suite::{Suite, World, WorldOptions};
use crate::suites::apibank::call_text::{parse_api_request, ParseFailure};
use crate::suites::apibank::ApiBank;

/// Who a message of the conversation is from (and to).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    /// The user, to the assistant.
    User,
    /// The assistant, to the user.
    Assistant,
    /// The assistant, calling an API.
    Call,
    /// An API's result, to the assistant.
    Api,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub from: Speaker,
    pub text: String,
}

/// How a run goes, beyond its scenarios and players.
#[derive(Debug, Clone)]
pub struct Level3Options<'a> {
    pub databases: &'a Databases,
    pub world: &'a WorldOptions,
    /// A scenario still incomplete after this many turns is not complete.
    pub max_turns: usize,
    /// Calls the assistant may make in one turn before it must answer
    /// the user (the turn ends there).
    pub max_calls_per_turn: usize,
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

/// A ground-truth call not made, or one that raises as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallAt {
    /// The 1-based line of the scenario file it is written on.
    pub line: usize,
    pub api_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
}

/// One scenario's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioOutcome {
    pub file: String,
    pub scenario: String,
    pub scene: String,
    pub completed: bool,
    /// Turns to completion (None when not complete).
    pub turns: Option<usize>,
    /// Turns held, complete or not.
    pub turns_taken: usize,
    pub stopped: Stop,
    pub ground_truth: usize,
    /// Ground-truth calls made ([`super::matching`]).
    pub ground_truth_made: usize,
    /// Each ground-truth call made, in the order of the scenario.
    pub made: Vec<MadeAt>,
    /// Calls the assistant made (ToolSearcher included).
    pub calls: usize,
    pub missing: Vec<CallAt>,
    /// Ground-truth calls that raise when run as written, in order from
    /// fresh databases (a scenario can still be completed by making them).
    pub ground_truth_raising: Vec<CallAt>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The databases the conversation left against those the ground-truth
    /// calls leave (absent for a conversation that could not run, or one
    /// kept by a version without the check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_check: Option<StateCheck>,
    /// The models the server said played the assistant and the user
    /// (absent for the oracle and a person).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assistant_models: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_models: Vec<String>,
    /// Whether the user was asked for a turn (not when the assistant
    /// finished on the first utterance): a run names a user model only
    /// if one was asked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub user_asked: bool,
    /// Taken from `--out` as an earlier run with the same settings left
    /// it (never kept in the transcript file itself).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resumed: bool,
    pub transcript: Vec<Message>,
}

/// A ground-truth call the assistant made: when, and by which rule it
/// matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MadeAt {
    /// The 1-based line of the scenario file it is written on.
    pub line: usize,
    pub api_name: String,
    /// The turn it was made in.
    pub turn: usize,
    pub by: Rule,
}

/// The outcome of a conversation that could not start.
pub fn failed(file: &str, scenario: &Scenario, error: String) -> ScenarioOutcome {
    ScenarioOutcome {
        file: file.to_string(),
        scenario: scenario.name.clone(),
        scene: scenario.scene.clone(),
        completed: false,
        turns: None,
        turns_taken: 0,
        stopped: Stop::Error,
        ground_truth: scenario.ground_truth.len(),
        ground_truth_made: 0,
        made: Vec::new(),
        calls: 0,
        missing: Vec::new(),
        ground_truth_raising: Vec::new(),
        error: Some(error),
        state_check: None,
        assistant_models: Vec::new(),
        user_models: Vec::new(),
        user_asked: false,
        resumed: false,
        transcript: Vec::new(),
    }
}

/// One conversation, from the first utterance to completion or a stop.
pub fn run_scenario(
    file: &str,
    scenario: &Scenario,
    assistant: &mut dyn Assistant,
    user: &mut dyn User,
    options: &Level3Options<'_>,
) -> ScenarioOutcome {
    let conversation = dialogue::conversation(scenario);
    let world = |what: &str| {
        ApiBank
            .world(options.databases, &conversation, options.world)
            .map_err(|e| format!("{what}: {e}"))
    };
    let (mut world, mut gold_world) = match (world("the world"), world("the world")) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return failed(file, scenario, e),
    };
    // The ground truth as the world runs it, in order from fresh
    // databases: the arguments after conversion, and what raises.
    let mut gold = Vec::new();
    let mut raising = Vec::new();
    for call in &scenario.ground_truth {
        let executed = gold_world.execute(&call.api_name, call.param_dict.clone(), None);
        if let Some(exception) = executed.exception {
            raising.push(CallAt {
                line: call.line,
                api_name: call.api_name.clone(),
                exception: Some(exception),
            });
        }
        gold.push(GoldRun {
            api_name: call.api_name.clone(),
            arguments: executed.request.parameters,
            result: executed.response.into_value(),
        });
    }
    let mut tally = Tally {
        gold: &gold,
        made: vec![None; gold.len()],
        results: vec![None; gold.len()],
        calls: 0,
    };
    let mut transcript = vec![Message {
        from: Speaker::User,
        text: scenario.first_utterance.clone(),
    }];
    let mut turns = 1;
    let mut user_asked = false;
    let stop = loop {
        match assistant_turn(
            world.as_mut(),
            assistant,
            &mut transcript,
            &mut tally,
            turns,
            options.max_calls_per_turn,
        ) {
            Err(e) => break (Stop::Error, Some(e)),
            Ok(()) if tally.complete() => break (Stop::Completed, None),
            Ok(()) => {}
        }
        if turns >= options.max_turns {
            break (Stop::MaxTurns, None);
        }
        let progress = (tally.made.iter().flatten().count(), tally.made.len());
        user_asked = true;
        match user.reply(&transcript, progress) {
            Err(e) => break (Stop::Error, Some(e)),
            Ok(Turn::Leaves) => break (Stop::UserLeft, None),
            Ok(Turn::Says(text)) => {
                transcript.push(Message {
                    from: Speaker::User,
                    text,
                });
                turns += 1;
            }
        }
    };
    let completed = stop.0 == Stop::Completed;
    let state_check = state_check(scenario, options, &tally.results, world.as_ref(), turns);
    let (made, calls) = (tally.made, tally.calls);
    ScenarioOutcome {
        file: file.to_string(),
        scenario: scenario.name.clone(),
        scene: scenario.scene.clone(),
        completed,
        turns: completed.then_some(turns),
        turns_taken: turns,
        stopped: stop.0,
        ground_truth: scenario.ground_truth.len(),
        ground_truth_made: made.iter().flatten().count(),
        made: scenario
            .ground_truth
            .iter()
            .zip(&made)
            .filter_map(|(g, made)| {
                let (turn, by) = (*made)?;
                Some(MadeAt {
                    line: g.line,
                    api_name: g.api_name.clone(),
                    turn,
                    by,
                })
            })
            .collect(),
        calls,
        missing: scenario
            .ground_truth
            .iter()
            .zip(&made)
            .filter(|(_, made)| made.is_none())
            .map(|(g, _)| CallAt {
                line: g.line,
                api_name: g.api_name.clone(),
                exception: None,
            })
            .collect(),
        ground_truth_raising: raising,
        error: stop.1,
        state_check,
        assistant_models: Vec::new(),
        user_models: Vec::new(),
        user_asked,
        resumed: false,
        transcript,
    }
}

/// The state check after the conversation's last turn `turn`: the
/// databases `world` holds against a fresh world's after the ground-truth
/// calls, each run with the result of the assistant's call that made it
/// (`made`) as its recording, so that what it draws at random is what that
/// call drew. None when no fresh world can be made (the conversation's
/// world was made the same way, so it cannot happen once one ran).
fn state_check(
    scenario: &Scenario,
    options: &Level3Options<'_>,
    made: &[Option<Value>],
    world: &dyn World,
    turn: usize,
) -> Option<StateCheck> {
    let conversation = dialogue::conversation(scenario);
    let mut gold = ApiBank
        .world(options.databases, &conversation, options.world)
        .ok()?;
    for (call, result) in scenario.ground_truth.iter().zip(made) {
        // The drawn values only: the call runs with its own arguments.
        let recording = result.as_ref().map(|result| {
            let mut response = result.clone();
            if let Some(object) = response.as_object_mut() {
                object.remove("input");
            }
            GoldCall {
                request: Request {
                    api_name: call.api_name.clone(),
                    parameters: call.param_dict.clone(),
                },
                response,
                exception: None,
                place: None,
            }
        });
        gold.execute(&call.api_name, call.param_dict.clone(), recording.as_ref());
    }
    Some(StateCheck::new(compare_documents(
        turn,
        options.databases,
        &gold.databases(),
        &world.databases(),
    )))
}

/// The ground-truth calls made so far (the turn and the rule of each, and
/// the result of the call that made it), and how many calls the assistant
/// made.
struct Tally<'g> {
    gold: &'g [GoldRun],
    made: Vec<Option<(usize, Rule)>>,
    results: Vec<Option<Value>>,
    calls: usize,
}

impl Tally<'_> {
    fn complete(&self) -> bool {
        self.made.iter().all(Option::is_some)
    }

    /// Count a call the assistant made in `turn`: the first ground-truth
    /// call not made yet that it is, if any, is made.
    fn record(
        &mut self,
        api_name: &str,
        arguments: &Map<String, Value>,
        result: &Value,
        turn: usize,
    ) {
        self.calls += 1;
        let found = (0..self.gold.len())
            .filter(|&i| self.made[i].is_none())
            .find_map(|i| Some((i, matches(api_name, arguments, result, &self.gold[i])?)));
        if let Some((i, rule)) = found {
            self.made[i] = Some((turn, rule));
            self.results[i] = Some(result.clone());
        }
    }
}

/// The assistant's side of one turn: calls until it speaks to the user
/// (or makes its last allowed call, or every ground-truth call is made).
fn assistant_turn(
    world: &mut dyn World,
    assistant: &mut dyn Assistant,
    transcript: &mut Vec<Message>,
    tally: &mut Tally<'_>,
    turn: usize,
    max_calls: usize,
) -> Result<(), String> {
    for _ in 0..max_calls {
        let text = assistant.reply(transcript)?;
        let result = match parse_api_request(&text) {
            Err(failure) if !attempted_call(&failure, &text) => {
                transcript.push(Message {
                    from: Speaker::Assistant,
                    text,
                });
                return Ok(());
            }
            Err(failure) => {
                tally.calls += 1;
                format!("Exception: cannot read the call: {failure}")
            }
            Ok(request) => {
                let executed = world.execute(&request.api_name, request.param_dict, None);
                let result = executed.response.into_value();
                tally.record(
                    &request.api_name,
                    &executed.request.parameters,
                    &result,
                    turn,
                );
                api_text(&result, executed.exception)
            }
        };
        transcript.push(Message {
            from: Speaker::Call,
            text,
        });
        transcript.push(Message {
            from: Speaker::Api,
            text: result,
        });
        if tally.complete() {
            return Ok(());
        }
    }
    Ok(())
}

/// Whether a message that holds no readable call still tried to make one
/// (a bracketed call, or one to an API of the catalog, that does not
/// read), rather than speak to the user: words in parentheses after a
/// capitalised word ("the Sales Review (09:00)") are prose.
fn attempted_call(failure: &ParseFailure, text: &str) -> bool {
    let api_name = match failure {
        ParseFailure::NoCall => return false,
        ParseFailure::Unclosed { api_name } | ParseFailure::BadArgument { api_name, .. } => {
            api_name
        }
    };
    crate::suites::apibank::catalog().tool(api_name).is_some()
        || text.contains(&format!("[{api_name}("))
}

/// What the assistant is told a call returned: its exception, or its
/// output as JSON.
fn api_text(result: &Value, exception: Option<String>) -> String {
    match exception {
        Some(exception) => format!("Exception: {exception}"),
        None => result
            .get("output")
            .map_or_else(|| "null".to_string(), Value::to_string),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;
    use crate::suite::state::WriteKind;

    /// Says its lines in order, then only "Done." (a call already made
    /// twice is not made again).
    struct Scripted(VecDeque<&'static str>);

    impl Assistant for Scripted {
        fn name(&self) -> String {
            "scripted".into()
        }
        fn reply(&mut self, _: &[Message]) -> Result<String, String> {
            Ok(self.0.pop_front().unwrap_or("Done.").to_string())
        }
    }

    /// Answers every question with the same words, `leave_after` times.
    struct Answers {
        text: &'static str,
        leave_after: usize,
        heard: Vec<String>,
    }

    impl User for Answers {
        fn name(&self) -> String {
            "answers".into()
        }
        fn reply(&mut self, transcript: &[Message], _: (usize, usize)) -> Result<Turn, String> {
            self.heard.push(transcript.last().unwrap().text.clone());
            if self.heard.len() > self.leave_after {
                return Ok(Turn::Leaves);
            }
            Ok(Turn::Says(self.text.into()))
        }
    }

    fn databases() -> Databases {
        let dir = tempfile::tempdir().unwrap();
        let (name, accounts) = crate::suites::apibank::apis::testing::accounts();
        std::fs::write(
            dir.path().join(format!("{name}.json")),
            accounts.to_string(),
        )
        .unwrap();
        std::fs::write(dir.path().join("Alarm.json"), "{}").unwrap();
        ApiBank.load_databases(dir.path()).unwrap()
    }

    const SHEET: &str = "Scene: Alarm\nFirst Utterance: Set an alarm for me.\nKey Info:\nusername JohnDoe, password pass123, alarm 2023-04-01 07:00:00\nAPI Calls:\nGetUserToken(username=\"JohnDoe\", password=\"pass123\")\nAddAlarm(token=\"t-john\", time=\"2023-04-01 07:00:00\")\n";

    fn run(assistant: Vec<&'static str>, user: &mut Answers, max_turns: usize) -> ScenarioOutcome {
        let scenario =
            super::super::sheet::parse(std::path::Path::new("Alarm.txt"), SHEET).unwrap();
        let databases = databases();
        let options = Level3Options {
            databases: &databases,
            world: &WorldOptions::default(),
            max_turns,
            max_calls_per_turn: 5,
        };
        run_scenario(
            "Alarm.txt",
            &scenario,
            &mut Scripted(assistant.into()),
            user,
            &options,
        )
    }

    #[test]
    fn a_scenario_completes_at_the_turn_its_last_ground_truth_call_is_made() {
        let mut user = Answers {
            text: "JohnDoe, pass123, 7am on 2023-04-01",
            leave_after: 5,
            heard: Vec::new(),
        };
        let outcome = run(
            vec![
                "[ToolSearcher(keywords='set an alarm')]",
                "Sure. What are your username, password and the alarm time?",
                "[GetUserToken(username='JohnDoe', password='pass123')]",
                // Not the ground truth: another time.
                "[AddAlarm(token='t-john', time='2023-04-01 08:00:00')]",
                "[AddAlarm(token=\"t-john\", time=\"2023-04-01 07:00:00\")]",
            ],
            &mut user,
            10,
        );
        assert_eq!(outcome.stopped, Stop::Completed);
        assert!(outcome.completed);
        assert_eq!((outcome.turns, outcome.turns_taken), (Some(2), 2));
        assert_eq!((outcome.calls, outcome.ground_truth_made), (4, 2));
        let made: Vec<(usize, usize, Rule)> = outcome
            .made
            .iter()
            .map(|m| (m.line, m.turn, m.by))
            .collect();
        assert_eq!(
            made,
            [(6, 2, Rule::EqualArguments), (7, 2, Rule::EqualArguments)]
        );
        assert!(outcome.missing.is_empty() && outcome.ground_truth_raising.is_empty());
        // The user heard the question only, never a call or a result.
        assert_eq!(
            user.heard,
            ["Sure. What are your username, password and the alarm time?"]
        );
        let froms: Vec<Speaker> = outcome.transcript.iter().map(|m| m.from).collect();
        use Speaker::*;
        assert_eq!(
            froms,
            [User, Call, Api, Assistant, User, Call, Api, Call, Api, Call, Api]
        );
        // Results go back as the API gave them.
        assert_eq!(outcome.transcript[6].text, "{\"token\":\"t-john\"}");
    }

    #[test]
    fn an_assistant_that_never_finishes_stops_at_the_turn_cap_or_when_the_user_leaves() {
        let mut user = Answers {
            text: "JohnDoe",
            leave_after: 10,
            heard: Vec::new(),
        };
        let outcome = run(
            vec!["[GetUserToken(username='JohnDoe', password='pass123')]"],
            &mut user,
            3,
        );
        assert_eq!(
            (outcome.stopped, outcome.turns, outcome.turns_taken),
            (Stop::MaxTurns, None, 3)
        );
        assert_eq!(outcome.ground_truth_made, 1);
        assert_eq!(outcome.missing.len(), 1);
        assert_eq!(outcome.missing[0].api_name, "AddAlarm");
        assert_eq!(outcome.missing[0].line, 7);
        let mut leaving = Answers {
            text: "JohnDoe",
            leave_after: 1,
            heard: Vec::new(),
        };
        let outcome = run(vec![], &mut leaving, 10);
        assert_eq!((outcome.stopped, outcome.turns_taken), (Stop::UserLeft, 2));
        // Prose with words in parentheses goes to the user.
        let mut user = Answers {
            text: "ok",
            leave_after: 0,
            heard: Vec::new(),
        };
        let outcome = run(
            vec!["Your Sales Review (2023-04-15 09:00) is booked."],
            &mut user,
            10,
        );
        assert_eq!(outcome.calls, 0);
        assert_eq!(
            user.heard,
            ["Your Sales Review (2023-04-15 09:00) is booked."]
        );
        // A call that cannot be read is answered as a failed call.
        let mut user = Answers {
            text: "ok",
            leave_after: 0,
            heard: Vec::new(),
        };
        let outcome = run(vec!["[AddAlarm(token='t-john'"], &mut user, 10);
        assert_eq!(outcome.calls, 1);
        assert!(outcome.transcript[2]
            .text
            .starts_with("Exception: cannot read the call"));
    }

    #[test]
    fn the_state_check_compares_the_databases_and_takes_draws_from_the_matching_call() {
        let mut user = Answers {
            text: "ok",
            leave_after: 0,
            heard: Vec::new(),
        };
        // Completed, as the ground truth: the worlds end alike.
        let outcome = run(
            vec![
                "[GetUserToken(username='JohnDoe', password='pass123')]",
                "[AddAlarm(token='t-john', time='2023-04-01 07:00:00')]",
            ],
            &mut user,
            1,
        );
        assert!(outcome.completed);
        assert_eq!(outcome.state_check, Some(StateCheck::default()));
        // Another alarm first: the ground truth's lands on the next id.
        let outcome = run(
            vec![
                "[AddAlarm(token='t-john', time='2023-04-01 08:00:00')]",
                "[GetUserToken(username='JohnDoe', password='pass123')]",
                "[AddAlarm(token='t-john', time='2023-04-01 07:00:00')]",
            ],
            &mut user,
            1,
        );
        assert_eq!(outcome.turns, Some(1), "completion is unchanged");
        let check = outcome.state_check.unwrap();
        let places: Vec<(WriteKind, &str, &str, Option<&str>)> = check
            .writes
            .iter()
            .map(|w| {
                (
                    w.kind,
                    w.database.as_str(),
                    w.record.as_str(),
                    w.item.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            places,
            [
                (WriteKind::Different, "Alarm", "1", Some("time")),
                (WriteKind::Collateral, "Alarm", "2", None)
            ]
        );
        assert!(check.writes.iter().all(|w| w.turn == 1));
        // An appointment's id and a new account's token are drawn at
        // random: the ground truth's take those the assistant's matching
        // call drew.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Appointments.json"), "{}").unwrap();
        std::fs::write(dir.path().join("Account.json"), "{}").unwrap();
        let databases = ApiBank.load_databases(dir.path()).unwrap();
        let options = Level3Options {
            databases: &databases,
            world: &WorldOptions::default(),
            max_turns: 1,
            max_calls_per_turn: 5,
        };
        for (call, said) in [
            (
                "AppointmentRegistration(patient_name=\"John\", date=\"2023-04-01\", doctor_name=\"Dr. Zhang\")",
                "[AppointmentRegistration(patient_name='John', date='2023-04-01', doctor_name='Dr. Zhang')]",
            ),
            (
                "RegisterUser(username=\"ann\", password=\"pw\", email=\"ann@example.com\")",
                "[RegisterUser(username='ann', password='pw', email='ann@example.com')]",
            ),
        ] {
            let sheet = format!(
                "Scene: Drawn\nFirst Utterance: Do it.\nKey Info:\nall of it\nAPI Calls:\n{call}\n"
            );
            let scenario =
                super::super::sheet::parse(std::path::Path::new("Drawn.txt"), &sheet).unwrap();
            let outcome = run_scenario(
                "Drawn.txt",
                &scenario,
                &mut Scripted(vec![said].into()),
                &mut user,
                &options,
            );
            assert!(outcome.completed, "{outcome:?}");
            assert_eq!(outcome.state_check, Some(StateCheck::default()), "{call}");
        }
    }
}
