//! What `--out DIR` holds after a tau2 evaluation: each trajectory in
//! tau2's message format (`DIR/tasks/<folder of tasks.json>/<task id>.json`,
//! later trials `<task id>.trial-<T>.json`), and the run as tau2's
//! `Results` (`DIR/results.json`; with several tasks files,
//! `DIR/results-<folder>.json` each), which tau2's `evaluate-trajs` and
//! `--predictor replay` read back.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::grade::Grade;
use super::message::Message;
use crate::suites::tau2::tasks::RewardType;
use crate::Result;

/// One graded trajectory, with what the outputs say of it.
pub struct Graded<'a> {
    pub folder: &'a str,
    pub task_id: &'a str,
    pub trial: usize,
    pub termination: &'a str,
    pub messages: &'a [Message],
    pub grade: &'a Grade,
}

/// The file of one trajectory, relative to `--out`.
pub fn task_path(folder: &str, task_id: &str, trial: usize) -> String {
    let name = if trial == 0 {
        format!("{task_id}.json")
    } else {
        format!("{task_id}.trial-{trial}.json")
    };
    format!("tasks/{folder}/{name}")
}

/// What a trajectory's file keeps besides its messages, for a later run
/// to take it back (see [`super::resume`]).
pub struct Kept<'a> {
    /// The settings and inputs it was made with.
    pub evaluation: &'a Value,
    /// tau2's `reward_info` of its grade.
    pub reward_info: &'a Value,
    /// The models the server said played the agent and the user.
    pub agent_models: &'a [String],
    pub user_models: &'a [String],
}

/// Write one trajectory's file.
pub fn write_task(out: &Path, file: &str, graded: &Graded<'_>, kept: &Kept<'_>) -> Result<()> {
    let path = out.join(task_path(graded.folder, graded.task_id, graded.trial));
    if let Some(parent) = path.parent() {
        crate::formats::write::create_folder(parent)?;
    }
    let doc = json!({
        "file": file,
        "task_id": graded.task_id,
        "trial": graded.trial,
        "termination_reason": graded.termination,
        "reward": graded.grade.reward,
        "db_match": graded.grade.db_match,
        "messages": graded.messages,
        "evaluation": kept.evaluation,
        "grade": graded.grade,
        "reward_info": kept.reward_info,
        "agent_models": kept.agent_models,
        "user_models": kept.user_models,
    });
    let text = serde_json::to_string_pretty(&doc).expect("JSON serialises") + "\n";
    crate::formats::write::atomic_write(&path, text.as_bytes())
}

/// tau2's `RewardInfo` of a grade (None for one not scored: tau2 has no
/// reward to write then).
pub fn reward_info(grade: &Grade) -> Value {
    let Some(reward) = grade.reward else {
        return Value::Null;
    };
    let mut breakdown = Map::new();
    let name = |t: RewardType| serde_json::to_value(t).expect("names serialise");
    let basis = grade.basis.clone().unwrap_or_default();
    for t in &basis {
        let component = match t {
            RewardType::Db => Some(if grade.db_match { 1.0 } else { 0.0 }),
            RewardType::EnvAssertion => grade.env_assertions,
            RewardType::Action => grade.action,
            RewardType::NlAssertion => grade.nl_assertions,
            RewardType::Communicate => grade.communicate,
        };
        if let (Value::String(key), Some(c)) = (name(*t), component) {
            breakdown.insert(key, json!(c));
        }
    }
    json!({
        "reward": reward,
        "db_check": {"db_match": grade.db_match, "db_reward": if grade.db_match { 1.0 } else { 0.0 }},
        "communicate_checks": grade.communicate_checks.iter().map(|(info, met)| json!({
            "info": info,
            "met": met,
            "justification": if *met { "said in an assistant message" } else { "said in no assistant message" },
        })).collect::<Vec<_>>(),
        "nl_assertions": if grade.verdicts.is_empty() { Value::Null } else {
            grade.verdicts.iter().map(|v| json!({
                "nl_assertion": v.outcome, "met": v.met, "justification": v.reasoning,
            })).collect()
        },
        "reward_basis": basis,
        "reward_breakdown": breakdown,
        "info": {"graded_by": "talkforge"},
    })
}

/// One simulation of `Results`, with its `reward_info`.
pub fn simulation(graded: &Graded<'_>, reward_info: &Value, now: &str) -> Value {
    json!({
        "id": format!("{}-{}-{}", graded.folder, graded.task_id, graded.trial),
        "task_id": graded.task_id,
        "timestamp": now,
        "start_time": now,
        "end_time": now,
        "duration": 0.0,
        "termination_reason": graded.termination,
        "reward_info": reward_info,
        "messages": graded.messages,
        "trial": graded.trial,
    })
}

/// The `info` of a run talkforge made: who played the agent and the user,
/// the domain and its policy, the step and error limits (`limits`; no
/// limit applies to a replay or the oracle: 0 says none was set).
pub fn info(
    domain: &str,
    policy: &str,
    agent: &str,
    user: &str,
    trials: usize,
    limits: (usize, usize),
) -> Value {
    json!({
        "git_commit": "",
        "num_trials": trials,
        "max_steps": limits.0,
        "max_errors": limits.1,
        "user_info": {"implementation": user},
        "agent_info": {"implementation": agent},
        "environment_info": {"domain_name": domain, "policy": policy},
    })
}

/// Write `Results` at `path`.
pub fn write_results(
    path: &Path,
    info: &Value,
    tasks: Vec<Value>,
    simulations: Vec<Value>,
    now: &str,
) -> Result<()> {
    let doc = json!({
        "timestamp": now,
        "info": info,
        "tasks": tasks,
        "simulations": simulations,
    });
    let text = serde_json::to_string_pretty(&doc).expect("JSON serialises") + "\n";
    crate::formats::write::atomic_write(path, text.as_bytes())
}
