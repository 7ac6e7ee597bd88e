//! tau2's tasks file: the parts of each task that verify and evaluate read
//! (its id, what the simulated user is told, its gold actions and what its
//! reward is made of), with the place of every task in the file for
//! messages.

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::{Error, Result};

#[derive(Debug, Clone, Deserialize)]
pub struct Task {
    pub id: String,
    #[serde(default)]
    pub user_scenario: Value,
    #[serde(default)]
    pub evaluation_criteria: Option<Criteria>,
    /// Open notes on the task's quality, as upstream keeps them (shown
    /// beside a raise, never taken as its excuse).
    #[serde(default)]
    pub issues: Option<Value>,
    /// A state to start from other than the database as it is (null in
    /// every airline and retail task; evaluate does not apply one).
    #[serde(default)]
    pub initial_state: Option<Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Criteria {
    #[serde(default)]
    pub actions: Option<Vec<Action>>,
    #[serde(default)]
    pub env_assertions: Option<Vec<EnvAssertion>>,
    #[serde(default)]
    pub communicate_info: Option<Vec<String>>,
    #[serde(default)]
    pub nl_assertions: Option<Vec<String>>,
    /// What gates the reward; tau2's default when absent.
    #[serde(default = "default_basis")]
    pub reward_basis: Vec<RewardType>,
}

/// A component of tau2's reward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
pub enum RewardType {
    #[serde(rename = "DB")]
    Db,
    #[serde(rename = "ENV_ASSERTION")]
    EnvAssertion,
    #[serde(rename = "COMMUNICATE")]
    Communicate,
    #[serde(rename = "NL_ASSERTION")]
    NlAssertion,
    #[serde(rename = "ACTION")]
    Action,
}

fn default_basis() -> Vec<RewardType> {
    vec![RewardType::Db, RewardType::Communicate]
}

#[derive(Debug, Clone, Deserialize)]
pub struct Action {
    pub name: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
    /// The arguments an ACTION check compares; None: those the call has.
    #[serde(default)]
    pub compare_args: Option<Vec<String>>,
    /// Who makes the call (`assistant` unless the task says `user`).
    #[serde(default)]
    pub requestor: Option<String>,
}

/// A check run on the agent's final state: a function of the domain that
/// answers true or false, and the answer wanted.
#[derive(Debug, Clone, Deserialize)]
pub struct EnvAssertion {
    #[serde(default)]
    pub env_type: Option<String>,
    pub func_name: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
    #[serde(default = "yes")]
    pub assert_value: bool,
    #[serde(default)]
    pub message: Option<String>,
}

fn yes() -> bool {
    true
}

impl Task {
    /// Whether the task needs a judge: NL assertions gate its reward.
    pub fn needs_judge(&self) -> bool {
        self.evaluation_criteria.as_ref().is_some_and(|c| {
            c.reward_basis.contains(&RewardType::NlAssertion)
                && c.nl_assertions.as_ref().is_some_and(|a| !a.is_empty())
        })
    }

    pub fn actions(&self) -> &[Action] {
        self.evaluation_criteria
            .as_ref()
            .and_then(|c| c.actions.as_deref())
            .unwrap_or_default()
    }

    /// Whether `value` is something the simulated user is told: it occurs
    /// in the text of the task's user scenario, ignoring case, and with or
    /// without the `#` the agent puts before an order number the user
    /// reads out without one.
    pub fn scripted(&self, value: &str) -> bool {
        let value = value.to_lowercase();
        let bare = value.strip_prefix('#').unwrap_or(&value);
        !bare.is_empty()
            && scenario_strings(&self.user_scenario).any(|s| s.to_lowercase().contains(bare))
    }
}

/// Every string of a scenario, at any depth.
fn scenario_strings(value: &Value) -> Box<dyn Iterator<Item = &str> + '_> {
    match value {
        Value::String(s) => Box::new(std::iter::once(s.as_str())),
        Value::Array(items) => Box::new(items.iter().flat_map(scenario_strings)),
        Value::Object(map) => Box::new(map.values().flat_map(scenario_strings)),
        _ => Box::new(std::iter::empty()),
    }
}

/// Read a tasks file: a JSON array of tasks; a malformed one is an error
/// naming the file, line and column.
pub fn load(path: &Path) -> Result<Vec<Task>> {
    let text = crate::formats::read::read_text(path)?;
    parse(path, &text)
}

pub fn parse(path: &Path, text: &str) -> Result<Vec<Task>> {
    let tasks: Vec<Task> =
        serde_json::from_str(text).map_err(|e| crate::formats::read::json_error(path, &e))?;
    let mut seen = std::collections::HashSet::new();
    if let Some(twice) = tasks.iter().find(|t| !seen.insert(t.id.as_str())) {
        return Err(Error::input(
            path,
            format!("task id {:?} is used twice", twice.id),
        ));
    }
    Ok(tasks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_scripted_when_the_scenario_tells_it_whatever_the_case_or_hash_sign() {
        let text = r#"[{"id": "1", "user_scenario": {"instructions": {"reason_for_call": "Provide 9502126 first; email Ann@X.com"}}}]"#;
        let tasks = parse(Path::new("tasks.json"), text).unwrap();
        assert!(tasks[0].scripted("#9502126"));
        assert!(tasks[0].scripted("ann@x.com"));
        assert!(!tasks[0].scripted("6086499569"));
        assert!(tasks[0].actions().is_empty());
    }

    #[test]
    fn a_malformed_tasks_file_names_its_line_and_column() {
        let err = parse(Path::new("t/tasks.json"), "[\n {\"id\": 1}]").unwrap_err();
        assert!(err.to_string().starts_with("t/tasks.json:2:"), "{err}");
    }
}
