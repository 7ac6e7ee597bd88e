//! The tau2 family behind the seam: its tasks files, its databases (one
//! `db.json` a domain folder, held as tau2's models hold it), its catalog
//! and its world. A tasks file holds many tasks: each is read as a
//! dialogue of its own where a command counts dialogues (`stats`), and
//! `verify` replays them through the family's own report.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::domain::Db;
use super::tasks::{self, Task};
use crate::dialogue::{Conversation, GoldCall, Metadata, Request, Role, Turn, User};
use crate::sim::{Databases, Reply};
use crate::suite::format::{DatabaseFormat, FileFormat, FormatKind, LintReading, Results};
use crate::suite::{Catalog, Execution, LintHelp, Suite, World, WorldOptions};
use crate::{Error, Result};

/// The name of a domain's tasks file, and of its database beside it.
pub const TASKS_FILE: &str = "tasks.json";
pub const DATABASE_FILE: &str = "db.json";

/// Why `fill` writes nothing into a tasks file.
const RECORDS_NOTHING: &str = "tau2 tasks record no results: their gold actions are replayed on a fresh database by `verify`, which gives each task's final database hash";

/// A domain's tasks: a JSON array of tasks, named `tasks.json` (any other
/// name is read with `--suite tau2`).
pub static TASKS: FileFormat = FileFormat {
    name: "tau2-tasks",
    kind: FormatKind::Dialogues,
    names: &[TASKS_FILE],
    endings: &["json"],
    schema: None,
    parse: parse_file,
    many: Some(parse_tasks),
    canonical: keep_layout,
    load: load_tasks,
    results: Results::NotRecorded(RECORDS_NOTHING),
    lint: LintReading::Tasks(super::lint::read),
};

/// tau2's databases are read, never written: seeding is not offered.
static DATABASES: DatabaseFormat = DatabaseFormat {
    schemas: &[],
    text: |_, _, old| old.unwrap_or_default().to_string(),
};

static LINT_HELP: LintHelp = LintHelp {
    unknown_tool: "tau2's airline and retail tools are listed by `talkforge tools --suite tau2`",
    no_session: "tau2's tools need no session",
    open_session: "tau2's tools need no session",
    credential_source: "tau2's tools hand out no credential",
};

/// The tau2 family (airline and retail).
#[derive(Debug, Clone, Copy)]
pub struct Tau2;

impl Suite for Tau2 {
    fn name(&self) -> &'static str {
        "tau2"
    }

    fn catalog(&self) -> &'static Catalog {
        super::catalog::catalog()
    }

    fn formats(&self) -> &'static [&'static FileFormat] {
        static FORMATS: [&FileFormat; 1] = [&TASKS];
        &FORMATS
    }

    fn database_format(&self) -> &'static DatabaseFormat {
        &DATABASES
    }

    /// A tasks file's database sits beside it; commands that read one
    /// folder for every file are given it with `--databases`.
    fn default_databases(&self) -> &'static str {
        "."
    }

    /// The folder's `db.json`, read once into the domain's model and
    /// shared by every world.
    fn load_databases(&self, dir: &Path) -> Result<Databases> {
        let path = dir.join(DATABASE_FILE);
        if !path.is_file() {
            return Err(Error::input(
                dir,
                format!("holds no {DATABASE_FILE} (a tau2 domain's database)"),
            ));
        }
        Ok(Databases::default().with_prepared(Db::load(&path)?))
    }

    fn evaluation(&self) -> crate::suite::Evaluation {
        crate::suite::Evaluation::Tasks(&super::eval::Tau2Tasks)
    }

    fn lint_help(&self) -> &'static LintHelp {
        &LINT_HELP
    }

    fn world(
        &self,
        databases: &Databases,
        _dialogue: &Conversation,
        _options: &WorldOptions,
    ) -> std::result::Result<Box<dyn World>, String> {
        let db = databases
            .prepared::<Db>()
            .ok_or("no tau2 database (db.json) was loaded")?;
        Ok(Box::new(Tau2World { db: (*db).clone() }))
    }

    fn companions(&self) -> &'static [(&'static str, &'static str)] {
        &[
            (DATABASE_FILE, TASKS_FILE),
            ("split_tasks.json", TASKS_FILE),
            ("policy.md", TASKS_FILE),
        ]
    }

    fn verify_own(
        &self,
        files: &[PathBuf],
        databases: Option<&Path>,
        errata: &crate::errata::Errata,
    ) -> Option<Result<crate::suite::OwnVerification>> {
        Some(
            super::report::verify_files(files, databases, errata).map(|report| {
                crate::suite::OwnVerification {
                    json: serde_json::to_value(&report).expect("a report serialises"),
                    human: super::report::human(&report),
                    fails: report.fails(),
                }
            }),
        )
    }
}

/// One task's world: a domain database that its calls change.
#[derive(Debug, Clone)]
pub struct Tau2World {
    db: Db,
}

impl Tau2World {
    pub fn new(db: Db) -> Self {
        Tau2World { db }
    }

    pub fn db(&self) -> &Db {
        &self.db
    }
}

impl World for Tau2World {
    /// The response is the string the agent is handed (a model as
    /// `json.dumps` writes it); a raise is its exception text.
    fn execute(
        &mut self,
        api_name: &str,
        parameters: Map<String, Value>,
        _recorded: Option<&GoldCall>,
    ) -> Execution {
        let (response, exception) = match self.db.call(api_name, &parameters) {
            Ok(output) => (Value::String(output.agent_text()), None),
            Err(raised) => (Value::Null, Some(raised)),
        };
        let request = Request {
            api_name: api_name.to_string(),
            parameters,
        };
        Execution::new(request, Reply::from(response), exception)
    }

    fn boxed_clone(&self) -> Box<dyn World> {
        Box::new(self.clone())
    }

    fn databases(&self) -> Databases {
        Databases::default().with_prepared(self.db.clone())
    }
}

/// One task as a dialogue: what the user calls about, then the gold
/// actions as one assistant turn.
fn task_dialogue(task: &Task) -> Conversation {
    let reason = task
        .user_scenario
        .pointer("/instructions/reason_for_call")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let calls: Vec<GoldCall> = task
        .actions()
        .iter()
        .map(|action| GoldCall {
            request: Request {
                api_name: action.name.clone(),
                parameters: action.arguments.clone(),
            },
            response: Value::Null,
            exception: None,
            place: None,
        })
        .collect();
    let mut apis_used: Vec<String> = Vec::new();
    for call in &calls {
        if !apis_used.contains(&call.request.api_name) {
            apis_used.push(call.request.api_name.clone());
        }
    }
    Conversation {
        name: task.id.clone(),
        conversation_id: task.id.clone(),
        suites_used: Vec::new(),
        apis_used,
        scenario: None,
        user: User::default(),
        metadata: Metadata::default(),
        conversation: vec![
            Turn {
                index: Some(0),
                role: Role::User,
                text: reason.to_string(),
                apis: None,
            },
            Turn {
                index: Some(1),
                role: Role::Assistant,
                text: String::new(),
                apis: Some(calls),
            },
        ],
        errata: Vec::new(),
    }
}

/// Every task of a file as a dialogue of its own.
fn parse_tasks(path: &Path, text: &str) -> Result<Vec<Conversation>> {
    Ok(tasks::parse(path, text)?
        .iter()
        .map(task_dialogue)
        .collect())
}

/// A whole tasks file as one dialogue (for the commands that take a file
/// as one): every task's turns in file order, named by the file.
fn parse_file(path: &Path, text: &str) -> Result<Conversation> {
    let tasks = parse_tasks(path, text)?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut apis_used: Vec<String> = Vec::new();
    let mut turns = Vec::new();
    for task in tasks {
        for api in task.apis_used {
            if !apis_used.contains(&api) {
                apis_used.push(api);
            }
        }
        turns.extend(task.conversation);
    }
    for (i, turn) in turns.iter_mut().enumerate() {
        turn.index = Some(i as u64);
    }
    Ok(Conversation {
        name: name.clone(),
        conversation_id: name,
        suites_used: Vec::new(),
        apis_used,
        scenario: None,
        user: User::default(),
        metadata: Metadata::default(),
        conversation: turns,
        errata: Vec::new(),
    })
}

/// tau2's files are read as published: `fmt` keeps their layout.
fn keep_layout(_: &Path, text: &str) -> Result<String> {
    Ok(text.to_string())
}

fn load_tasks(path: &Path) -> Result<crate::formats::LoadedConversation> {
    crate::suite::format::load_unrecorded(path, parse_file)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_TASKS: &str = r#"[
 {"id": "0", "user_scenario": {"instructions": {"reason_for_call": "a refund"}},
  "evaluation_criteria": {"actions": [
   {"action_id": "0_0", "name": "get_user_details", "arguments": {"user_id": "u1"}},
   {"action_id": "0_1", "name": "get_user_details", "arguments": {"user_id": "u2"}}]}},
 {"id": "1", "user_scenario": {}, "evaluation_criteria": null}
]"#;

    #[test]
    fn each_task_is_a_dialogue_of_its_gold_actions() {
        let dialogues = parse_tasks(Path::new("tasks.json"), TWO_TASKS).unwrap();
        assert_eq!(dialogues.len(), 2);
        assert_eq!(dialogues[0].name, "0");
        assert_eq!(dialogues[0].conversation[0].text, "a refund");
        assert_eq!(dialogues[0].gold_calls().count(), 2);
        assert_eq!(dialogues[0].apis_used, ["get_user_details"]);
        assert_eq!(dialogues[1].gold_calls().count(), 0);
        let whole = parse_file(Path::new("d/tasks.json"), TWO_TASKS).unwrap();
        assert_eq!(whole.name, "tasks");
        assert_eq!(whole.gold_calls().count(), 2);
        assert_eq!(whole.conversation.len(), 4);
    }

    #[test]
    fn the_tasks_file_is_read_by_name_whatever_its_folder() {
        assert!(TASKS.fits(Path::new("x/retail/tasks.json")) > TASKS.fits(Path::new("x/a.json")));
        assert_eq!(keep_layout(Path::new("t"), "[ ]\n").unwrap(), "[ ]\n");
    }
}
