//! Taking a trajectory back from an earlier run in `--out`: its file
//! (`tasks/<folder>/<id>.json`) records under `evaluation` the run's
//! settings with the hashes of the task, its database and its domain's
//! policy; when they are this run's, its messages and grade stand for
//! this run's (a model is not asked again), else it is made again.

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::grade::Grade;
use super::message::Message;
use super::output::task_path;
use crate::run::driver::stored_if_made_with;

/// One trajectory as its file keeps it.
#[derive(Debug, Deserialize)]
pub struct Stored {
    pub termination_reason: String,
    pub messages: Vec<Message>,
    pub grade: Grade,
    pub reward_info: Value,
    #[serde(default)]
    pub agent_models: Vec<String>,
    #[serde(default)]
    pub user_models: Vec<String>,
}

/// The `evaluation` a trajectory's file records: the run's settings with
/// what the trajectory was made from.
pub fn stamp(settings: &Value, task_sha256: &str, db_sha256: &str, policy_sha256: &str) -> Value {
    let mut stamp = match settings {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    stamp.insert("task_sha256".into(), task_sha256.into());
    stamp.insert("db_sha256".into(), db_sha256.into());
    stamp.insert("policy_sha256".into(), policy_sha256.into());
    Value::Object(stamp)
}

/// The trajectory of task `task_id`, trial `trial`, kept in `out`, when it
/// was made with `stamp`; None (with a note on stderr when a file is
/// there) makes it again.
pub fn take_back(
    out: &Path,
    folder: &str,
    task_id: &str,
    trial: usize,
    stamp: &Value,
) -> Option<Stored> {
    let path = out.join(task_path(folder, task_id, trial));
    let again = format!("evaluating task {task_id} (trial {trial}) again");
    let stored = stored_if_made_with(&path, stamp, &again)?;
    match serde_json::from_value(stored) {
        Ok(stored) => Some(stored),
        Err(e) => {
            eprintln!("warning: {}: {e}; {again}", path.display());
            None
        }
    }
}
