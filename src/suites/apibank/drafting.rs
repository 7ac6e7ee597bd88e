//! Drafting API-Bank dialogues and database records with an LLM, as the
//! paper built its data (sections 3.3 and 3.4): a prompt documents one API
//! (or every API of one database) with one record drawn from that
//! database; the model writes the dialogue with its calls in the paper's
//! text form ([`call_text`](super::call_text)); a draft becomes a .jsonl
//! dialogue whose results `fill` records.

use serde_json::{json, Map, Value};

use super::call_text::parse_api_request;
use super::catalog;
use crate::sim::pyrandom::PyRandom;
use crate::sim::Databases;
use crate::suite::drafting::{name_seed, DraftJob, DraftRequest, DraftTurn, Drafting, SeedJob};
use crate::suite::ToolSpec;
use crate::{Error, Result};

/// The day API-Bank's GetToday answers; dialogues are set then.
const TODAY: &str = "2023-03-31";

/// The APIs whose calls add a record to a database (what `generate
/// database` proposes calls of).
const ADDS_RECORDS: &[&str] = &[
    "AddAgenda",
    "AddAlarm",
    "AddMeeting",
    "AddReminder",
    "AddScene",
    "AppointmentRegistration",
    "RecordHealthData",
    "TimedSwitch",
];

/// The API that hands out the tokens other APIs take.
const TOKEN_SOURCE: &str = "GetUserToken";

/// API-Bank's drafting material.
pub struct ApiBankDrafting;

impl Drafting for ApiBankDrafting {
    fn dialogue_template(&self) -> (&'static str, &'static str) {
        (
            "prompts/draft-apibank.j2",
            include_str!("../../../prompts/draft-apibank.j2"),
        )
    }

    fn dialogue_jobs(&self, request: &DraftRequest) -> Result<Vec<DraftJob>> {
        let tools = chosen_tools(request.tools, |spec| spec.name != "ToolSearcher")?;
        let mut groups: Vec<(String, Vec<&'static ToolSpec>)> = Vec::new();
        for spec in tools {
            let group = match (request.by_database, spec.database) {
                (true, Some(database)) => database.to_string(),
                _ => spec.name.to_string(),
            };
            match groups.iter_mut().find(|(name, _)| *name == group) {
                Some((_, members)) => members.push(spec),
                None => groups.push((group, vec![spec])),
            }
        }
        let mut jobs = Vec::new();
        for (group, members) in groups {
            // Each database's records in an order of the group's own, so
            // that its drafts take different records while there are
            // enough (and draft n is the same whatever --drafts says).
            let mut order = PyRandom::new(request.seed ^ name_seed(&group));
            let shuffled: Vec<(&'static str, Vec<Value>)> = databases_of(&members)
                .map(|database| {
                    let mut records = records(request.databases, database);
                    shuffle(&mut records, &mut order);
                    (database, records)
                })
                .collect();
            for n in 1..=request.per_group {
                let name = format!("{group}-{n}");
                let mut random = PyRandom::new(request.seed ^ name_seed(&name));
                let items: Vec<(String, Value)> = shuffled
                    .iter()
                    .filter(|(_, records)| !records.is_empty())
                    .map(|(database, records)| {
                        (
                            database.to_string(),
                            records[(n - 1) % records.len()].clone(),
                        )
                    })
                    .collect();
                let needs_token = members.iter().any(|spec| spec.parameter("token").is_some());
                let account = needs_token
                    .then(|| account_for(request.databases, &items, &mut random))
                    .flatten();
                let mut documented: Vec<&'static str> = Vec::new();
                if needs_token {
                    documented.push(TOKEN_SOURCE);
                }
                documented.extend(members.iter().map(|spec| spec.name));
                documented.dedup();
                jobs.push(DraftJob {
                    name,
                    draft: n,
                    targets: members.iter().map(|s| s.name.to_string()).collect(),
                    tools: documented,
                    context: json!({
                        "today": TODAY,
                        "account": account,
                        "items": items.iter().map(|(database, item)| json!({
                            "database": database,
                            "text": serde_json::to_string_pretty(item).expect("json"),
                        })).collect::<Vec<_>>(),
                        "required_tools": members.iter().map(|s| s.name).collect::<Vec<_>>(),
                    }),
                    frame: Value::Null,
                });
            }
        }
        Ok(jobs)
    }

    fn read_call(&self, text: &str) -> std::result::Result<(String, Map<String, Value>), String> {
        parse_api_request(text)
            .map(|request| (request.api_name, request.param_dict))
            .map_err(|failure| failure.to_string())
    }

    /// One JSON line per turn, as the upstream dialogues write them; an
    /// API line's result is left for `fill`.
    fn dialogue_text(
        &self,
        _job: &DraftJob,
        turns: &[DraftTurn],
    ) -> std::result::Result<String, String> {
        let mut text = String::new();
        for turn in turns {
            let line = match turn {
                DraftTurn::User(said) => json!({"role": "User", "text": said}),
                DraftTurn::Assistant(said) => json!({"role": "AI", "text": said}),
                DraftTurn::Call {
                    api_name,
                    parameters,
                } => json!({
                    "role": "API",
                    "api_name": api_name,
                    "param_dict": parameters,
                }),
            };
            text.push_str(&crate::formats::write::to_python_json_line(&line));
            text.push('\n');
        }
        Ok(text)
    }

    fn seed_template(&self) -> Option<(&'static str, &'static str)> {
        Some((
            "prompts/seed-apibank.j2",
            include_str!("../../../prompts/seed-apibank.j2"),
        ))
    }

    fn seed_jobs(
        &self,
        databases: &Databases,
        tools: &[String],
        seed: u64,
    ) -> Result<Vec<SeedJob>> {
        let tools = chosen_tools(tools, |spec| ADDS_RECORDS.contains(&spec.name))?;
        if let Some(spec) = tools.iter().find(|spec| !ADDS_RECORDS.contains(&spec.name)) {
            return Err(Error::Usage(format!(
                "{} adds no record to a database; the APIs that do are {}",
                spec.name,
                ADDS_RECORDS.join(", ")
            )));
        }
        Ok(tools
            .into_iter()
            .map(|spec| {
                let mut random = PyRandom::new(seed ^ name_seed(spec.name));
                let mut examples = records(databases, spec.database.unwrap_or_default());
                shuffle(&mut examples, &mut random);
                let examples: Vec<String> = examples
                    .iter()
                    .take(3)
                    .map(|item| serde_json::to_string(item).expect("json"))
                    .collect();
                let accounts: Vec<Value> = if spec.parameter("token").is_some() {
                    accounts(databases)
                        .map(|(username, record)| {
                            json!({"username": username, "token": record.get("token")})
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                SeedJob {
                    name: spec.name.to_string(),
                    tool: spec.name,
                    context: json!({"examples": examples, "accounts": accounts}),
                }
            })
            .collect())
    }
}

/// The specs of `names` (every API that `default` keeps when none is
/// named), refusing a name the catalog lacks.
fn chosen_tools(
    names: &[String],
    default: impl Fn(&ToolSpec) -> bool,
) -> Result<Vec<&'static ToolSpec>> {
    if names.is_empty() {
        return Ok(catalog()
            .tools()
            .iter()
            .copied()
            .filter(|s| default(s))
            .collect());
    }
    names
        .iter()
        .map(|name| {
            catalog().tool(name).ok_or_else(|| {
                Error::Usage(format!(
                    "API-Bank has no API named {name} (see `talkforge tools --suite apibank`)"
                ))
            })
        })
        .collect()
}

/// The databases `members` read, each once.
fn databases_of<'a>(members: &'a [&'static ToolSpec]) -> impl Iterator<Item = &'static str> + 'a {
    let mut seen: Vec<&'static str> = Vec::new();
    members.iter().filter_map(move |spec| {
        let database = spec.database?;
        (!seen.contains(&database)).then(|| {
            seen.push(database);
            database
        })
    })
}

/// The records of `database`: each entry `{key: value}` of an object,
/// each element of a list (none when it holds none).
fn records(databases: &Databases, database: &str) -> Vec<Value> {
    match databases.document(database).map(|d| &**d) {
        Some(Value::Object(entries)) => entries
            .iter()
            .map(|(key, value)| json!({ key: value }))
            .collect(),
        Some(Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    }
}

/// Fisher-Yates, drawing from `random`.
fn shuffle<T>(items: &mut [T], random: &mut PyRandom) {
    for i in (1..items.len()).rev() {
        let j = random.randint(0, i as i64) as usize;
        items.swap(i, j);
    }
}

fn accounts(databases: &Databases) -> impl Iterator<Item = (&String, &Map<String, Value>)> {
    databases
        .document("Account")
        .and_then(|doc| doc.as_object())
        .into_iter()
        .flat_map(|accounts| accounts.iter())
        .filter_map(|(username, record)| Some((username, record.as_object()?)))
}

/// The account a draft's user logs in with: the one a drawn record names
/// (its `username`), else one drawn.
fn account_for(
    databases: &Databases,
    items: &[(String, Value)],
    random: &mut PyRandom,
) -> Option<Value> {
    let all: Vec<_> = accounts(databases).collect();
    let named = items.iter().find_map(|(_, item)| {
        let username = item
            .as_object()?
            .values()
            .find_map(|record| record.get("username"))
            .or_else(|| item.get("username"))?
            .as_str()?;
        all.iter().find(|(name, _)| name.as_str() == username)
    });
    let (username, record) = match named {
        Some(found) => *found,
        None if all.is_empty() => return None,
        None => all[random.randint(0, all.len() as i64 - 1) as usize],
    };
    Some(json!({"username": username, "password": record.get("password")}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_api_that_adds_records_is_in_the_catalog_and_reads_a_database() {
        for name in ADDS_RECORDS {
            let spec = catalog().tool(name).unwrap();
            assert!(spec.is_action && spec.database.is_some(), "{name}");
        }
    }

    #[test]
    fn a_draft_becomes_upstream_shaped_lines() {
        let turns = vec![
            DraftTurn::User("Wake me at 7".into()),
            DraftTurn::Call {
                api_name: "AddAlarm".into(),
                parameters: [("time".to_string(), json!("2023-03-20 07:00:00"))]
                    .into_iter()
                    .collect(),
            },
            DraftTurn::Assistant("Done.".into()),
        ];
        let job = DraftJob {
            name: "AddAlarm-1".into(),
            draft: 1,
            targets: vec!["AddAlarm".into()],
            tools: vec!["AddAlarm"],
            context: Value::Null,
            frame: Value::Null,
        };
        let text = ApiBankDrafting.dialogue_text(&job, &turns).unwrap();
        assert_eq!(
            text,
            "{\"role\": \"User\", \"text\": \"Wake me at 7\"}\n\
             {\"role\": \"API\", \"api_name\": \"AddAlarm\", \"param_dict\": {\"time\": \"2023-03-20 07:00:00\"}}\n\
             {\"role\": \"AI\", \"text\": \"Done.\"}\n"
        );
    }
}
