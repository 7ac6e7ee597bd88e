//! tau2's tasks file: the parts of each task that verify reads (its id,
//! what the simulated user is told, its gold actions), with the place of
//! every task in the file for messages.

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
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Criteria {
    #[serde(default)]
    pub actions: Option<Vec<Action>>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Action {
    pub name: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

impl Task {
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
