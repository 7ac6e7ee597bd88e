//! What `lint` is told about a tau2 tasks file (the format's
//! `LintReading::Tasks`): every task's gold replayed on a fresh copy of its
//! database as `verify` replays it, with the state's hash around each
//! write, the ids that name no record, the argument values the agent
//! could not have learnt ([`super::reach`]) and the `communicate_info`
//! items no output holds. The database is the `db.json` beside the file
//! (or in `--databases`); the policy, `policy.md` beside it.

use std::path::Path;

use serde_json::{Map, Value};

use super::domain::{Db, Initial};
use super::reach::{Knowledge, Shared};
use super::suite::DATABASE_FILE;
use super::tasks::{self, Task};
use super::{ids, ToolKind};
use crate::suite::linted_tasks::{
    ArgumentValue, Communicated, LintedAction, LintedTask, LintedTasks,
};
use crate::suite::Suite;
use crate::Result;

/// The agent's policy, beside the tasks file.
const POLICY_FILE: &str = "policy.md";

/// Read a tasks file for lint (a malformed file, or a missing database, is
/// an error naming it).
pub fn read(path: &Path, text: &str, databases: Option<&Path>) -> Result<LintedTasks> {
    let tasks = tasks::parse(path, text)?;
    let raw: Vec<Value> =
        serde_json::from_str(text).map_err(|e| crate::formats::read::json_error(path, &e))?;
    let beside = path.parent().unwrap_or(Path::new(""));
    let folder = databases.unwrap_or(beside);
    let db_path = folder.join(DATABASE_FILE);
    if !db_path.is_file() {
        return Err(crate::Error::input(
            path,
            format!(
                "no {} in {} to replay the tasks with (give the domain's folder with --databases)",
                DATABASE_FILE,
                shown_folder(folder)
            ),
        ));
    }
    let initial = Initial::new(Db::load(&db_path)?);
    let policy = std::fs::read_to_string(beside.join(POLICY_FILE)).unwrap_or_default();
    let shared = Shared::new(&initial.db, &policy);
    let start = initial.hash(&initial.db);
    let mut scratch = initial.db.clone();
    Ok(LintedTasks {
        tasks: tasks
            .iter()
            .zip(&raw)
            .enumerate()
            .map(|(position, (task, raw))| {
                let context = Context {
                    initial: &initial,
                    start: &start,
                    shared: &shared,
                };
                lint_task(position, task, raw, &context, &mut scratch)
            })
            .collect(),
    })
}

fn shown_folder(folder: &Path) -> String {
    match folder.as_os_str().is_empty() {
        true => ".".into(),
        false => folder.display().to_string(),
    }
}

/// What every task of a file is replayed and judged with.
struct Context<'a> {
    initial: &'a Initial,
    /// The initial state's hash.
    start: &'a str,
    shared: &'a Shared,
}

fn lint_task(
    position: usize,
    task: &Task,
    raw: &Value,
    context: &Context<'_>,
    scratch: &mut Db,
) -> LintedTask {
    let Context {
        initial,
        start,
        shared,
    } = *context;
    let told = told_text(&task.user_scenario);
    let mut knowledge = Knowledge::new(shared, scratch, &told);
    let mut db = initial.db.clone();
    let mut actions = Vec::new();
    let mut outputs = Vec::new();
    let mut hash = start.to_string();
    for action in task.actions() {
        let kind = db.tool_kind(&action.name);
        let write = kind == Some(ToolKind::Write);
        let spec = super::Tau2.catalog().tool(&action.name);
        // What the agent knew when it wrote the arguments.
        let mut unknown_ids = Vec::new();
        let mut unexplained = Vec::new();
        let mut checked = 0;
        for leaf in leaves(&action.arguments) {
            let Some(value) = leaf
                .value
                .as_str()
                .map(str::to_string)
                .or_else(|| leaf.value.is_number().then(|| leaf.value.to_string()))
            else {
                continue;
            };
            let argument = ArgumentValue {
                argument: leaf.name.clone(),
                top: leaf.top.clone(),
                below: leaf.below.clone(),
                value: value.clone(),
                kind: "",
            };
            let id_kind = ids::kind_of(&initial.db, &leaf.key);
            if let Some(kind) = id_kind {
                if !ids::names_record(&initial.db, kind, &value) && !task.scripted(&value) {
                    unknown_ids.push(ArgumentValue { kind, ..argument });
                    continue;
                }
            }
            let param = spec.and_then(|s| s.parameters.iter().find(|p| p.name == leaf.top));
            if param.is_some_and(|p| p.free_text) {
                continue;
            }
            let choices = param
                .map(|p| {
                    p.enum_values
                        .iter()
                        .copied()
                        .chain(p.fields.iter().flat_map(|f| f.enum_values.iter().copied()))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            checked += 1;
            if !knowledge.explains(leaf.value, &choices) {
                unexplained.push(argument);
            }
        }
        let before = hash.clone();
        let (output, exception) = match db.call(&action.name, &action.arguments) {
            Ok(output) => (output.agent_text(), None),
            Err(raised) => (format!("Error: {raised}"), Some(raised)),
        };
        if write {
            hash = initial.hash(&db);
        }
        let scripted = exception.is_some()
            && kind == Some(ToolKind::Read)
            && action
                .arguments
                .values()
                .filter_map(Value::as_str)
                .any(|v| task.scripted(v));
        knowledge.learn(&output);
        outputs.push(output.to_lowercase().replace(',', ""));
        actions.push(LintedAction {
            name: action.name.clone(),
            write,
            exception,
            scripted,
            states: write.then(|| (before, hash.clone())),
            unknown_ids,
            checked,
            unexplained,
        });
    }
    let criteria = raw.get("evaluation_criteria");
    let basis = criteria.and_then(|c| c.get("reward_basis"));
    // tau2's default basis is DB and COMMUNICATE.
    let db_reward = match basis {
        Some(Value::Array(items)) => items.iter().any(|b| b == "DB"),
        _ => true,
    };
    let communicate = criteria
        .and_then(|c| c.get("communicate_info"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|item| {
            let wanted = item.to_lowercase();
            Communicated {
                text: item.to_string(),
                in_output: outputs.iter().any(|o| o.contains(&wanted)),
            }
        })
        .collect();
    let gold: Vec<Value> = task
        .actions()
        .iter()
        .map(|a| serde_json::json!([a.name, canonical(&Value::Object(a.arguments.clone()))]))
        .collect();
    LintedTask {
        id: task.id.clone(),
        position,
        scenario: canonical(&task.user_scenario).to_string(),
        gold: match gold.is_empty() {
            true => String::new(),
            false => Value::Array(gold).to_string(),
        },
        actions,
        db_reward,
        changes_state: hash != start,
        communicate,
    }
}

/// Every string of a scenario, one a line.
fn told_text(scenario: &Value) -> String {
    let mut out = String::new();
    fn walk(value: &Value, out: &mut String) {
        match value {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Object(map) => map.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    walk(scenario, &mut out);
    out
}

/// A value with every object's keys sorted, so that equal values compare
/// equal whatever their key order.
fn canonical(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), canonical(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// One leaf of a call's arguments.
struct Leaf<'a> {
    /// As messages name it: `flights[0].date`.
    name: String,
    top: String,
    /// Pointer tokens below the top-level argument's value.
    below: String,
    /// The key it sits under (`date`; a list's own key for its items).
    key: String,
    value: &'a Value,
}

fn leaves(arguments: &Map<String, Value>) -> Vec<Leaf<'_>> {
    fn walk<'a>(
        value: &'a Value,
        top: &str,
        name: String,
        below: String,
        key: &str,
        out: &mut Vec<Leaf<'a>>,
    ) {
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(
                        item,
                        top,
                        format!("{name}[{i}]"),
                        format!("{below}/{i}"),
                        key,
                        out,
                    );
                }
            }
            Value::Object(map) => {
                for (k, item) in map {
                    let token = k.replace('~', "~0").replace('/', "~1");
                    walk(
                        item,
                        top,
                        format!("{name}.{k}"),
                        format!("{below}/{token}"),
                        k,
                        out,
                    );
                }
            }
            _ => out.push(Leaf {
                name,
                top: top.to_string(),
                below,
                key: key.to_string(),
                value,
            }),
        }
    }
    let mut out = Vec::new();
    for (name, value) in arguments {
        walk(value, name, name.clone(), String::new(), name, &mut out);
    }
    out
}
