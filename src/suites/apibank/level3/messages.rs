//! A level-3 conversation's messages as API-Bank writes them.
//!
//! The assistant's message is a call when it reads as one in the paper's
//! text form (`call_text`); a call that does not read is answered as a
//! failed call when it is bracketed or names an API, and is prose for the
//! user otherwise. A call's result goes back to it as the API's `output`
//! (or `Exception: ...`).
//!
//! The conversation (`run::conversation`) is complete as soon as every
//! ground-truth call has been made ([`super::matching`]: equal arguments,
//! or the reference's own check of the API accepts it), in any order; its
//! score is the number of turns that took (the paper's Table 4, "the
//! minimal number of turns between the user and the model"). A scenario
//! still incomplete after `max_turns` turns, or whose user leaves, is not
//! complete. The run's `mean_turns` is the mean over completed scenarios.
//! Beside the score, and changing nothing of it, the state check compares
//! the databases the assistant's calls left with those the ground-truth
//! calls leave when run in order on fresh databases; a ground-truth call
//! that draws unseeded randomness (an appointment id) takes the value the
//! assistant's matching call drew, so that the same booking reads the same.

use serde_json::Value;

use crate::suite::interactive::Reading;
use crate::suite::Execution;
use crate::suites::apibank::call_text::{parse_api_request, ParseFailure};

/// A call in the paper's text form; one that does not read is a failed
/// call when it is bracketed or names an API, prose otherwise.
pub fn read(text: &str) -> Reading {
    match parse_api_request(text) {
        Ok(request) => Reading::Call {
            api_name: request.api_name,
            arguments: request.param_dict,
        },
        Err(failure) if attempted_call(&failure, text) => Reading::Unreadable(failure.to_string()),
        Err(_) => Reading::Speech,
    }
}

/// What the assistant is told a call returned: the API's output, or its
/// exception.
pub fn result_text(executed: &Execution) -> String {
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
    use crate::run::answer::{Answer, Answerer, Request};
    use crate::run::conversation::{converse, Bounds, Message, Speaker, Turn, User};
    use crate::run::with_user::outcome::{ScenarioOutcome, Stop};
    use crate::sim::Databases;
    use crate::suite::interactive::{Interactive, Rule};
    use crate::suite::state::StateCheck;
    use crate::suite::state::WriteKind;
    use crate::suite::{Suite, WorldOptions};
    use crate::suites::apibank::level3::Level3;
    use crate::suites::apibank::ApiBank;

    /// The conversation of the scenario `sheet` (in file `name`) over
    /// `databases`, as `evaluate --level 3` holds it.
    fn run_scenario(
        name: &str,
        sheet: &str,
        assistant: &Scripted,
        user: &mut dyn User,
        databases: &Databases,
        max_turns: usize,
    ) -> ScenarioOutcome {
        let scenario = Level3
            .read(std::path::Path::new(name), sheet, databases)
            .unwrap();
        let world = ApiBank
            .world(databases, &scenario.dialogue, &WorldOptions::default())
            .unwrap();
        let bounds = Bounds {
            max_turns,
            max_calls_per_turn: 5,
        };
        converse(
            &Level3,
            (name, &scenario),
            (world.as_ref(), databases),
            assistant,
            user,
            bounds,
        )
    }

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

    /// Answers every question with the same words, `leave_after` times.
    struct Answers {
        text: &'static str,
        leave_after: usize,
        heard: Vec<String>,
    }

    impl User for Answers {
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
        let assistant = Scripted(assistant);
        run_scenario(
            "Alarm.txt",
            SHEET,
            &assistant,
            user,
            &databases(),
            max_turns,
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
            let assistant = Scripted(vec![said]);
            let outcome = run_scenario("Drawn.txt", &sheet, &assistant, &mut user, &databases, 1);
            assert!(outcome.completed, "{outcome:?}");
            assert_eq!(outcome.state_check, Some(StateCheck::default()), "{call}");
        }
    }
}
