//! The seam proven by a suite that is not a benchmark family: two toy tools
//! over one table of counters, defined here, run through verify, fill and
//! evaluate exactly as ToolTalk and API-Bank are.

use std::path::Path;

use serde_json::{json, Map, Value};
use talkforge::dialogue::{Conversation, GoldCall};
use talkforge::sim::pyrandom::PyRandom;
use talkforge::sim::pytime::{strptime_str, TIMESTAMP};
use talkforge::sim::{Databases, Reply, RunFn, Tables, ToolCtx};
use talkforge::suite::format::{LintReading, Results};
use talkforge::suite::{
    CallRef, Catalog, DatabaseFormat, Execution, FileFormat, FormatKind, Group, LintHelp,
    NotChecked, Note, ParamSpec, ParamType, SessionEffect, Suite, TextSimilarity, ToolSpec, World,
    WorldOptions,
};

const COUNTERS: &str = "Counters";

static ADD: ToolSpec = ToolSpec {
    name: "Add",
    group: "Counting",
    description: "Adds an amount to a named counter.",
    parameters: &[
        ParamSpec::new("counter", ParamType::String, "The counter's name.", true),
        ParamSpec::new("amount", ParamType::Integer, "How much to add.", true),
    ],
    returns: &[],
    is_action: true,
    requires_auth: false,
    session: SessionEffect::None,
    tells_today: false,
    database: Some(COUNTERS),
    matches: same_arguments,
};

static TOTAL: ToolSpec = ToolSpec {
    name: "Total",
    group: "Counting",
    description: "A counter's total.",
    parameters: &[ParamSpec::new(
        "counter",
        ParamType::String,
        "The counter's name.",
        true,
    )],
    returns: &[],
    is_action: false,
    requires_auth: false,
    session: SessionEffect::None,
    tells_today: false,
    database: Some(COUNTERS),
    matches: same_arguments,
};

static TICKET: ToolSpec = ToolSpec {
    name: "Ticket",
    group: "Counting",
    description: "Draws a ticket number.",
    parameters: &[],
    returns: &[],
    is_action: false,
    requires_auth: false,
    session: SessionEffect::None,
    tells_today: false,
    database: None,
    matches: same_arguments,
};

fn add(ctx: &mut ToolCtx<'_>, args: &Map<String, Value>) -> Result<Reply, String> {
    let name = args["counter"].as_str().ok_or("counter must be text")?;
    let amount = args["amount"]
        .as_i64()
        .ok_or("amount must be a whole number")?;
    let counters = ctx.own_mut();
    let total = counters
        .get(name)
        .and_then(|r| r.to_value().as_i64())
        .unwrap_or(0)
        + amount;
    counters.insert(name, json!(total));
    Ok(Reply::from(json!({ "total": total })))
}

fn total(ctx: &mut ToolCtx<'_>, args: &Map<String, Value>) -> Result<Reply, String> {
    let name = args["counter"].as_str().ok_or("counter must be text")?;
    match ctx.own().get(name).map(|r| r.to_value()) {
        Some(total) => Ok(Reply::from(json!({ "total": total }))),
        None => Err(format!("Counter {name} not found.")),
    }
}

fn same_arguments(prediction: CallRef<'_>, gold: &GoldCall, _: &dyn TextSimilarity) -> bool {
    prediction.exception == gold.exception.as_deref()
        && gold
            .request
            .parameters
            .iter()
            .all(|(k, v)| prediction.parameters.get(k) == Some(v))
}

struct Counting;

/// The project's own JSON dialogues, from the shared readers and writers.
static DIALOGUES: FileFormat = FileFormat {
    name: "counting-dialogue",
    kind: FormatKind::Dialogues,
    endings: &["json"],
    names: &[],
    schema: None,
    parse: talkforge::formats::read::parse_conversation,
    many: None,
    canonical: talkforge::formats::canonical::tooltalk,
    load: talkforge::formats::load_conversation,
    results: Results::Recorded(talkforge::formats::write::record_results),
    lint: LintReading::Conversation,
};

static DATABASES: DatabaseFormat = DatabaseFormat {
    schemas: &[],
    text: |databases, name, _| {
        talkforge::formats::to_python_json(&databases.get(name).cloned().unwrap_or_default())
    },
};

fn catalog() -> &'static Catalog {
    static CATALOG: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
    CATALOG.get_or_init(|| {
        let group = Group {
            name: "Counting",
            description: "Counters.",
        };
        Catalog::new(vec![group], vec![&ADD, &TOTAL, &TICKET])
    })
}

#[derive(Clone)]
struct CountingWorld {
    tables: Tables,
    rng: PyRandom,
}

impl World for CountingWorld {
    fn execute(
        &mut self,
        api_name: &str,
        parameters: Map<String, Value>,
        recorded: Option<&GoldCall>,
    ) -> Execution {
        let request = talkforge::dialogue::Request {
            api_name: api_name.to_string(),
            parameters,
        };
        if api_name == "Ticket" {
            // A number from a generator nobody seeds: a replay takes the
            // recorded one (a later call may list it), and the call
            // cannot be checked. The toy world also notes, as a tool
            // search does, that another pick was possible.
            let ticket = recorded
                .and_then(|call| call.response.get("ticket").cloned())
                .unwrap_or_else(|| json!(self.rng.randint(1, 1000)));
            let mut execution =
                Execution::new(request, Reply::from(json!({ "ticket": ticket })), None);
            execution.not_checked = Some(NotChecked::Random);
            execution.note = Some(Note::Retrieval {
                recorded: "Ticket".into(),
                retriever: "Total".into(),
            });
            return execution;
        }
        let now = strptime_str("2024-01-01 00:00:00", TIMESTAMP).unwrap();
        // The world runs its tools; the catalog only describes them.
        let run: Option<RunFn> = match api_name {
            "Add" => Some(add),
            "Total" => Some(total),
            _ => None,
        };
        let result = match run {
            Some(run) => {
                let mut ctx = ToolCtx::new(now, &mut self.rng, COUNTERS, &mut self.tables);
                run(&mut ctx, &request.parameters)
            }
            None => Err(format!("no tool {api_name}")),
        };
        let (response, exception) = match result {
            Ok(reply) => (reply, None),
            Err(e) => (Reply::default(), Some(e)),
        };
        Execution::new(request, response, exception)
    }

    fn boxed_clone(&self) -> Box<dyn World> {
        Box::new(self.clone())
    }

    fn databases(&self) -> Databases {
        Databases::from_shared_tables(self.tables.clone())
    }
}

impl Suite for Counting {
    fn name(&self) -> &'static str {
        "counting"
    }
    fn catalog(&self) -> &'static Catalog {
        catalog()
    }
    fn formats(&self) -> &'static [&'static FileFormat] {
        static FORMATS: [&FileFormat; 1] = [&DIALOGUES];
        &FORMATS
    }
    fn database_format(&self) -> &'static DatabaseFormat {
        &DATABASES
    }
    fn default_databases(&self) -> &'static str {
        "databases"
    }
    fn lint_help(&self) -> &'static LintHelp {
        &LintHelp {
            unknown_tool: "the counting suite has Add and Total",
            no_session: "",
            open_session: "",
            credential_source: "",
        }
    }
    fn load_databases(&self, dir: &Path) -> talkforge::Result<Databases> {
        Databases::load(dir)
    }
    fn evaluation(&self) -> talkforge::suite::Evaluation {
        // Evaluated as ToolTalk evaluates: its Algorithms 1 and 2 are
        // written against the seam.
        talkforge::suite::Evaluation::Conversations
    }
    fn world(
        &self,
        databases: &Databases,
        _dialogue: &Conversation,
        _options: &WorldOptions,
    ) -> Result<Box<dyn World>, String> {
        Ok(Box::new(CountingWorld {
            tables: databases.tables(),
            rng: PyRandom::for_tool(),
        }))
    }
}

/// A dialogue in the project's format: the user asks, the assistant adds 3
/// apples and reads the total back. Recorded results are left out.
fn dialogue() -> Value {
    let call = |api: &str, parameters: Value| json!({"request": {"api_name": api, "parameters": parameters}});
    json!({
        "name": "counting",
        "conversation_id": "counting-1",
        "suites_used": ["Counting"],
        "apis_used": ["Add", "Total"],
        "user": {},
        "metadata": {"timestamp": "2024-01-01 00:00:00"},
        "conversation": [
            {"index": 0, "role": "user", "text": "Add three apples, then tell me how many."},
            {"index": 1, "role": "assistant", "text": "You have 5 apples.",
             "apis": [call("Add", json!({"counter": "apples", "amount": 3})),
                      call("Total", json!({"counter": "apples"}))]},
            {"index": 2, "role": "user", "text": "And pears?"},
            {"index": 3, "role": "assistant", "text": "There is no pear counter.",
             "apis": [call("Total", json!({"counter": "pears"}))]}
        ]
    })
}

/// A folder with the databases and one dialogue file.
fn dataset() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let databases = dir.path().join("databases");
    std::fs::create_dir(&databases).unwrap();
    std::fs::write(databases.join("Counters.json"), r#"{"apples": 2}"#).unwrap();
    let file = dir.path().join("dialogues").join("counting.json");
    std::fs::create_dir(file.parent().unwrap()).unwrap();
    std::fs::write(&file, serde_json::to_string_pretty(&dialogue()).unwrap()).unwrap();
    (dir, databases, file)
}

fn recorded(file: &Path) -> Vec<(Value, Value)> {
    let text = std::fs::read_to_string(file).unwrap();
    let conversation: Conversation = serde_json::from_str(&text).unwrap();
    conversation
        .gold_calls()
        .map(|(_, _, call)| (call.response.clone(), json!(call.exception)))
        .collect()
}

#[test]
fn fill_records_what_the_toy_world_returns_and_verify_reproduces_it() {
    let (_dir, databases_dir, file) = dataset();
    let files = vec![file.clone()];
    let options = talkforge::fill::FillOptions::default();
    let report = talkforge::fill::fill_files(&files, &Counting, &databases_dir, options).unwrap();
    assert_eq!((report.files, report.calls, report.filled.len()), (1, 3, 3));
    assert_eq!(
        recorded(&file),
        [
            (json!({"total": 5}), Value::Null),
            (json!({"total": 5}), Value::Null),
            (Value::Null, json!("Counter pears not found.")),
        ]
    );

    let databases = Counting.load_databases(&databases_dir).unwrap();
    let report =
        talkforge::verify::verify_files(&files, &Counting, &databases, &WorldOptions::default());
    assert_eq!((report.calls, report.reproduced), (3, 3));
    assert!(report.differs.is_empty() && report.errors.is_empty());

    // A recording edited by hand is a difference, shown as a diff.
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replacen("\"total\": 5", "\"total\": 6", 1)).unwrap();
    let report =
        talkforge::verify::verify_files(&files, &Counting, &databases, &WorldOptions::default());
    assert_eq!(report.reproduced, 2);
    let difference = &report.differs[0];
    assert_eq!(
        (
            difference.turn,
            difference.call,
            difference.api_name.as_str()
        ),
        (1, 0, "Add")
    );
    assert!(
        difference.diff.contains("-        \"total\": 6"),
        "{}",
        difference.diff
    );
    assert!(
        difference.diff.contains("+        \"total\": 5"),
        "{}",
        difference.diff
    );
}

#[test]
fn evaluate_scores_the_oracle_and_a_wrong_assistant_on_the_toy_suite() {
    let (dir, databases_dir, file) = dataset();
    let files = vec![file];
    talkforge::fill::fill_files(&files, &Counting, &databases_dir, Default::default()).unwrap();
    let databases = Counting.load_databases(&databases_dir).unwrap();
    let options = talkforge::eval::run::RunOptions {
        suite: &Counting,
        setup: talkforge::run::Setup {
            databases: std::sync::Arc::new(databases),
            provenance: talkforge::run::provenance::Inputs::read(&databases_dir, &[]).unwrap(),
            errata: Default::default(),
            answerer: talkforge::run::answer::Choice::Oracle,
            trials: 1,
            out: None,
            reset: false,
            threads: Some(1),
            progress: false,
            meter: Default::default(),
        },
        max_calls_per_turn: 10,
        prompt: talkforge::run::turn_request::TurnPrompt {
            catalog: Counting.catalog(),
            api_mode: talkforge::run::turn_request::ApiMode::All,
            docs: true,
        },
    };
    let similarity = talkforge::suite::similarity::ExactText;
    let oracle = talkforge::run::answer::oracle::Oracle;
    let summary =
        talkforge::eval::run::evaluate_files(&files, &oracle, &similarity, &options).unwrap();
    assert_eq!(summary.rates.conversations, 1);
    assert_eq!(
        (
            summary.totals.predictions,
            summary.totals.matches,
            summary.totals.bad_actions
        ),
        (3, 3, 0)
    );
    assert_eq!(summary.rates.success_rate, Some(1.0));

    // An assistant that adds the wrong amount makes a bad action and
    // misses the gold Add; its Total still matches.
    let predictions = dir.path().join("predictions.jsonl");
    let api = |name: &str, parameters: Value| json!({"role": "api", "request": {"api_name": name, "parameters": parameters}});
    let lines = [
        json!({"conversation_id": "counting-1", "turn": 1, "predictions": [
            api("Add", json!({"counter": "apples", "amount": 4})),
            api("Total", json!({"counter": "apples"})),
            {"role": "assistant", "text": "You have 6 apples."}]}),
        json!({"conversation_id": "counting-1", "turn": 3, "predictions": [
            api("Total", json!({"counter": "pears"})),
            {"role": "assistant", "text": "None."}]}),
    ];
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&predictions, text.join("\n")).unwrap();
    let conversations = [(&Counting as &dyn talkforge::suite::Suite)
        .read_dialogue(&files[0])
        .unwrap()];
    let lines = talkforge::eval::replay::ConversationLines::new(&conversations);
    let replay = talkforge::run::answer::replay::Replay::load(&predictions, &lines).unwrap();
    let summary =
        talkforge::eval::run::evaluate_files(&files, &replay, &similarity, &options).unwrap();
    assert_eq!(
        (summary.totals.predictions, summary.totals.ground_truths),
        (3, 3)
    );
    assert_eq!(
        (
            summary.totals.matches,
            summary.totals.actions,
            summary.totals.bad_actions
        ),
        (2, 1, 1)
    );
    assert_eq!(summary.rates.success_rate, Some(0.0));
}

/// A call the world cannot reproduce offline is listed apart from the
/// differences, whatever its recording says, with the world's note; fill
/// keeps its recording, and records one only where there is none.
#[test]
fn calls_that_cannot_be_checked_are_listed_apart_and_keep_their_recordings() {
    let (_dir, databases_dir, file) = dataset();
    let mut value = dialogue();
    value["conversation"][3]["apis"] = json!([
        {"request": {"api_name": "Ticket", "parameters": {}}, "response": {"ticket": 7}, "exception": null},
        {"request": {"api_name": "Ticket", "parameters": {}}}
    ]);
    std::fs::write(&file, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    let files = vec![file.clone()];
    let options = talkforge::fill::FillOptions::default();
    let report = talkforge::fill::fill_files(&files, &Counting, &databases_dir, options).unwrap();
    let filled: Vec<(usize, usize)> = report.filled.iter().map(|f| (f.turn, f.call)).collect();
    assert_eq!(filled, [(1, 0), (1, 1), (3, 1)]);
    let tickets: Vec<Value> = recorded(&file)[2..]
        .iter()
        .map(|(r, _)| r.clone())
        .collect();
    assert_eq!(tickets[0], json!({"ticket": 7}));
    assert!(tickets[1]["ticket"].is_i64());

    let databases = Counting.load_databases(&databases_dir).unwrap();
    let report =
        talkforge::verify::verify_files(&files, &Counting, &databases, &WorldOptions::default());
    assert_eq!(
        (report.calls, report.reproduced, report.differs.len()),
        (4, 2, 0)
    );
    let unchecked: Vec<(usize, usize, NotChecked)> = report
        .not_checked
        .iter()
        .map(|n| (n.turn, n.call, n.reason))
        .collect();
    assert_eq!(
        unchecked,
        [(3, 0, NotChecked::Random), (3, 1, NotChecked::Random)]
    );
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["not_checked"][0]["reason"], "random");
    assert_eq!(
        json["retrieval"][1],
        json!({"file": file.display().to_string(), "turn": 3, "call": 1, "recorded": "Ticket", "retriever": "Total"})
    );
}

/// A suite without a seeding rule refuses `fill --seed` instead of seeding
/// by another suite's rules.
#[test]
fn seeding_needs_the_suite_to_know_how() {
    let (_dir, databases_dir, file) = dataset();
    let options = talkforge::fill::FillOptions {
        check: false,
        seed: true,
        ..Default::default()
    };
    let err = talkforge::fill::fill_files(&[file], &Counting, &databases_dir, options).unwrap_err();
    assert!(
        err.to_string()
            .contains("the counting suite cannot seed databases"),
        "{err}"
    );
}
