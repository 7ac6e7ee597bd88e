//! A conversation between the assistant under test and a simulated user,
//! for any suite whose scenarios give a user something to ask for: the
//! user opens with the scenario's first utterance; the assistant then
//! answers, and while its message is a call (as the suite reads it,
//! [`Interactive::read_message`]) the call runs in the scenario's world and
//! its result goes back to it, up to a bound of calls a turn; its first
//! message that is no call goes to the user, who answers in turn. A turn
//! is one user message and everything the assistant does until it speaks
//! to the user again.
//!
//! The scenario's gold calls are its goals: each is run as written, in
//! order from fresh databases, and a call the assistant makes that the
//! suite matches with one not made yet ([`Interactive::matches`]) makes
//! it. The conversation ends when every goal is made, at the turn cap,
//! when the user leaves, or on an error.
//!
//! After it, the state check compares the databases the conversation left
//! with those of a fresh world in which the gold calls ran in order, each
//! with the result of the call that made it as its recording, so that
//! what it draws at random (an id, a token) is what that call drew.

use serde::{Deserialize, Serialize};

use crate::dialogue::GoldCall;
use crate::run::answer::{Answer, Answerer, Chat, Key, Reported, Request};
use crate::run::with_user::outcome::{CallAt, MadeAt, ScenarioOutcome};
use crate::sim::Databases;
use crate::suite::interactive::{Interactive, Reading, Rule, Scenario};
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

/// How long a conversation may go.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// A conversation still incomplete after this many turns stops.
    pub max_turns: usize,
    /// Calls the assistant may make in one turn before the user speaks.
    pub max_calls_per_turn: usize,
}

/// Ask `answerer` for its message at `key` (the `step`th asked there; the
/// oracle says `gold`), the chat built only when a model asks, and note
/// the model the server said answered.
pub fn ask(
    answerer: &dyn Answerer,
    reported: &mut Reported,
    (key, step, gold): (Key, usize, Option<Answer>),
    chat: impl Fn() -> Chat + Sync,
) -> Result<Answer, String> {
    let chat = || Ok(chat());
    let request = Request {
        key,
        step,
        gold,
        chat: &chat,
    };
    let answer = answerer.answer(&request).map_err(|e| e.to_string())?;
    reported.add(answer.model());
    Ok(answer)
}

/// The goals of a conversation: the gold calls, as the world ran them,
/// and those made so far.
struct Goals<'a> {
    suite: &'a dyn Interactive,
    gold: Vec<&'a GoldCall>,
    /// Each gold call as the world ran it, in order from fresh databases.
    ran: Vec<Execution>,
    made: Vec<Option<(usize, Rule)>>,
    /// The result of the call that made each.
    results: Vec<Option<serde_json::Value>>,
}

impl Goals<'_> {
    /// The first gold call not made yet that `executed` is, if any, is
    /// made in `turn`.
    fn record(&mut self, executed: &Execution, turn: usize) {
        let found = (0..self.gold.len())
            .filter(|&i| self.made[i].is_none())
            .find_map(|i| Some((i, self.suite.matches(executed, &self.ran[i])?)));
        if let Some((i, rule)) = found {
            self.made[i] = Some((turn, rule));
            self.results[i] = Some(executed.response.clone().into_value());
        }
    }

    fn progress(&self) -> (usize, usize) {
        (self.made.iter().flatten().count(), self.made.len())
    }

    fn complete(&self) -> bool {
        self.made.iter().all(Option::is_some)
    }

    /// `fresh` after the gold calls, each run with the result of the call
    /// that made it as its recording: what it drew, never its arguments
    /// (a result's `input`), for the gold call runs with its own.
    fn gold_world(&self, fresh: &dyn World) -> Box<dyn World> {
        let mut world = fresh.boxed_clone();
        for (call, result) in self.gold.iter().zip(&self.results) {
            let recording = result.as_ref().map(|result| {
                let mut response = result.clone();
                if let Some(object) = response.as_object_mut() {
                    object.remove("input");
                }
                GoldCall {
                    request: call.request.clone(),
                    response,
                    exception: None,
                    place: None,
                }
            });
            let request = &call.request;
            world.execute(
                &request.api_name,
                request.parameters.clone(),
                recording.as_ref(),
            );
        }
        world
    }
}

/// Hold `scenario`'s conversation (of `file`) in a copy of `fresh` (its
/// world, made from the databases `before`) between `answerer`, told the
/// suite's assistant prompt, and `user`, from the first utterance to its
/// end, and say what it came to.
pub fn converse(
    suite: &dyn Interactive,
    (file, scenario): (&str, &Scenario),
    (fresh, before): (&dyn World, &Databases),
    answerer: &dyn Answerer,
    user: &mut dyn User,
    bounds: Bounds,
) -> ScenarioOutcome {
    let gold: Vec<&GoldCall> = scenario.dialogue.gold_calls().map(|(_, _, g)| g).collect();
    let mut assistant = Assistant {
        answerer,
        scenario: &scenario.name,
        system: suite.prompts()[0].1,
        gold: gold.iter().map(|g| suite.call_text(&g.request)).collect(),
        reported: Reported::default(),
    };
    let mut gold_run = fresh.boxed_clone();
    let ran: Vec<Execution> = gold
        .iter()
        .map(|g| gold_run.execute(&g.request.api_name, g.request.parameters.clone(), None))
        .collect();
    let mut goals = Goals {
        suite,
        made: vec![None; gold.len()],
        results: vec![None; gold.len()],
        gold,
        ran,
    };
    let mut world = fresh.boxed_clone();
    let mut outcome = ScenarioOutcome {
        transcript: vec![Message {
            from: Speaker::User,
            text: scenario.first_utterance.clone(),
        }],
        turns_taken: 1,
        error: None,
        ..ScenarioOutcome::failed(file, scenario, String::new())
    };
    let (stop, error) = loop {
        if let Err(e) = assistant_turn(
            world.as_mut(),
            &mut goals,
            &mut assistant,
            &mut outcome,
            bounds,
        ) {
            break (Stop::Error, Some(e));
        }
        if goals.complete() {
            break (Stop::Completed, None);
        }
        if outcome.turns_taken >= bounds.max_turns {
            break (Stop::MaxTurns, None);
        }
        outcome.user_asked = true;
        match user.reply(&outcome.transcript, goals.progress()) {
            Err(e) => break (Stop::Error, Some(e)),
            Ok(Turn::Leaves) => break (Stop::UserLeft, None),
            Ok(Turn::Says(text)) => {
                outcome.transcript.push(Message {
                    from: Speaker::User,
                    text,
                });
                outcome.turns_taken += 1;
            }
        }
    };
    (outcome.stopped, outcome.error) = (stop, error);
    outcome.completed = stop == Stop::Completed;
    outcome.turns = outcome.completed.then_some(outcome.turns_taken);
    let gold_world = goals.gold_world(fresh);
    outcome.state_check = Some(StateCheck::new(compare_documents(
        outcome.turns_taken,
        before,
        &gold_world.databases(),
        &world.databases(),
    )));
    // Each gold call made or missed, and raising as written, at its line.
    for ((gold, made), ran) in goals.gold.iter().zip(goals.made).zip(goals.ran) {
        let line = gold.line().unwrap_or(0);
        let api_name = || gold.request.api_name.clone();
        let call_at = |exception| CallAt {
            line,
            api_name: api_name(),
            exception,
        };
        match made {
            Some((turn, by)) => outcome.made.push(MadeAt {
                line,
                api_name: api_name(),
                turn,
                by,
            }),
            None => outcome.missing.push(call_at(None)),
        }
        if let Some(exception) = ran.exception {
            outcome.ground_truth_raising.push(call_at(Some(exception)));
        }
    }
    outcome.ground_truth_made = outcome.made.len();
    outcome.assistant_models = assistant.reported.models();
    outcome.user_models = user.models();
    outcome
}

/// The assistant's side of one turn: calls until it speaks to the user
/// (or makes its last allowed call, or every goal is made).
fn assistant_turn(
    world: &mut dyn World,
    goals: &mut Goals<'_>,
    assistant: &mut Assistant<'_>,
    outcome: &mut ScenarioOutcome,
    bounds: Bounds,
) -> Result<(), String> {
    for _ in 0..bounds.max_calls_per_turn {
        let text = assistant.reply(&outcome.transcript)?;
        let result = match goals.suite.read_message(&text) {
            Reading::Speech => {
                outcome.transcript.push(Message {
                    from: Speaker::Assistant,
                    text,
                });
                return Ok(());
            }
            Reading::Unreadable(why) => {
                outcome.calls += 1;
                format!("Exception: cannot read the call: {why}")
            }
            Reading::Call {
                api_name,
                arguments,
            } => {
                outcome.calls += 1;
                let executed = world.execute(&api_name, arguments, None);
                goals.record(&executed, outcome.turns_taken);
                goals.suite.result_text(&executed)
            }
        };
        outcome.transcript.push(Message {
            from: Speaker::Call,
            text,
        });
        outcome.transcript.push(Message {
            from: Speaker::Api,
            text: result,
        });
        if goals.complete() {
            return Ok(());
        }
    }
    Ok(())
}
