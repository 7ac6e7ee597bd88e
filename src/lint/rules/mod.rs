//! One rule per file. Each declares its stable name, default severity and
//! documentation with `declare_rule!`, and is listed in `registry.rs`.

pub mod argument_type;
pub mod auth_order;
pub mod communicate_not_in_output;
pub mod db_unchanged_by_raise;
pub mod duplicate_id;
pub mod duplicate_task;
pub mod ends_on_user_turn;
pub mod metadata_mismatch;
pub mod missing_argument;
pub mod placeholder_text;
pub mod scenario_missing_required_tool;
pub mod scenario_unknown_tool;
pub mod schema;
pub mod session_token;
pub mod shared_gold;
pub mod timestamp_out_of_range;
pub mod turn_order;
pub mod unknown_argument;
pub mod unknown_id;
pub mod unknown_tool;
pub mod unreachable_argument;
pub mod username_mismatch;
pub mod write_without_effect;

/// Helpers for the rules' unit tests: small documents built in memory.
#[cfg(test)]
pub(crate) mod testing {
    use std::path::Path;

    use serde_json::{json, Value};

    use crate::lint::document::{Document, InputFormat, Reading};
    use crate::lint::registry::{Check, FileIds, FileInput, Rule};
    use crate::lint::view::{CallTrees, View};
    use crate::lint::Diagnostic;

    /// Run a per-file rule over a file's text; `name` gives the
    /// extension (".jsonl" reads as API-Bank).
    pub fn run(rule: &Rule, name: &str, text: &str) -> Vec<Diagnostic> {
        run_with_dates(rule, name, text, None)
    }

    /// [`run`] with the dates the suite's databases hold.
    pub fn run_with_dates(
        rule: &Rule,
        name: &str,
        text: &str,
        date_range: Option<crate::suite::DateRange>,
    ) -> Vec<Diagnostic> {
        let registry = crate::suites::registry();
        let reading = Reading::of(&registry, Path::new(name), InputFormat::Auto);
        let document = Document::parse(Path::new(name), text, reading.format.lint, true)
            .expect("the test document reads");
        let suite = reading.suite_of(&registry, &document);
        let conversation = FileInput::conversation_of(&document);
        let trees = conversation.map(CallTrees::of);
        let view = View::of(
            &document,
            suite,
            reading.format.records_results(),
            conversation.zip(trees.as_ref()),
        );
        let input = FileInput {
            suite,
            document: &document,
            conversation,
            view: view.as_ref(),
            date_range,
        };
        let mut out = Vec::new();
        match rule.check {
            Check::File(check) => check(&input, &mut out),
            Check::Dataset(_) => panic!("{} looks across files", rule.name),
        }
        out
    }

    /// Run a rule over a conversation built by [`conversation`].
    pub fn run_on(rule: &Rule, conversation: &Value) -> Vec<Diagnostic> {
        run(
            rule,
            "c.json",
            &serde_json::to_string_pretty(conversation).unwrap(),
        )
    }

    /// A turn: role, text and calls (tool, arguments, result).
    pub type Turn<'a> = (&'a str, &'a str, Vec<(&'a str, Value, Value)>);

    /// A logged-in ToolTalk conversation ("now" is Monday 2023-09-11
    /// 09:00) with these turns; turns given as (role, text, calls), calls
    /// as (tool, arguments, result).
    pub fn conversation(turns: &[Turn<'_>]) -> Value {
        let turns: Vec<Value> = turns
            .iter()
            .enumerate()
            .map(|(i, (role, text, calls))| {
                let mut turn = json!({"index": i, "role": role, "text": text});
                if !calls.is_empty() {
                    turn["apis"] = calls
                        .iter()
                        .map(|(tool, arguments, result)| {
                            json!({
                                "request": {"api_name": tool, "parameters": arguments},
                                "response": result,
                                "exception": null,
                            })
                        })
                        .collect();
                }
                turn
            })
            .collect();
        let tooltalk = crate::suites::registry().by_name("tooltalk").unwrap();
        let mut apis: Vec<&str> = Vec::new();
        let mut suites: Vec<&str> = Vec::new();
        for turn in &turns {
            for call in turn["apis"].as_array().into_iter().flatten() {
                let name = call["request"]["api_name"].as_str().unwrap();
                let tool = tooltalk.catalog().tool(name);
                let name: &'static str = tool.map_or("", |t| t.name);
                if !name.is_empty() && !apis.contains(&name) {
                    apis.push(name);
                    let suite = tool.unwrap().group;
                    if !suites.contains(&suite) {
                        suites.push(suite);
                    }
                }
            }
        }
        json!({
            "name": "test",
            "conversation_id": "test-id",
            "suites_used": suites,
            "apis_used": apis,
            "user": {"username": "jdoe", "email": "jdoe@example.com", "phone": "555-010-0199",
                     "name": "Jo Doe", "password": "pw", "session_token": "tok-1"},
            "metadata": {"location": "Seattle", "timestamp": "2023-09-11 09:00:00",
                         "session_token": "tok-1", "username": "jdoe"},
            "conversation": turns,
        })
    }

    /// API-Bank lines, one JSON object each.
    pub fn dialogue(lines: &[Value]) -> String {
        lines.iter().map(|l| format!("{l}\n")).collect::<String>()
    }

    /// An API line with its result.
    pub fn api(name: &str, params: Value, output: Value) -> Value {
        json!({"role": "API", "api_name": name, "param_dict": params,
               "result": {"api_name": name, "input": params, "output": output, "exception": null}})
    }

    /// A scenario pool for `required` whose scenarios are (tools, accepted).
    pub fn pool(required: &str, scenarios: &[(&[&str], bool)]) -> String {
        let scenarios: Vec<Value> = scenarios
            .iter()
            .map(|(tools, accepted)| {
                let text = format!("Someone does things ({}).", tools.join(" + "));
                json!({"text": text, "tools": tools, "accepted": accepted, "reasons": []})
            })
            .collect();
        json!({
            "name": format!("Alarm-Calendar-Email-{required}"),
            "plugins": ["Alarm", "Calendar", "Email"],
            "required_tool": required,
            "model": "test",
            "prompt_sha256": "0",
            "raw_reply": "",
            "scenarios": scenarios,
        })
        .to_string()
    }

    /// The ids a dataset rule sees for files claiming these (id, name).
    pub fn ids(files: &[(&str, &str)]) -> Vec<FileIds> {
        files
            .iter()
            .enumerate()
            .map(|(i, (id, name))| FileIds {
                file: i,
                path: format!("f{i}.json"),
                ids: vec![
                    (
                        "conversation_id",
                        (*id).to_owned(),
                        "/conversation_id".into(),
                    ),
                    ("name", (*name).to_owned(), "/name".into()),
                ],
                places: Vec::new(),
            })
            .collect()
    }
}
