//! A toy benchmark family defined here and nowhere else: "tally", two
//! tools over one table of counters, whose dialogues are a line format of
//! its own (`.toy`: `user: ...`, `call: Add {...} => {...}`,
//! `assistant: ...`) and, beside them, the model's JSON (`.toy.json`).
//! It is registered as a family is (one line in a registry) and every
//! command runs on it through the entry point the command line uses,
//! `cli::run_with`, given that registry.

mod eval_support;

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use talkforge::dialogue::{Conversation, GoldCall, Metadata, Place, Request, Role, Turn, User};
use talkforge::formats::write::Recorded;
use talkforge::formats::LoadedConversation;
use talkforge::sim::pyrandom::PyRandom;
use talkforge::sim::pytime::{strptime_str, TIMESTAMP};
use talkforge::sim::{Databases, Reply, RunFn, Tables, ToolCtx};
use talkforge::suite::format::{LintReading, Results};
use talkforge::suite::interactive::{Interactive, Reading, Rule, Scenario};
use talkforge::suite::{
    CallRef, Catalog, DatabaseFormat, Execution, FileFormat, FormatKind, Group, LintHelp,
    ParamSpec, ParamType, Registry, SessionEffect, Suite, TextSimilarity, ToolSpec, World,
    WorldOptions,
};

const COUNTERS: &str = "Counters";

static ADD: ToolSpec = ToolSpec {
    name: "Add",
    group: "Tally",
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
    group: "Tally",
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

fn same_arguments(prediction: CallRef<'_>, gold: &GoldCall, _: &dyn TextSimilarity) -> bool {
    prediction.exception == gold.exception.as_deref()
        && gold
            .request
            .parameters
            .iter()
            .all(|(k, v)| prediction.parameters.get(k) == Some(v))
}

fn catalog() -> &'static Catalog {
    static CATALOG: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
    CATALOG.get_or_init(|| {
        let group = Group {
            name: "Tally",
            description: "Counters.",
        };
        Catalog::new(vec![group], vec![&ADD, &TOTAL])
    })
}

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

#[derive(Clone)]
struct TallyWorld {
    tables: Tables,
    rng: PyRandom,
}

impl World for TallyWorld {
    fn execute(
        &mut self,
        api_name: &str,
        parameters: Map<String, Value>,
        _recorded: Option<&GoldCall>,
    ) -> Execution {
        let request = Request {
            api_name: api_name.to_string(),
            parameters,
        };
        let now = strptime_str("2024-01-01 00:00:00", TIMESTAMP).unwrap();
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

    fn tables(&self) -> Option<&Tables> {
        Some(&self.tables)
    }
}

// ---- The `.toy` format ----------------------------------------------------

/// What a call line records.
enum Outcome {
    Unrecorded,
    Returned(Value),
    Raised(String),
}

/// One line of a `.toy` file.
enum ToyLine {
    /// Blank, or a `#` comment.
    Other,
    User(String),
    Assistant(String),
    Call {
        name: String,
        arguments: Map<String, Value>,
        outcome: Outcome,
    },
}

fn toy_line(path: &Path, position: usize, line: &str) -> talkforge::Result<ToyLine> {
    let error = |column: usize, message: &str| {
        talkforge::Error::syntax(path, position + 1, column, message.to_string())
    };
    let trimmed = line.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(ToyLine::Other);
    }
    let Some((key, rest)) = trimmed.split_once(':') else {
        return Err(error(1, "expected `user:`, `assistant:` or `call:`"));
    };
    match key.trim() {
        "user" => Ok(ToyLine::User(rest.trim().to_string())),
        "assistant" => Ok(ToyLine::Assistant(rest.trim().to_string())),
        "call" => {
            let rest = rest.trim_start();
            let (name, after) = rest.split_once(' ').unwrap_or((rest, ""));
            let mut values = serde_json::Deserializer::from_str(after).into_iter::<Value>();
            let Some(Ok(Value::Object(arguments))) = values.next() else {
                return Err(error(1, "a call's arguments are one JSON object"));
            };
            let tail = after[values.byte_offset()..].trim();
            let outcome = if tail.is_empty() {
                Outcome::Unrecorded
            } else if let Some(result) = tail.strip_prefix("=>") {
                Outcome::Returned(
                    serde_json::from_str(result.trim())
                        .map_err(|_| error(1, "a result after `=>` is JSON"))?,
                )
            } else if let Some(exception) = tail.strip_prefix("!!") {
                Outcome::Raised(exception.trim().to_string())
            } else {
                return Err(error(
                    1,
                    "after the arguments: `=> RESULT` or `!! EXCEPTION`",
                ));
            };
            Ok(ToyLine::Call {
                name: name.to_string(),
                arguments,
                outcome,
            })
        }
        _ => Err(error(1, "expected `user:`, `assistant:` or `call:`")),
    }
}

/// A `.toy` file in the model: a turn a line, each call in an assistant
/// turn of its own, placed at its line.
fn parse_toy(path: &Path, text: &str) -> talkforge::Result<Conversation> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut turns = Vec::new();
    let mut apis_used: Vec<String> = Vec::new();
    let mut calls = 0;
    for (position, line) in text.split('\n').enumerate() {
        let turn = |role, text: String, apis| Turn {
            index: Some(position as u64),
            role,
            text,
            apis,
        };
        match toy_line(path, position, line)? {
            ToyLine::Other => {}
            ToyLine::User(text) => turns.push(turn(Role::User, text, None)),
            ToyLine::Assistant(text) => turns.push(turn(Role::Assistant, text, None)),
            ToyLine::Call {
                name,
                arguments,
                outcome,
            } => {
                if !apis_used.contains(&name) {
                    apis_used.push(name.clone());
                }
                let (response, exception) = match outcome {
                    Outcome::Unrecorded => (Value::Null, None),
                    Outcome::Returned(value) => (value, None),
                    Outcome::Raised(exception) => (Value::Null, Some(exception)),
                };
                let call = GoldCall {
                    request: Request {
                        api_name: name,
                        parameters: arguments,
                    },
                    response,
                    exception,
                    place: Some(Place {
                        turn: position,
                        call: calls,
                    }),
                };
                calls += 1;
                turns.push(turn(Role::Assistant, String::new(), Some(vec![call])));
            }
        }
    }
    Ok(Conversation {
        name: stem.clone(),
        conversation_id: stem,
        suites_used: vec!["Tally".into()],
        apis_used,
        scenario: None,
        user: User::default(),
        metadata: Metadata {
            timestamp: "2024-01-01 00:00:00".into(),
            ..Metadata::default()
        },
        conversation: turns,
        errata: Vec::new(),
    })
}

fn call_line(name: &str, arguments: &Map<String, Value>, outcome: &Outcome) -> String {
    let arguments = serde_json::to_string(arguments).unwrap();
    match outcome {
        Outcome::Unrecorded => format!("call: {name} {arguments}"),
        Outcome::Returned(value) => format!("call: {name} {arguments} => {value}"),
        Outcome::Raised(exception) => format!("call: {name} {arguments} !! {exception}"),
    }
}

/// `fmt`: one space after each key, compact JSON, a final newline.
fn canonical_toy(path: &Path, text: &str) -> talkforge::Result<String> {
    let mut lines = Vec::new();
    for (position, line) in text.trim_end_matches('\n').split('\n').enumerate() {
        lines.push(match toy_line(path, position, line)? {
            ToyLine::Other => line.trim().to_string(),
            ToyLine::User(text) => format!("user: {text}"),
            ToyLine::Assistant(text) => format!("assistant: {text}"),
            ToyLine::Call {
                name,
                arguments,
                outcome,
            } => call_line(&name, &arguments, &outcome),
        });
    }
    Ok(lines.join("\n") + "\n")
}

fn load_toy(path: &Path) -> talkforge::Result<LoadedConversation> {
    let text = talkforge::formats::read::read_text(path)?;
    let conversation = parse_toy(path, &text)?;
    let unrecorded = text
        .split('\n')
        .enumerate()
        .filter_map(|(position, line)| match toy_line(path, position, line) {
            Ok(ToyLine::Call {
                outcome: Outcome::Unrecorded,
                ..
            }) => Some(position),
            _ => None,
        })
        .filter_map(|position| {
            conversation.gold_calls().find_map(|(turn, call, gold)| {
                (gold.place(turn, call).turn == position).then_some((turn, call))
            })
        })
        .collect();
    Ok(LoadedConversation {
        path: path.to_path_buf(),
        text,
        conversation,
        unrecorded,
    })
}

/// `fill`: each recorded call's line written again with its new outcome.
fn record_toy(loaded: &LoadedConversation, results: &[Recorded]) -> talkforge::Result<String> {
    let mut lines: Vec<String> = loaded.text.split('\n').map(str::to_string).collect();
    for recorded in results {
        let gold = &loaded.conversation.conversation[recorded.turn].calls()[recorded.call];
        let position = gold.place(recorded.turn, recorded.call).turn;
        let outcome = match &recorded.exception {
            Some(exception) => Outcome::Raised(exception.clone()),
            None => Outcome::Returned(recorded.response.clone()),
        };
        lines[position] = call_line(&gold.request.api_name, &gold.request.parameters, &outcome);
    }
    Ok(lines.join("\n"))
}

/// `lint`: the dialogue lines of the file, each on its source's line.
fn toy_lines(path: &Path, text: &str) -> talkforge::Result<String> {
    let mut lines = Vec::new();
    for (position, line) in text.split('\n').enumerate() {
        lines.push(match toy_line(path, position, line)? {
            ToyLine::Other => String::new(),
            ToyLine::User(text) => json!({"role": "User", "text": text}).to_string(),
            ToyLine::Assistant(text) => json!({"role": "AI", "text": text}).to_string(),
            ToyLine::Call {
                name,
                arguments,
                outcome,
            } => {
                let (output, exception) = match outcome {
                    Outcome::Unrecorded => (Value::Null, None),
                    Outcome::Returned(value) => (value, None),
                    Outcome::Raised(exception) => (Value::Null, Some(exception)),
                };
                json!({"role": "API", "api_name": name, "param_dict": arguments,
                       "result": {"api_name": name, "input": arguments,
                                  "output": output, "exception": exception}})
                .to_string()
            }
        });
    }
    Ok(lines.join("\n"))
}

static TOY: FileFormat = FileFormat {
    name: "tally-dialogue",
    kind: FormatKind::Dialogues,
    endings: &["toy"],
    names: &[],
    schema: None,
    parse: parse_toy,
    many: None,
    canonical: canonical_toy,
    load: load_toy,
    results: Results::Recorded(record_toy),
    lint: LintReading::LinesFrom(toy_lines),
};

/// The same dialogues in the model's JSON, from the shared implementations.
static TOY_JSON: FileFormat = FileFormat {
    name: "tally-json",
    kind: FormatKind::Dialogues,
    endings: &["toy.json"],
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

// ---- Its scenarios for a simulated user --------------------------------------

/// A task for a simulated user (`.task.toy`): the toy line format, with
/// `knows:` lines for what the user tells when asked; its calls are the
/// goals, recording no result.
static TOY_TASK: FileFormat = FileFormat {
    name: "tally-task",
    kind: FormatKind::Scenarios,
    endings: &["task.toy"],
    names: &[],
    schema: None,
    parse: parse_task,
    many: None,
    canonical: |_, text| Ok(text.to_string()),
    load: |path| talkforge::suite::format::load_unrecorded(path, parse_task),
    results: Results::NotRecorded("a task's calls are its goals"),
    lint: LintReading::LinesFrom(|path, text| toy_lines(path, &without_knows(text))),
};

/// A task's text with its `knows:` lines blanked (their line numbers kept).
fn without_knows(text: &str) -> String {
    text.split('\n')
        .map(|line| if line.starts_with("knows:") { "" } else { line })
        .collect::<Vec<_>>()
        .join("\n")
}

fn parse_task(path: &Path, text: &str) -> talkforge::Result<Conversation> {
    parse_toy(path, &without_knows(text))
}

/// The toy's conversations with a user, selected by `--level 2`.
struct TallyTasks;

impl Interactive for TallyTasks {
    fn level(&self) -> u8 {
        2
    }
    fn family(&self) -> &'static str {
        "Tally"
    }
    fn read(&self, path: &Path, text: &str, databases: &Databases) -> talkforge::Result<Scenario> {
        let conversation = parse_task(path, text)?;
        talkforge::suite::missing_database(catalog(), databases, &conversation)
            .map_err(|m| talkforge::Error::input(path, m))?;
        let knows = text
            .lines()
            .filter_map(|l| l.strip_prefix("knows:"))
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n");
        Ok(Scenario {
            name: conversation.name.clone(),
            scene: conversation.name.clone(),
            first_utterance: conversation
                .conversation
                .first()
                .map(|t| t.text.clone())
                .unwrap_or_default(),
            knows,
            dialogue: conversation,
        })
    }
    fn prompts(&self) -> [(&'static str, &'static str); 2] {
        [
            ("toy-assistant", ASSISTANT_PROMPT),
            ("toy-user", USER_PROMPT),
        ]
    }
    fn user_prompt(&self, scenario: &Scenario) -> Result<String, String> {
        Ok(format!("{USER_PROMPT} You know: {}", scenario.knows))
    }
    fn call_text(&self, call: &Request) -> String {
        let arguments = serde_json::to_string(&call.parameters).unwrap();
        format!("call {} {arguments}", call.api_name)
    }
    fn read_message(&self, text: &str) -> Reading {
        let Some(rest) = text.trim().strip_prefix("call ") else {
            return Reading::Speech;
        };
        let (name, arguments) = rest.split_once(' ').unwrap_or((rest, ""));
        match serde_json::from_str(arguments) {
            Ok(Value::Object(arguments)) => Reading::Call {
                api_name: name.to_string(),
                arguments,
            },
            _ => Reading::Unreadable(format!("the arguments of {name} are no JSON object")),
        }
    }
    fn result_text(&self, executed: &Execution) -> String {
        match &executed.exception {
            Some(e) => format!("error: {e}"),
            None => executed.response.clone().into_value().to_string(),
        }
    }
    /// The same tool with the same arguments.
    fn matches(&self, made: &Execution, gold: &Execution) -> Option<Rule> {
        (made.request == gold.request).then_some(Rule::EqualArguments)
    }
}

const ASSISTANT_PROMPT: &str = "You keep counters. Call a tool as `call NAME {JSON}`.";
const USER_PROMPT: &str = "You are a user of a counter keeper.";

struct Tally;

impl Suite for Tally {
    fn name(&self) -> &'static str {
        "tally"
    }
    fn catalog(&self) -> &'static Catalog {
        catalog()
    }
    fn formats(&self) -> &'static [&'static FileFormat] {
        static FORMATS: [&FileFormat; 3] = [&TOY, &TOY_JSON, &TOY_TASK];
        &FORMATS
    }
    fn database_format(&self) -> &'static DatabaseFormat {
        &DATABASES
    }
    fn default_databases(&self) -> &'static str {
        "tally-databases"
    }
    fn lint_help(&self) -> &'static LintHelp {
        &LintHelp {
            unknown_tool: "the tally suite has Add and Total",
            no_session: "",
            open_session: "",
            credential_source: "",
        }
    }
    fn load_databases(&self, dir: &Path) -> talkforge::Result<Databases> {
        Databases::load(dir)
    }
    fn interactive(&self) -> Option<&'static dyn Interactive> {
        Some(&TallyTasks)
    }
    fn evaluation(&self) -> talkforge::suite::Evaluation {
        // Until the evaluation layer is one: ToolTalk's algorithms are
        // written against the seam.
        talkforge::suite::Evaluation::Conversations
    }
    fn world(
        &self,
        databases: &Databases,
        dialogue: &Conversation,
        _options: &WorldOptions,
    ) -> Result<Box<dyn World>, String> {
        talkforge::suite::missing_database(catalog(), databases, dialogue)?;
        Ok(Box::new(TallyWorld {
            tables: databases.tables(),
            rng: PyRandom::for_tool(),
        }))
    }
}

// ---- Registered and run as the command line runs ---------------------------

/// The default families and the toy, one line each.
fn registry() -> Registry {
    let mut suites = talkforge::suites::registry().suites().to_vec();
    suites.push(&Tally);
    Registry::new(suites)
}

/// A command line's exit status and what it printed.
fn run(args: &[&str]) -> (u8, String) {
    let mut out = Vec::new();
    let args = std::iter::once("talkforge").chain(args.iter().copied());
    let code = talkforge::cli::run_with(&registry(), args, &mut out);
    (code, String::from_utf8(out).unwrap())
}

fn run_json(args: &[&str]) -> (u8, Value) {
    let (code, out) = run(args);
    let value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    (code, value)
}

const DIALOGUE: &str = "\
# Three apples added, then the totals.
user: Add 3 apples, then tell me how many apples and pears there are.
call: Add {\"counter\": \"apples\", \"amount\": 3}
call: Total {\"counter\": \"apples\"}
call: Total {\"counter\": \"pears\"}
assistant: You have 5 apples and no pear counter.
";

/// A repository: `conversations/` with one dialogue, `tally-databases/`.
fn repository() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let databases = dir.path().join("tally-databases");
    std::fs::create_dir(&databases).unwrap();
    std::fs::write(databases.join("Counters.json"), r#"{"apples": 2}"#).unwrap();
    let conversations = dir.path().join("conversations");
    std::fs::create_dir(&conversations).unwrap();
    let file = conversations.join("apples.toy");
    std::fs::write(&file, DIALOGUE).unwrap();
    (dir, file)
}

fn text(path: &Path) -> &'static str {
    std::fs::read_to_string(path).unwrap().leak()
}

#[test]
fn the_longest_ending_among_every_registered_format_wins() {
    let registry = registry();
    let found = |name: &str| {
        registry
            .for_path(Path::new(name), None)
            .map(|(suite, format)| (suite.name(), format.name))
    };
    assert_eq!(found("a/x.toy"), Some(("tally", "tally-dialogue")));
    assert_eq!(found("a/x.toy.json"), Some(("tally", "tally-json")));
    assert_eq!(found("a/X.TOY.JSON"), Some(("tally", "tally-json")));
    assert_eq!(
        found("a/x.json"),
        Some(("tooltalk", "tooltalk-conversation"))
    );
    assert_eq!(
        found("a/x.lv3.json"),
        Some(("apibank", "apibank-level3-scenario"))
    );
    assert_eq!(found("a/x.jsonl"), Some(("apibank", "apibank-dialogue")));
    assert_eq!(found("a/x.yaml"), None);
    // Forced, a file is read by the suite's format that fits it, else
    // its first.
    let forced = |name: &str| {
        registry
            .for_path(Path::new(name), Some(&Tally))
            .map(|(_, format)| format.name)
    };
    assert_eq!(forced("x.toy.json"), Some("tally-json"));
    assert_eq!(forced("x.json"), Some("tally-dialogue"));
}

#[test]
fn fill_writes_results_in_the_toy_format_and_verify_reproduces_them() {
    let (dir, file) = repository();
    let databases = dir.path().join("tally-databases");
    let databases = databases.to_str().unwrap();
    let path = file.to_str().unwrap();

    let (code, report) = run_json(&["fill", path, "--databases", databases, "--format", "json"]);
    assert_eq!(code, 0);
    assert_eq!(
        (report["files"].clone(), report["calls"].clone()),
        (json!(1), json!(3))
    );
    assert_eq!(report["changed_files"], json!([path]));
    let filled: Vec<(Value, Value, Value)> = report["filled"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["turn"].clone(), f["call"].clone(), f["api_name"].clone()))
        .collect();
    // Places are the file's lines (0-based) and the calls' order.
    assert_eq!(
        filled,
        [
            (json!(2), json!(0), json!("Add")),
            (json!(3), json!(1), json!("Total")),
            (json!(4), json!(2), json!("Total")),
        ]
    );
    assert_eq!(
        text(&file),
        "\
# Three apples added, then the totals.
user: Add 3 apples, then tell me how many apples and pears there are.
call: Add {\"counter\":\"apples\",\"amount\":3} => {\"total\":5}
call: Total {\"counter\":\"apples\"} => {\"total\":5}
call: Total {\"counter\":\"pears\"} !! Counter pears not found.
assistant: You have 5 apples and no pear counter.
"
    );

    let (code, report) = run_json(&["verify", path, "--databases", databases, "--format", "json"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        (report["calls"].clone(), report["reproduced"].clone()),
        (json!(3), json!(3))
    );

    // A hand-edited recording differs, at its line.
    std::fs::write(
        &file,
        text(&file).replacen("=> {\"total\":5}", "=> {\"total\":6}", 1),
    )
    .unwrap();
    let (code, report) = run_json(&["verify", path, "--databases", databases, "--format", "json"]);
    assert_eq!(code, 1);
    assert_eq!(report["reproduced"], 2);
    assert_eq!(report["differs"][0]["turn"], 2);
    assert_eq!(report["differs"][0]["api_name"], "Add");

    // fill --check names what it would write back, and writes nothing.
    let before = text(&file);
    let (code, report) = run_json(&[
        "fill",
        path,
        "--databases",
        databases,
        "--check",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    assert_eq!(report["written"], false);
    assert_eq!(report["filled"].as_array().unwrap().len(), 1);
    assert_eq!(text(&file), before);
}

#[test]
fn fmt_lays_out_a_toy_dialogue_and_its_check_passes_after() {
    let (_dir, file) = repository();
    let path = file.to_str().unwrap();
    std::fs::write(
        &file,
        "user:    Add 3 apples.   \ncall:Add {\"counter\" : \"apples\",  \"amount\":3}\n\n# done\nassistant: Done.",
    )
    .unwrap();
    let (code, out) = run(&["fmt", "--check", path]);
    assert_eq!(
        (code, out.trim()),
        (1, format!("would reformat {path}").as_str())
    );
    let (code, out) = run(&["fmt", path]);
    assert_eq!(
        (code, out.trim()),
        (0, format!("reformatted {path}").as_str())
    );
    assert_eq!(
        text(&file),
        "user: Add 3 apples.\ncall: Add {\"counter\":\"apples\",\"amount\":3}\n\n# done\nassistant: Done.\n"
    );
    assert_eq!(run(&["fmt", "--check", path]), (0, String::new()));

    // What the reader refuses is not laid out: an error at its line.
    std::fs::write(&file, "user: hi\nsay: what?\n").unwrap();
    let (code, _) = run(&["fmt", path]);
    assert_eq!(code, 2);
    assert_eq!(text(&file), "user: hi\nsay: what?\n");
}

#[test]
fn lint_reads_the_toy_format_with_its_own_catalog_and_places_findings_at_its_lines() {
    let (_dir, file) = repository();
    let path = file.to_str().unwrap();
    let (code, report) = run_json(&["lint", path, "--format", "json"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["files"], 1);
    assert_eq!(report["errors"], 0, "{report}");

    // A tool the toy catalog lacks, and an argument it does not take, each
    // at its own line of the .toy file, with the toy suite's help.
    std::fs::write(
        &file,
        DIALOGUE
            .replace(
                "call: Total {\"counter\": \"apples\"}",
                "call: Subtract {\"counter\": \"apples\"}",
            )
            .replace("\"amount\": 3}", "\"amount\": 3, \"colour\": \"red\"}"),
    )
    .unwrap();
    let (code, report) = run_json(&["lint", path, "--format", "json"]);
    assert_eq!(code, 1, "{report}");
    let findings = report["findings"].as_array().unwrap();
    let at = |rule: &str| {
        findings
            .iter()
            .find(|f| f["rule"] == rule)
            .unwrap_or_else(|| panic!("no {rule} in {report}"))
    };
    assert_eq!(
        (
            at("unknown-tool")["line"].clone(),
            at("unknown-tool")["file"].clone()
        ),
        (json!(4), json!(path))
    );
    assert!(
        at("unknown-tool")["help"]
            .as_str()
            .unwrap()
            .contains("tally suite"),
        "{report}"
    );
    assert_eq!(at("unknown-argument")["line"], 3);
    assert_eq!(at("unknown-argument")["argument"], "colour");

    // A ToolTalk conversation beside it is linted with ToolTalk's catalog:
    // each file with its own suite.
    let tooltalk = file.with_file_name("talk.json");
    let conversation = json!({"name": "t", "conversation_id": "t", "user": {},
        "metadata": {"timestamp": "2023-09-11 09:00:00"},
        "conversation": [{"index": 0, "role": "user", "text": "Add 3 apples."},
            {"index": 1, "role": "assistant", "text": "Done.", "apis": [
                {"request": {"api_name": "Add", "parameters": {"counter": "apples", "amount": 3}},
                 "response": {"total": 5}, "exception": null}]}]});
    std::fs::write(
        &tooltalk,
        serde_json::to_string_pretty(&conversation).unwrap(),
    )
    .unwrap();
    let folder = file.parent().unwrap().to_str().unwrap();
    let (_, report) = run_json(&[
        "lint",
        folder,
        "--format",
        "json",
        "--select",
        "unknown-tool",
    ]);
    assert_eq!(report["files"], 2);
    let unknown: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["file"]
                    .as_str()
                    .unwrap()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(unknown.len(), 2, "{unknown:?}");
    assert_eq!(unknown[0].0, "apples.toy");
    assert!(unknown[0].1.contains("Subtract"), "{unknown:?}");
    assert_eq!(unknown[1].0, "talk.json");
    assert!(unknown[1].1.contains("Add"), "{unknown:?}");

    // --suite (alias --input-format) takes a registered suite's name.
    let (code, report) = run_json(&["lint", path, "--input-format", "tally", "--format", "json"]);
    assert_eq!((code, report["files"].clone()), (1, json!(1)));
    assert_eq!(run(&["lint", path, "--suite", "nonesuch"]).0, 2);
}

#[test]
fn stats_and_check_count_the_toy_dialogues() {
    let (dir, file) = repository();
    let root = dir.path().to_str().unwrap();
    let databases = dir.path().join("tally-databases");
    run(&[
        "fill",
        file.to_str().unwrap(),
        "--databases",
        databases.to_str().unwrap(),
    ]);
    // A dialogue in the suite's other format, the model's JSON, its
    // results left for fill to record.
    let json_file = file.with_file_name("pears.toy.json");
    let call = |api: &str, parameters: Value| json!({"request": {"api_name": api, "parameters": parameters}});
    let conversation = json!({"name": "pears", "conversation_id": "pears",
        "suites_used": ["Tally"], "apis_used": ["Add", "Total"], "user": {},
        "metadata": {"timestamp": "2024-01-01 00:00:00"},
        "conversation": [
            {"index": 0, "role": "user", "text": "Add 4 pears, then tell me how many pears and plums."},
            {"index": 1, "role": "assistant", "text": "4 pears, no plums.", "apis": [
                call("Add", json!({"counter": "pears", "amount": 4})),
                call("Total", json!({"counter": "pears"})),
                call("Total", json!({"counter": "plums"}))]}]});
    std::fs::write(
        &json_file,
        serde_json::to_string_pretty(&conversation).unwrap(),
    )
    .unwrap();
    let (code, report) = run_json(&[
        "fill",
        json_file.to_str().unwrap(),
        "--databases",
        databases.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(
        (code, report["filled"].as_array().unwrap().len()),
        (0, 3),
        "{report}"
    );

    let folder = file.parent().unwrap().to_str().unwrap();
    let (code, stats) = run_json(&["stats", folder, "--format", "json"]);
    assert_eq!(code, 0, "{stats}");
    assert_eq!(
        (stats["conversations"].clone(), stats["gold_calls"].clone()),
        (json!(2), json!(6))
    );
    assert_eq!(stats["by_tool"], json!({"Add": 2, "Total": 4}));

    let (code, report) = run_json(&["check", "--root", root, "--format", "json"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["outcome"], "passed");
    let steps: Vec<&str> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(
        steps.contains(&"lint") && steps.contains(&"verify"),
        "{steps:?}"
    );
    assert_eq!(report["stats"]["conversations"], 2);

    // One databases folder serves one suite: verify refuses a ToolTalk
    // file among the toy's; stats counts it apart (and cannot read it);
    // check runs it as ToolTalk's, whose databases this repository lacks.
    std::fs::write(file.with_file_name("talk.json"), "{}").unwrap();
    assert_eq!(run(&["verify", folder]).0, 2);
    let (code, out) = run(&["stats", folder, "--format", "json"]);
    assert_eq!(code, 2, "{out}");
    let (code, report) = run_json(&["check", "--root", root, "--format", "json"]);
    assert_eq!(code, 2, "{report}");
    assert_eq!(report["stats_by_suite"]["tally"]["conversations"], 2);
    // Forced, every file is read as the toy suite's.
    let (code, _) = run(&["stats", file.to_str().unwrap(), "--suite", "tally"]);
    assert_eq!(code, 0);
}

#[test]
fn tools_lists_the_toy_catalog_and_unknown_suites_are_usage_errors() {
    let (code, doc) = run_json(&["tools", "--suite", "tally", "--format", "json"]);
    assert_eq!(code, 0);
    let names: Vec<&str> = doc["plugins"][0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Add", "Total"]);
    // The default registry does not know the toy.
    let mut out = Vec::new();
    let code = talkforge::cli::run_with(
        &talkforge::suites::registry(),
        ["talkforge", "tools", "--suite", "tally"],
        &mut out,
    );
    assert_eq!((code, out.len()), (2, 0));
}

// ---- Evaluated, and the runs compared --------------------------------------

const TASK: &str = "\
knows: the counter is apples, and the amount is 3
user: Please add to my counter.
call: Add {\"counter\": \"apples\", \"amount\": 3}
";

/// A repository with a task and a dialogue, and its databases folder.
fn evaluation_repository() -> (tempfile::TempDir, String, String, String) {
    let (dir, dialogue) = repository();
    let tasks = dir.path().join("tasks");
    std::fs::create_dir(&tasks).unwrap();
    std::fs::write(tasks.join("apples.task.toy"), TASK).unwrap();
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let databases = path(&dir.path().join("tally-databases"));
    let (tasks, dialogue) = (path(&tasks), path(&dialogue));
    // The dialogue's results recorded, as a maintainer records them.
    let (code, filled) = run(&["fill", &dialogue, "--databases", &databases]);
    assert_eq!(code, 0, "{filled}");
    (dir, tasks, dialogue, databases)
}

/// A report over `runs` in every format: the JSON document, the
/// Markdown and the HTML.
fn reports(runs: &[&str]) -> (Value, String, String) {
    let with = |format: &str| {
        let mut args = vec!["report"];
        args.extend(runs);
        args.extend(["--format", format]);
        let (code, text) = run(&args);
        assert_eq!(code, 0, "report --format {format}: {text}");
        text
    };
    let json = serde_json::from_str(&with("json")).unwrap();
    (json, with("markdown"), with("html"))
}

#[test]
fn a_simulated_user_talks_with_the_oracle_and_with_a_model_over_a_toy_task() {
    let (dir, tasks, _, databases) = evaluation_repository();
    let out = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let common = [
        "--level",
        "2",
        "--databases",
        &databases,
        "--format",
        "json",
    ];

    let oracle_out = out("oracle");
    let mut args = vec![
        "evaluate",
        &tasks,
        "--predictor",
        "oracle",
        "--out",
        &oracle_out,
    ];
    args.extend(common);
    let (code, oracle) = run_json(&args);
    assert_eq!(code, 0, "{oracle}");
    assert_eq!(oracle["suite"], "tally");
    assert_eq!(oracle["level"], 2);
    assert_eq!(
        (oracle["scenarios"].as_u64(), oracle["completed"].as_u64()),
        (Some(1), Some(1))
    );
    let scenario = &oracle["per_scenario"][0];
    assert_eq!(scenario["turns"], 1);
    assert_eq!(scenario["made"][0]["line"], 3);
    assert_eq!(scenario["state_check"]["collateral"], 0);
    let transcript: Value = serde_json::from_str(text(
        &dir.path().join("oracle/transcripts/apples.task.toy.json"),
    ))
    .unwrap();
    assert_eq!(
        transcript["outcome"]["transcript"][1]["text"],
        r#"call Add {"counter":"apples","amount":3}"#
    );

    // A model plays the assistant, another the user, on a stub server.
    let stub = eval_support::Stub::start(Box::new(|_: &str, body: &Value, _| {
        let messages = body["messages"].as_array().unwrap();
        let system = messages[0]["content"].as_str().unwrap_or_default();
        let last = messages.last().unwrap()["content"]
            .as_str()
            .unwrap_or_default();
        let answer = if system.starts_with(ASSISTANT_PROMPT) {
            if last.contains("apples, 3") {
                r#"call Add {"counter": "apples", "amount": 3}"#
            } else {
                "Which counter, and how much?"
            }
        } else {
            "apples, 3"
        };
        (200, eval_support::text_answer(answer))
    }));
    let model_out = out("model");
    let mut args = vec![
        "evaluate",
        &tasks,
        "--predictor",
        "openai",
        "--model",
        "keeper",
        "--user-model",
        "asker",
        "--base-url",
        &stub.url,
        "--no-cache",
        "--out",
        &model_out,
    ];
    args.extend(common);
    let (code, model) = run_json(&args);
    assert_eq!(code, 0, "{model}");
    assert_eq!(model["per_scenario"][0]["turns"], 2);
    assert_eq!(model["user"], "llm:asker");
    let roles: Vec<&str> = model["usage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["assistant", "user"]);
    // assistant (question), user, assistant (call): three requests.
    assert_eq!(stub.requests().len(), 3);

    let (json, markdown, html) = reports(&[&oracle_out, &model_out]);
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert!(
        runs.iter()
            .all(|r| r["evaluated"] == 1 && r["not_evaluated"] == 0),
        "{json}"
    );
    assert!(markdown.contains("tally"), "{markdown}");
    assert!(
        html.starts_with("<!DOCTYPE html>") || html.contains("<html"),
        "{html}"
    );
}

#[test]
fn the_toy_dialogues_are_evaluated_with_the_oracle_a_replay_and_a_model() {
    let (dir, _, dialogue, databases) = evaluation_repository();
    let out = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let common = ["--databases", &databases, "--format", "json"];

    let oracle_out = out("oracle");
    let mut args = vec![
        "evaluate",
        &dialogue,
        "--predictor",
        "oracle",
        "--out",
        &oracle_out,
    ];
    args.extend(common);
    let (code, oracle) = run_json(&args);
    assert_eq!(code, 0, "{oracle}");
    assert_eq!(
        (
            oracle["conversations"].as_u64(),
            oracle["successes"].as_u64()
        ),
        (Some(1), Some(1))
    );
    assert_eq!(oracle["recall"], 1.0);

    // The model's turns, by the toy's own turn positions: the first call
    // is right, the second and third never made, so the run fails.
    let predictions = dir.path().join("predictions.jsonl");
    std::fs::write(
        &predictions,
        concat!(
            r#"{"conversation_id": "apples", "turn": 1, "predictions": [{"role": "api", "request": {"api_name": "Add", "parameters": {"counter": "apples", "amount": 3}}}]}"#,
            "\n",
            r#"{"conversation_id": "apples", "turn": 4, "predictions": [{"role": "assistant", "text": "Done."}]}"#,
            "\n"
        ),
    )
    .unwrap();
    let replay_out = out("replay");
    let predictions = predictions.to_str().unwrap();
    let mut args = vec![
        "evaluate",
        &dialogue,
        "--predictor",
        "replay",
        "--predictions",
        predictions,
        "--out",
        &replay_out,
    ];
    args.extend(common);
    let (code, replay) = run_json(&args);
    assert_eq!(code, 1, "{replay}");
    assert_eq!(
        (replay["matches"].as_u64(), replay["ground_truths"].as_u64()),
        (Some(1), Some(3))
    );

    // A model on a stub server that never calls a tool.
    let stub = eval_support::Stub::start(Box::new(|_: &str, _: &Value, _| {
        (200, eval_support::text_answer("Nothing to do."))
    }));
    let mut args = vec![
        "evaluate",
        &dialogue,
        "--predictor",
        "openai",
        "--model",
        "keeper",
        "--base-url",
        &stub.url,
        "--no-cache",
    ];
    args.extend(common);
    let (code, model) = run_json(&args);
    assert_eq!(code, 1, "{model}");
    assert_eq!(model["predictions"], 0);
    assert!(!stub.requests().is_empty());
    let prompt = stub.requests()[0].body["tools"].to_string();
    assert!(
        prompt.contains("Adds an amount to a named counter."),
        "{prompt}"
    );

    let (json, markdown, html) = reports(&[&oracle_out, &replay_out]);
    assert_eq!(json["runs"].as_array().unwrap().len(), 2, "{json}");
    assert!(markdown.contains("apples"), "{markdown}");
    assert!(html.contains("apples"), "{html}");
}
