//! Seeding databases with an LLM (the API-Bank paper's section 3.4): the
//! model proposes calls of the APIs that add records; each proposal runs
//! in one world, in order, and counts only when it adds to the databases
//! and changes nothing they held, and what it adds repeats no record
//! already there; what the accepted calls added becomes the initial data
//! of a new databases folder.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::dialogue::{Conversation, Metadata, User};
use crate::sim::Databases;
use crate::suite::drafting::{Drafting, SeedJob};
use crate::suite::{Suite, WorldOptions};
use crate::{Error, Result};

use super::Template;

/// A rendered add-record prompt.
#[derive(Debug, Clone)]
pub struct SeedPrompt {
    pub job: SeedJob,
    pub text: String,
}

/// Render a prompt per job; the template gets `tool` (its documentation),
/// `count` and the job's own variables.
pub fn render(
    suite: &dyn Suite,
    template: &Template,
    jobs: Vec<SeedJob>,
    count: usize,
) -> Result<Vec<SeedPrompt>> {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_template(&template.name, &template.text)
        .map_err(|e| Error::input(&template.name, e.to_string()))?;
    let compiled = env.get_template(&template.name).expect("just added");
    jobs.into_iter()
        .map(|job| {
            let spec = suite.catalog().tool(job.tool).expect("a suite's own tool");
            let mut variables = match &job.context {
                Value::Object(map) => map.clone(),
                _ => serde_json::Map::new(),
            };
            variables.insert(
                "tool".into(),
                serde_json::to_value(super::documented(suite, spec)).expect("json"),
            );
            variables.insert("count".into(), count.into());
            let text = compiled
                .render(minijinja::Value::from_serialize(&variables))
                .map_err(|e| Error::input(&template.name, e.to_string()))?;
            Ok(SeedPrompt { job, text })
        })
        .collect()
}

/// What became of one proposed call.
#[derive(Debug, Clone, Serialize)]
pub struct Proposal {
    /// The prompt (its tool) that asked for it.
    pub prompt: String,
    /// 1-based line of the reply.
    pub line: usize,
    pub call: String,
    pub added: bool,
    /// Why it was refused: `malformed-call`, `other-api`,
    /// `unknown-argument`, `raised`, `changes-existing`, `adds-nothing`,
    /// `duplicate-record`.
    pub reason: Option<&'static str>,
    pub detail: Option<String>,
}

/// What `generate database` did.
#[derive(Debug, Clone, Serialize)]
pub struct SeedSummary {
    pub prompts: usize,
    pub proposals: usize,
    pub added: usize,
    pub invalid: usize,
    pub by_reason: BTreeMap<&'static str, usize>,
    /// The databases that received records.
    pub changed: Vec<String>,
    /// Every file written to the new folder.
    pub files: Vec<String>,
    /// The tokens the model used (absent when nothing was asked).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub usage: Vec<crate::llm::usage::ModelUsage>,
    pub per_proposal: Vec<Proposal>,
}

/// Run the proposals of every reply (in prompt order) over `databases`;
/// the databases they leave, and what became of each.
pub fn run_proposals(
    suite: &dyn Suite,
    drafting: &dyn Drafting,
    databases: &Databases,
    replies: &[(SeedJob, String)],
) -> Result<(Databases, Vec<Proposal>)> {
    let mut world = suite
        .world(databases, &no_dialogue(), &WorldOptions::default())
        .map_err(Error::Other)?;
    let mut proposals = Vec::new();
    for (job, reply) in replies {
        for (index, line) in reply.lines().enumerate() {
            let text = line.trim();
            // Prose and fences around the calls are no proposal.
            if !text.contains('(') || text.starts_with("```") {
                continue;
            }
            let mut proposal = Proposal {
                prompt: job.name.clone(),
                line: index + 1,
                call: text.to_string(),
                added: false,
                reason: None,
                detail: None,
            };
            let refuse = |mut p: Proposal, reason, detail: String| {
                p.reason = Some(reason);
                p.detail = Some(detail);
                p
            };
            let (api_name, parameters) = match drafting.read_call(text) {
                Ok(call) => call,
                Err(why) => {
                    proposals.push(refuse(proposal, "malformed-call", why));
                    continue;
                }
            };
            if api_name != job.tool {
                proposals.push(refuse(
                    proposal,
                    "other-api",
                    format!("a call of {api_name}, where {} was asked for", job.tool),
                ));
                continue;
            }
            let spec = suite.catalog().tool(job.tool).expect("a suite's own tool");
            if let Some(unknown) = parameters.keys().find(|k| spec.parameter(k).is_none()) {
                proposals.push(refuse(
                    proposal,
                    "unknown-argument",
                    format!("{api_name} takes no argument {unknown}"),
                ));
                continue;
            }
            let before = world.databases();
            let mut trial = world.boxed_clone();
            let executed = trial.execute(&api_name, parameters, None);
            if let Some(exception) = executed.exception {
                proposals.push(refuse(proposal, "raised", exception));
                continue;
            }
            let after = trial.databases();
            match change(&before, &after) {
                Change::Extends => match repeated_record(&before, &after) {
                    Some(detail) => proposals.push(refuse(proposal, "duplicate-record", detail)),
                    None => {
                        world = trial;
                        proposal.added = true;
                        proposals.push(proposal);
                    }
                },
                Change::Nothing => proposals.push(refuse(
                    proposal,
                    "adds-nothing",
                    "the databases are as before".into(),
                )),
                Change::Alters(database) => proposals.push(refuse(
                    proposal,
                    "changes-existing",
                    format!("it changes or removes what {database} held"),
                )),
            }
        }
    }
    Ok((world.databases(), proposals))
}

/// Write `seeded` to `out`, a new folder: each database the proposals
/// changed in the suite's own layout, every other file copied as it was.
/// Returns the files written.
pub fn write_folder(
    suite: &dyn Suite,
    source: &Path,
    seeded: &Databases,
    changed: &[String],
    out: &Path,
) -> Result<Vec<String>> {
    std::fs::create_dir_all(out).map_err(|e| Error::input(out, format!("cannot create: {e}")))?;
    let mut files = Vec::new();
    let mut names: Vec<&str> = seeded.names().collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let from = source.join(format!("{name}.json"));
        let old = std::fs::read_to_string(&from).ok();
        let text = if changed.iter().any(|c| c == name) {
            (suite.database_format().text)(seeded, name, old.as_deref())
        } else {
            match old {
                Some(text) => text,
                None => continue,
            }
        };
        let to = out.join(format!("{name}.json"));
        crate::formats::atomic_write(&to, text.as_bytes())?;
        files.push(to.display().to_string());
    }
    Ok(files)
}

/// The databases whose content differs between `before` and `after`.
pub fn changed_databases(before: &Databases, after: &Databases) -> Vec<String> {
    after
        .names()
        .filter(|name| document(before, name) != document(after, name))
        .map(str::to_string)
        .collect()
}

enum Change {
    Nothing,
    /// Something was added and nothing held before changed.
    Extends,
    /// A database lost or changed something it held.
    Alters(String),
}

fn change(before: &Databases, after: &Databases) -> Change {
    let mut added = false;
    for name in after.names() {
        let (old, new) = (document(before, name), document(after, name));
        if old == new {
            continue;
        }
        if !extends(new, old) {
            return Change::Alters(name.to_string());
        }
        added = true;
    }
    if added {
        Change::Extends
    } else {
        Change::Nothing
    }
}

/// Where `after` (which extends `before`) adds a record that one already
/// there has, field for field, under another key: in words, or None.
fn repeated_record(before: &Databases, after: &Databases) -> Option<String> {
    after.names().find_map(|name| {
        let (old, new) = (document(before, name), document(after, name));
        repeats(new, old).map(|what| format!("{name}: {what}"))
    })
}

/// What `new` adds to `old` that `old` already holds: a new key's value
/// equal to another key's, or an element appended to a list equal to one
/// the list holds; searched down the keys both share.
fn repeats(new: &Value, old: &Value) -> Option<String> {
    match (new, old) {
        (Value::Object(new), Value::Object(old)) => {
            new.iter().find_map(|(key, value)| match old.get(key) {
                None => old
                    .iter()
                    .find(|(_, held)| *held == value)
                    .map(|(held, _)| format!("the new record {key} repeats record {held}")),
                Some(held) if held != value => {
                    repeats(value, held).map(|what| format!("under {key}, {what}"))
                }
                Some(_) => None,
            })
        }
        (Value::Array(new), Value::Array(old)) => new.iter().skip(old.len()).find_map(|added| {
            old.iter()
                .position(|held| held == added)
                .map(|i| format!("the appended record repeats the one at position {}", i + 1))
        }),
        _ => None,
    }
}

/// Database `name` (null when there is none), borrowed.
fn document<'d>(databases: &'d Databases, name: &str) -> &'d Value {
    databases.document(name).map_or(&Value::Null, |d| &**d)
}

/// Whether `new` holds everything `old` held, unchanged: every key of an
/// object (its value extended in turn), every element of a list in its
/// place; a missing database (null) is extended by anything.
fn extends(new: &Value, old: &Value) -> bool {
    match (new, old) {
        (_, Value::Null) => true,
        (Value::Object(new), Value::Object(old)) => old
            .iter()
            .all(|(key, value)| new.get(key).is_some_and(|n| extends(n, value))),
        (Value::Array(new), Value::Array(old)) => {
            new.len() >= old.len() && new.iter().zip(old).all(|(n, o)| n == o)
        }
        (new, old) => new == old,
    }
}

/// The dialogue a seeding world runs in: none (API-Bank's worlds need
/// nothing from it).
fn no_dialogue() -> Conversation {
    Conversation {
        name: "seed".into(),
        conversation_id: "seed".into(),
        suites_used: Vec::new(),
        apis_used: Vec::new(),
        scenario: None,
        user: User::default(),
        metadata: Metadata::default(),
        conversation: Vec::new(),
        errata: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn extending_keeps_everything_held_before() {
        assert!(extends(
            &json!({"1": {"a": 1}, "2": {"b": 2}}),
            &json!({"1": {"a": 1}})
        ));
        assert!(extends(&json!({"u": [1, 2]}), &json!({"u": [1]})));
        assert!(!extends(&json!({"u": [2]}), &json!({"u": [1]})));
        assert!(!extends(&json!({"2": {}}), &json!({"1": {}})));
        assert!(!extends(&json!({"1": {"a": 2}}), &json!({"1": {"a": 1}})));
        assert!(extends(&json!({"1": {}}), &Value::Null));
    }

    #[test]
    fn a_record_repeated_under_another_key_is_found() {
        let old = json!({"1": {"time": "07:00", "username": "a"}});
        let repeated = json!({"1": {"time": "07:00", "username": "a"}, "2": {"time": "07:00", "username": "a"}});
        assert_eq!(
            repeats(&repeated, &old).as_deref(),
            Some("the new record 2 repeats record 1")
        );
        let other = json!({"1": {"time": "07:00", "username": "a"}, "2": {"time": "08:00", "username": "a"}});
        assert_eq!(repeats(&other, &old), None);
        // Lists under a key: an appended element the list holds already.
        let old = json!({"light": [{"time": "t1", "on": true}]});
        let appended = json!({"light": [{"time": "t1", "on": true}, {"time": "t1", "on": true}]});
        assert!(repeats(&appended, &old).unwrap().starts_with("under light"));
        let fresh = json!({"light": [{"time": "t1", "on": true}, {"time": "t2", "on": true}]});
        assert_eq!(repeats(&fresh, &old), None);
    }
}
