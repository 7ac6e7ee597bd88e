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

use serde_json::Value;

use super::matching::{matches, GoldRun, Rule};
use super::{dialogue, Scenario};
use crate::dialogue::{GoldCall, Request};
use crate::run::conversation::{converse, Assistant, Bounds, Reading, Task, User};
use crate::run::with_user::outcome::{failed, CallAt, GoldAt, ScenarioOutcome};
use crate::suite::interactive::ConversationOptions;
use crate::suite::{Execution, Suite, World};
use crate::suites::apibank::call_text::{parse_api_request, ParseFailure};
use crate::suites::apibank::ApiBank;

/// One conversation, from the first utterance to completion or a stop.
pub fn run_scenario(
    file: &str,
    scenario: &Scenario,
    assistant: &mut Assistant<'_>,
    user: &mut dyn User,
    options: &ConversationOptions<'_>,
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
    let mut task = ScenarioTask {
        scenario,
        options,
        conversation: &conversation,
        gold: &gold,
        made: vec![None; gold.len()],
        results: vec![None; gold.len()],
    };
    let bounds = Bounds {
        max_turns: options.max_turns,
        max_calls_per_turn: options.max_calls_per_turn,
    };
    let talk = converse(
        options.databases,
        world.as_mut(),
        &mut task,
        assistant,
        user,
        bounds,
    );
    let gold: Vec<GoldAt> = scenario
        .ground_truth
        .iter()
        .map(|g| GoldAt {
            line: g.line,
            api_name: g.api_name.clone(),
        })
        .collect();
    ScenarioOutcome::of(file, scenario, talk, &gold, &task.made, raising)
}

/// A scenario as the conversation's task: the ground-truth calls made so
/// far (the turn and the rule of each, and the result of the call that
/// made it).
struct ScenarioTask<'a> {
    scenario: &'a Scenario,
    options: &'a ConversationOptions<'a>,
    conversation: &'a crate::dialogue::Conversation,
    gold: &'a [GoldRun],
    made: Vec<Option<(usize, Rule)>>,
    results: Vec<Option<Value>>,
}

impl Task for ScenarioTask<'_> {
    fn first_utterance(&self) -> &str {
        &self.scenario.first_utterance
    }

    /// A call in the paper's text form; one that does not read is a
    /// failed call when it is bracketed or names an API, prose otherwise.
    fn read(&self, text: &str) -> Reading {
        match parse_api_request(text) {
            Ok(request) => Reading::Call {
                api_name: request.api_name,
                arguments: request.param_dict,
            },
            Err(failure) if attempted_call(&failure, text) => {
                Reading::Unreadable(failure.to_string())
            }
            Err(_) => Reading::Speech,
        }
    }

    /// The first ground-truth call not made yet that the call is, if any,
    /// is made.
    fn record(&mut self, executed: &Execution, turn: usize) {
        let result = executed.response.clone().into_value();
        let request = &executed.request;
        let found = (0..self.gold.len())
            .filter(|&i| self.made[i].is_none())
            .find_map(|i| {
                let rule = matches(
                    &request.api_name,
                    &request.parameters,
                    &result,
                    &self.gold[i],
                )?;
                Some((i, rule))
            });
        if let Some((i, rule)) = found {
            self.made[i] = Some((turn, rule));
            self.results[i] = Some(result);
        }
    }

    fn result_text(&self, executed: &Execution) -> String {
        match &executed.exception {
            Some(exception) => format!("Exception: {exception}"),
            None => executed
                .response
                .clone()
                .into_value()
                .get("output")
                .map_or_else(|| "null".to_string(), Value::to_string),
        }
    }

    fn progress(&self) -> (usize, usize) {
        (self.made.iter().flatten().count(), self.made.len())
    }

    /// Fresh databases after the ground-truth calls, each run with the
    /// result of the assistant's call that made it as its recording, so
    /// that what it draws at random is what that call drew.
    fn gold_world(&self) -> Option<Box<dyn World>> {
        let options = self.options;
        let mut gold = ApiBank
            .world(options.databases, self.conversation, options.world)
            .ok()?;
        for (call, result) in self.scenario.ground_truth.iter().zip(&self.results) {
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
        Some(gold)
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::answer::{Answer, Answerer, Request};
    use crate::run::conversation::{Message, Speaker, Turn};
    use crate::run::with_user::outcome::Stop;
    use crate::sim::Databases;
    use crate::suite::state::StateCheck;
    use crate::suite::state::WriteKind;
    use crate::suite::WorldOptions;

    /// Says its lines in order, then only "Done." (a call already made
    /// twice is not made again).
    struct Scripted(Vec<&'static str>);

    impl Answerer for Scripted {
        fn name(&self) -> String {
            "scripted".into()
        }
        fn answer(&self, request: &Request<'_>) -> crate::Result<Answer> {
            let said = self.0.get(request.key.position).unwrap_or(&"Done.");
            Ok(Answer::text(*said))
        }
    }

    /// The assistant `lines` script.
    fn scripted(lines: &Scripted) -> Assistant<'_> {
        Assistant::new(lines, String::new(), String::new(), Vec::new())
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
        let options = ConversationOptions {
            databases: &databases,
            world: &WorldOptions::default(),
            max_turns,
            max_calls_per_turn: 5,
        };
        run_scenario(
            "Alarm.txt",
            &scenario,
            &mut scripted(&Scripted(assistant)),
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
        let options = ConversationOptions {
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
                &mut scripted(&Scripted(vec![said])),
                &mut user,
                &options,
            );
            assert!(outcome.completed, "{outcome:?}");
            assert_eq!(outcome.state_check, Some(StateCheck::default()), "{call}");
        }
    }
}
