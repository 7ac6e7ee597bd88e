//! What `--predictor replay` reads: JSONL, a line per trajectory, either
//! the agent's calls (`{"file"?, "task_id", "actions": [{"name",
//! "arguments"}]}`, run on a fresh database to make the trajectory) or its
//! messages in tau2's format (`{"file"?, "task_id", "messages": [...]}`),
//! each with an optional `trial` and `termination_reason` (default
//! `agent_stop`); or a tau2 results file (`Results`: `info`, `tasks`,
//! `simulations`), whose simulations are graded against the tasks it
//! embeds unless told otherwise.

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::message::Message;
use crate::{Error, Result};

/// How one trajectory is given.
#[derive(Debug, Clone)]
pub enum Trajectory {
    /// The agent's calls, in order.
    Actions(Vec<(String, Map<String, Value>)>),
    Messages(Vec<Message>),
}

/// One predicted trajectory.
#[derive(Debug, Clone)]
pub struct Predicted {
    /// The tasks file it names, when it names one.
    pub file: Option<String>,
    pub task_id: String,
    pub trial: usize,
    pub termination: String,
    pub trajectory: Trajectory,
    /// Where it was read (`FILE:LINE`, or the simulation's place), for
    /// messages.
    pub place: String,
}

/// A tau2 results file.
#[derive(Debug, Clone)]
pub struct ResultsFile {
    pub domain: String,
    /// The run's `info`, kept for the results talkforge writes back.
    pub info: Value,
    /// The tasks it embeds, as written.
    pub tasks: Vec<Value>,
    pub simulations: Vec<Predicted>,
}

/// Everything a predictions file holds.
#[derive(Debug, Clone)]
pub enum Predictions {
    Lines(Vec<Predicted>),
    Results(ResultsFile),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    #[serde(default)]
    file: Option<String>,
    task_id: TaskId,
    #[serde(default)]
    trial: Option<usize>,
    #[serde(default)]
    termination_reason: Option<String>,
    #[serde(default)]
    actions: Option<Vec<LineAction>>,
    #[serde(default)]
    messages: Option<Vec<Message>>,
}

#[derive(Deserialize)]
struct LineAction {
    name: String,
    #[serde(default)]
    arguments: Map<String, Value>,
}

/// A task id as tau2 writes it: a string, or a number in older files.
#[derive(Deserialize)]
#[serde(untagged)]
enum TaskId {
    Text(String),
    Number(i64),
}

impl TaskId {
    fn text(self) -> String {
        match self {
            TaskId::Text(s) => s,
            TaskId::Number(n) => n.to_string(),
        }
    }
}

#[derive(Deserialize)]
struct ResultsDoc {
    info: Value,
    tasks: Vec<Value>,
    simulations: Vec<Simulation>,
}

#[derive(Deserialize)]
struct Simulation {
    #[serde(default)]
    id: Option<String>,
    task_id: TaskId,
    #[serde(default)]
    trial: Option<usize>,
    termination_reason: String,
    #[serde(default)]
    messages: Option<Vec<Message>>,
}

/// Read a predictions file, telling its kind by its content.
pub fn read(path: &Path) -> Result<Predictions> {
    let text = crate::formats::read::read_text(path)?;
    // A results file is one JSON object with simulations; JSONL is a line
    // per object.
    if let Ok(Value::Object(doc)) = serde_json::from_str::<Value>(&text) {
        if doc.contains_key("simulations") {
            return read_results(path, &text).map(Predictions::Results);
        }
    }
    read_lines(path, &text).map(Predictions::Lines)
}

fn read_results(path: &Path, text: &str) -> Result<ResultsFile> {
    let doc: ResultsDoc =
        serde_json::from_str(text).map_err(|e| crate::formats::read::json_error(path, &e))?;
    let domain = doc
        .info
        .pointer("/environment_info/domain_name")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::input(path, "info.environment_info.domain_name is missing: which domain the results are of is unknown"))?
        .to_string();
    let mut simulations = Vec::with_capacity(doc.simulations.len());
    for (i, sim) in doc.simulations.into_iter().enumerate() {
        let task_id = sim.task_id.text();
        let place = format!(
            "{} simulation {i} ({})",
            path.display(),
            sim.id.as_deref().unwrap_or(&task_id)
        );
        let messages = sim.messages.ok_or_else(|| {
            Error::input(
                path,
                format!("simulation {i} has no messages (a full-duplex run, which evaluate does not grade)"),
            )
        })?;
        simulations.push(Predicted {
            file: None,
            task_id,
            trial: sim.trial.unwrap_or(0),
            termination: sim.termination_reason,
            trajectory: Trajectory::Messages(messages),
            place,
        });
    }
    Ok(ResultsFile {
        domain,
        info: doc.info,
        tasks: doc.tasks,
        simulations,
    })
}

fn read_lines(path: &Path, text: &str) -> Result<Vec<Predicted>> {
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Line = serde_json::from_str(line).map_err(|e| {
            let message = e.to_string();
            let message = message
                .rfind(" at line ")
                .map_or(message.as_str(), |pos| &message[..pos])
                .to_string();
            Error::syntax(path, number, e.column().max(1), message)
        })?;
        let trajectory = match (parsed.actions, parsed.messages) {
            (Some(actions), None) => {
                Trajectory::Actions(actions.into_iter().map(|a| (a.name, a.arguments)).collect())
            }
            (None, Some(messages)) => Trajectory::Messages(messages),
            _ => {
                return Err(Error::syntax(
                    path,
                    number,
                    1,
                    "a line gives either \"actions\" or \"messages\"",
                ))
            }
        };
        lines.push(Predicted {
            file: parsed.file,
            task_id: parsed.task_id.text(),
            trial: parsed.trial.unwrap_or(0),
            termination: parsed
                .termination_reason
                .unwrap_or_else(|| "agent_stop".to_string()),
            trajectory,
            place: format!("{}:{number}", path.display()),
        });
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.jsonl");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn lines_give_actions_or_messages_and_a_bad_line_is_named() {
        let (_dir, path) = write(
            "{\"task_id\": \"1\", \"actions\": [{\"name\": \"f\", \"arguments\": {\"x\": 1}}]}\n\n{\"file\": \"r/tasks.json\", \"task_id\": 2, \"trial\": 1, \"messages\": [{\"role\": \"assistant\", \"content\": \"hi\"}]}\n",
        );
        let Predictions::Lines(lines) = read(&path).unwrap() else {
            panic!("lines")
        };
        assert_eq!(lines.len(), 2);
        assert!(matches!(&lines[0].trajectory, Trajectory::Actions(a) if a[0].0 == "f"));
        assert_eq!(lines[0].termination, "agent_stop");
        assert_eq!((lines[1].task_id.as_str(), lines[1].trial), ("2", 1));
        assert!(lines[1].place.ends_with(":3"));
        let (_dir, bad) = write("{\"task_id\": \"1\", \"actions\": []}\n{\"task_id\": \"1\"}\n");
        let err = read(&bad).unwrap_err().to_string();
        assert!(err.contains("p.jsonl:2:1"), "{err}");
    }

    #[test]
    fn a_results_file_is_told_by_its_simulations() {
        let (_dir, path) = write(
            r#"{"info": {"environment_info": {"domain_name": "retail"}}, "tasks": [{"id": "0"}],
            "simulations": [{"id": "s", "task_id": "0", "termination_reason": "user_stop", "messages": []}]}"#,
        );
        let Predictions::Results(results) = read(&path).unwrap() else {
            panic!("results")
        };
        assert_eq!(results.domain, "retail");
        assert_eq!(results.simulations[0].termination, "user_stop");
    }
}
