//! A trajectory's reward as tau2 computes it (`evaluate_simulation` with
//! every component): 0 when the run ended otherwise than by the agent or
//! the user stopping; 1 for a task with no evaluation criteria; else the
//! product of the components the task's `reward_basis` names. Components
//! outside the basis are still computed and shown where they cost
//! nothing; the judge is asked only when the basis needs it.

use serde::{Deserialize, Serialize};

use super::message::Message;
use super::nl_assertion::Verdict;
use super::{action, communicate, db, env_assertion, nl_assertion};
use crate::run::answer::Model;
use crate::suites::tau2::diff::{differences, Difference};
use crate::suites::tau2::domain::{Db, Initial};
use crate::suites::tau2::tasks::{RewardType, Task};

/// Places where the states differ that a grade shows, at most.
const SHOWN_DIFFERENCES: usize = 10;

/// The ways a run may end that tau2 grades.
pub const STOPS: [&str; 2] = ["agent_stop", "user_stop"];

/// What grading one trajectory found.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Grade {
    /// None: not scored (a component the basis needs could not be had).
    pub reward: Option<f64>,
    pub db_match: bool,
    pub communicate: Option<f64>,
    pub action: Option<f64>,
    pub env_assertions: Option<f64>,
    pub nl_assertions: Option<f64>,
    pub errors: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Where the agent's state differs from the gold's (`left` the gold,
    /// `right` the agent's; the first few places).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub db_differences: Vec<Difference>,
    /// Per communicate item, whether it was said.
    #[serde(skip)]
    pub communicate_checks: Vec<(String, bool)>,
    #[serde(skip)]
    pub verdicts: Vec<Verdict>,
    /// The basis the reward was the product of (None: not graded by one).
    #[serde(skip)]
    pub basis: Option<Vec<RewardType>>,
}

/// The gold's final state and its hash.
pub struct Gold {
    pub hash: String,
    pub db: Db,
}

/// The agent's final state, as a grade comes by it.
pub enum AgentState {
    /// To be replayed from the trajectory's writes, as tau2's `set_state`
    /// does.
    Replayed,
    /// Left by the run that made the trajectory: every call in order on a
    /// fresh copy of the initial state, each answered as the replay answers
    /// it. Replaying the writes alone reaches the same state (reads,
    /// generic and unknown tools change nothing) and answers each write as
    /// recorded, so the replay is not made again.
    Ran(Db),
    /// Left by such a run of the task's gold actions, each made as the gold
    /// replay makes it (no call a user requests): the gold's own state, so
    /// the DB check holds without making or hashing either.
    Gold(Db),
}

/// What a grade needs besides the trajectory.
pub struct Grading<'a> {
    pub initial: &'a Initial,
    pub agent: AgentState,
    /// The task's gold final state, made only when the grade compares the
    /// agent's state with it.
    pub gold: &'a dyn Fn() -> Gold,
    pub judge: Option<&'a Model>,
}

/// Grade `trajectory`, which ended for `termination`, on `task`.
pub fn grade(task: &Task, trajectory: &[Message], termination: &str, with: Grading<'_>) -> Grade {
    let mut grade = Grade::default();
    let Some(criteria) = &task.evaluation_criteria else {
        grade.reward = Some(if STOPS.contains(&termination) {
            1.0
        } else {
            0.0
        });
        grade.db_match = true;
        return grade;
    };
    if task.initial_state.as_ref().is_some_and(|s| !s.is_null()) {
        grade
            .errors
            .push("the task sets an initial state, which evaluate does not apply".into());
        return grade;
    }
    let basis = &criteria.reward_basis;
    let in_basis = |t: RewardType| basis.contains(&t);
    let stopped = STOPS.contains(&termination);

    // The environment: DB and the assertions on the agent's state.
    let mut db_component = None;
    let mut env_component = None;
    if criteria.actions.is_none() && criteria.env_assertions.is_none() {
        grade.db_match = true;
        db_component = Some(1.0);
        env_component = Some(1.0);
    } else {
        let agent = match with.agent {
            AgentState::Replayed => db::replay(&with.initial.db, trajectory).map(|replayed| {
                grade.warnings.extend(replayed.differs);
                (replayed.db, false)
            }),
            AgentState::Ran(db) => Ok((db, false)),
            AgentState::Gold(db) => Ok((db, true)),
        };
        match agent {
            Ok((mut state, is_gold)) => {
                grade.db_match = is_gold || {
                    let gold = (with.gold)();
                    let matched = with.initial.hash(&state) == gold.hash;
                    if !matched {
                        grade.db_differences = differences(&gold.db, &state, SHOWN_DIFFERENCES);
                    }
                    matched
                };
                db_component = Some(if grade.db_match { 1.0 } else { 0.0 });
                match env_assertion::reward(
                    criteria.env_assertions.as_deref().unwrap_or_default(),
                    &mut state,
                ) {
                    Ok(r) => env_component = Some(r),
                    Err(e) if in_basis(RewardType::EnvAssertion) => grade.errors.push(e),
                    Err(_) => {}
                }
            }
            Err(e) => grade
                .errors
                .push(format!("the trajectory cannot be replayed: {e}")),
        }
    }

    let items = criteria.communicate_info.as_deref().unwrap_or_default();
    let said = communicate::checks(items, trajectory);
    grade.communicate_checks = items.iter().cloned().zip(said.iter().copied()).collect();
    let communicate = Some(if said.iter().all(|s| *s) { 1.0 } else { 0.0 });
    let action = Some(action::reward(task.actions(), trajectory));

    let assertions = criteria.nl_assertions.as_deref().unwrap_or_default();
    let nl = if !in_basis(RewardType::NlAssertion) {
        None
    } else if assertions.is_empty() {
        Some(1.0)
    } else if !stopped {
        // The reward is 0 whatever the judge says.
        None
    } else if let Some(judge) = with.judge {
        match nl_assertion::judge(judge, assertions, trajectory) {
            Ok(verdicts) => {
                let r = nl_assertion::reward(&verdicts);
                grade.verdicts = verdicts;
                Some(r)
            }
            Err(e) => {
                grade.errors.push(e);
                None
            }
        }
    } else {
        grade
            .errors
            .push("its NL assertions need a judge (--judge-model)".into());
        None
    };

    let components = [
        (RewardType::Db, db_component),
        (RewardType::EnvAssertion, env_component),
        (RewardType::Action, action),
        (RewardType::NlAssertion, nl),
        (RewardType::Communicate, communicate),
    ];
    let product = components
        .iter()
        .filter(|(t, _)| in_basis(*t))
        .try_fold(1.0, |acc, (_, c)| c.map(|c| acc * c));
    grade.reward = if stopped {
        product
    } else {
        grade.errors.push(format!(
            "the run ended by {termination}, not by the agent or the user stopping"
        ));
        Some(0.0)
    };
    let shown = |t: RewardType, c: Option<f64>| c.filter(|_| in_basis(t));
    grade.communicate = shown(RewardType::Communicate, communicate);
    grade.action = shown(RewardType::Action, action);
    grade.env_assertions = shown(RewardType::EnvAssertion, env_component);
    grade.nl_assertions = nl;
    grade.basis = Some(basis.clone());
    grade
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::tau2::domain::Db;
    use crate::suites::tau2::eval::trajectory;
    use serde_json::json;

    /// A retail database of one user and nothing else.
    fn initial() -> Initial {
        let db = json!({
            "products": {},
            "orders": {},
            "users": {"ann_1": {
                "user_id": "ann_1",
                "name": {"first_name": "Ann", "last_name": "Lee"},
                "address": {"address1": "1 Elm St", "address2": "", "city": "Oslo",
                            "country": "NO", "state": "OS", "zip": "0150"},
                "email": "ann@example.org",
                "payment_methods": {},
                "orders": []
            }}
        });
        Initial::new(Db::parse(std::path::Path::new("db.json"), &db.to_string()).unwrap())
    }

    fn task(criteria: serde_json::Value) -> Task {
        serde_json::from_value(
            json!({"id": "t", "user_scenario": {}, "evaluation_criteria": criteria}),
        )
        .unwrap()
    }

    const MOVE: &str = r#"{"name": "modify_user_address", "arguments": {"user_id": "ann_1",
        "address1": "2 Oak Rd", "address2": "", "city": "Bergen", "state": "VE", "country": "NO", "zip": "5003"}}"#;

    /// The gold's state made as evaluate makes it.
    fn gold(task: &Task, initial: &Initial) -> Gold {
        let db = crate::suites::tau2::verify::gold_state(task, initial);
        Gold {
            hash: initial.hash(&db),
            db,
        }
    }

    fn run(
        task: &Task,
        initial: &Initial,
        calls: &[serde_json::Value],
        closing: Option<&str>,
        end: &str,
    ) -> Grade {
        let mut db = initial.db.clone();
        let calls = calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                trajectory::call(
                    i,
                    c["name"].as_str().unwrap(),
                    c["arguments"].as_object().unwrap(),
                    "assistant",
                )
            })
            .collect();
        let mut messages = trajectory::run_calls(&mut db, calls);
        if let Some(text) = closing {
            messages.push(Message::assistant_text(text));
        }
        let graded = |agent| {
            grade(
                task,
                &messages,
                end,
                Grading {
                    initial,
                    agent,
                    gold: &|| gold(task, initial),
                    judge: None,
                },
            )
        };
        let replayed = graded(AgentState::Replayed);
        // The state the run left grades as its replay does.
        let ran = graded(AgentState::Ran(db));
        assert_eq!(format!("{ran:?}"), format!("{replayed:?}"));
        replayed
    }

    #[test]
    fn the_reward_is_the_product_over_the_basis() {
        let initial = initial();
        let moved: serde_json::Value = serde_json::from_str(MOVE).unwrap();
        let look = json!({"name": "get_user_details", "arguments": {"user_id": "ann_1"}});
        let t = task(
            json!({"actions": [moved], "communicate_info": ["Bergen"], "reward_basis": ["DB", "COMMUNICATE"]}),
        );
        let full = run(
            &t,
            &initial,
            &[look.clone(), moved.clone()],
            Some("Moved to bergen."),
            "agent_stop",
        );
        assert_eq!(
            (full.reward, full.db_match, full.communicate),
            (Some(1.0), true, Some(1.0))
        );
        assert_eq!(full.action, None, "ACTION is outside the basis");
        // the database is right but the item is not said
        let mute = run(
            &t,
            &initial,
            std::slice::from_ref(&moved),
            Some("Done."),
            "user_stop",
        );
        assert_eq!(
            (mute.reward, mute.db_match, mute.communicate),
            (Some(0.0), true, Some(0.0))
        );
        // said, but the write never made
        let idle = run(
            &t,
            &initial,
            std::slice::from_ref(&look),
            Some("Bergen it is."),
            "agent_stop",
        );
        assert_eq!((idle.reward, idle.db_match), (Some(0.0), false));
        // where the states differ: the gold's address on the left
        let places: Vec<&str> = idle
            .db_differences
            .iter()
            .map(|d| d.path.as_str())
            .collect();
        assert!(places.contains(&"users.ann_1.address.city"), "{places:?}");
        let city = idle
            .db_differences
            .iter()
            .find(|d| d.path == "users.ann_1.address.city")
            .unwrap();
        assert_eq!(
            (city.left.clone(), city.right.clone()),
            (Some(json!("Bergen")), Some(json!("Oslo")))
        );
        assert!(full.db_differences.is_empty());
        // a run cut short scores 0 whatever it did
        let cut = run(
            &t,
            &initial,
            std::slice::from_ref(&moved),
            Some("Bergen"),
            "max_steps",
        );
        assert_eq!((cut.reward, cut.db_match), (Some(0.0), true));
        assert!(cut.errors[0].contains("max_steps"));
        // ACTION in the basis: a read call does not stand for the gold write
        let acted = task(json!({"actions": [moved.clone()], "reward_basis": ["ACTION"]}));
        assert_eq!(
            run(
                &acted,
                &initial,
                std::slice::from_ref(&moved),
                None,
                "agent_stop"
            )
            .reward,
            Some(1.0)
        );
        assert_eq!(
            run(&acted, &initial, &[look], None, "agent_stop").reward,
            Some(0.0)
        );
    }

    #[test]
    fn the_gold_is_made_only_when_a_state_is_compared_with_it() {
        let initial = initial();
        let moved: serde_json::Value = serde_json::from_str(MOVE).unwrap();
        let t = task(
            json!({"actions": [moved], "communicate_info": ["Bergen"], "reward_basis": ["DB", "COMMUNICATE"]}),
        );
        let no_gold = || -> Gold { panic!("the gold was made") };
        // The oracle's run of the gold actions is the gold's own state.
        let mut db = initial.db.clone();
        let messages = trajectory::oracle(&mut db, &t);
        let g = grade(
            &t,
            &messages,
            "user_stop",
            Grading {
                initial: &initial,
                agent: AgentState::Gold(db),
                gold: &no_gold,
                judge: None,
            },
        );
        assert_eq!((g.reward, g.db_match), (Some(1.0), true));
        // Nothing for the environment to check, or no trajectory to check.
        let unchecked = task(json!({"communicate_info": [], "reward_basis": ["DB"]}));
        let orphan = [Message::Tool {
            id: "call_0".into(),
            content: None,
            requestor: "assistant".into(),
            error: false,
        }];
        for (task, trajectory) in [(&unchecked, &[][..]), (&t, &orphan[..])] {
            let g = grade(
                task,
                trajectory,
                "agent_stop",
                Grading {
                    initial: &initial,
                    agent: AgentState::Replayed,
                    gold: &no_gold,
                    judge: None,
                },
            );
            assert_eq!(g.db_match, task.actions().is_empty());
        }
    }

    #[test]
    fn empty_lists_score_one_and_a_judge_is_needed_only_for_assertions() {
        let initial = initial();
        let nothing = task(
            json!({"actions": [], "communicate_info": [], "nl_assertions": [], "reward_basis": ["DB", "COMMUNICATE", "NL_ASSERTION", "ACTION", "ENV_ASSERTION"]}),
        );
        let g = run(&nothing, &initial, &[], None, "agent_stop");
        assert_eq!(
            (g.reward, g.nl_assertions, g.env_assertions),
            (Some(1.0), Some(1.0), Some(1.0))
        );
        let judged = task(
            json!({"actions": [], "nl_assertions": ["The agent is polite."], "reward_basis": ["DB", "NL_ASSERTION"]}),
        );
        let g = run(&judged, &initial, &[], None, "agent_stop");
        assert_eq!((g.reward, g.nl_assertions, g.db_match), (None, None, true));
        assert!(g.errors[0].contains("--judge-model"));
        let no_criteria: Task =
            serde_json::from_value(json!({"id": "n", "user_scenario": {}})).unwrap();
        assert_eq!(
            run(&no_criteria, &initial, &[], None, "user_stop").reward,
            Some(1.0)
        );
    }

    #[test]
    fn an_assertion_is_a_function_answering_true_or_false() {
        let initial = initial();
        // The domain's tools answer records, never a truth value.
        let asserted = task(json!({"actions": [], "reward_basis": ["ENV_ASSERTION"],
            "env_assertions": [{"env_type": "assistant", "func_name": "get_user_details", "arguments": {"user_id": "ann_1"}, "assert_value": true}]}));
        let g = run(&asserted, &initial, &[], None, "agent_stop");
        assert_eq!(g.reward, None);
        assert!(g.errors[0].contains("not true or false"), "{:?}", g.errors);
    }

    #[test]
    fn writes_are_replayed_and_a_different_output_is_noted_not_fatal() {
        let initial = initial();
        let moved: serde_json::Value = serde_json::from_str(MOVE).unwrap();
        let t = task(json!({"actions": [moved.clone()], "reward_basis": ["DB"]}));
        let mut db = initial.db.clone();
        let mut messages = trajectory::run_calls(
            &mut db,
            vec![trajectory::call(
                0,
                "modify_user_address",
                moved["arguments"].as_object().unwrap(),
                "assistant",
            )],
        );
        if let Message::Tool { content, .. } = &mut messages[1] {
            *content = Some("{\"note\": \"recorded by an older tool\"}".into());
        }
        let g = grade(
            &t,
            &messages,
            "agent_stop",
            Grading {
                initial: &initial,
                agent: AgentState::Replayed,
                gold: &|| gold(&t, &initial),
                judge: None,
            },
        );
        assert_eq!((g.reward, g.db_match), (Some(1.0), true));
        assert_eq!(g.warnings.len(), 1, "{:?}", g.warnings);
        // a call without its tool message cannot be replayed
        messages.pop();
        let g = grade(
            &t,
            &messages,
            "agent_stop",
            Grading {
                initial: &initial,
                agent: AgentState::Replayed,
                gold: &|| gold(&t, &initial),
                judge: None,
            },
        );
        assert_eq!(g.reward, None);
        assert!(g.errors[0].contains("no tool message"), "{:?}", g.errors);
    }
}
