use std::sync::OnceLock;

use crate::dialogue::Conversation;
use crate::json::tree::Json;
use crate::lint::document::{Document, JsonFile};
use crate::lint::registry::{Check, FileInput};
use crate::lint::{Anchor, Diagnostic};
use crate::schema::SchemaKind;

crate::declare_rule! {
    /// Finds files whose structure does not match the project's schemas: a
    /// missing field, a wrong type, an unknown role. For API-Bank dialogues,
    /// every line must be a `User`/`AI` utterance with a `text`, or an `API`
    /// line with `api_name`, `param_dict` and `result`; an empty dialogue is
    /// reported too.
    ///
    /// ## Why
    /// Every other rule, `verify` and `evaluate` read these fields. A file of
    /// the wrong shape is either skipped or misread by them; this rule says
    /// where the shape breaks (JSON pointer, line and column).
    ///
    /// ## Example
    /// ```json
    /// {"index": 0, "role": "customer", "text": "Hi"}
    /// ```
    /// `role` must be `user` or `assistant`.
    name: "schema",
    severity: Error,
    summary: "the file does not match its schema",
    check: Check::File(check),
}

fn check(input: &FileInput<'_>, out: &mut Vec<Diagnostic>) {
    match input.document {
        Document::Conversation(file) => {
            if !known_valid(file) {
                json_file(
                    file,
                    conversation_validator(),
                    SchemaKind::Conversation,
                    "schemas/conversation.schema.json",
                    out,
                )
            }
        }
        Document::Pool(file) => json_file(
            file,
            pool_validator(),
            SchemaKind::ScenarioPool,
            "schemas/scenario-pool.schema.json",
            out,
        ),
        // Its suite's reader refuses a misshapen tasks file (exit 2).
        Document::Tasks(_) => {}
        Document::Lines(dialogue) => {
            if dialogue.lines.is_empty() {
                out.push(
                    Diagnostic::new(NAME, "the dialogue is empty")
                        .place(1, 1)
                        .help("an API-Bank dialogue is one JSON object a line, starting with the user's: {\"role\": \"User\", \"text\": \"...\"}"),
                );
            }
            for line in &dialogue.lines {
                if let Some(problem) = line_problem(&line.value) {
                    out.push(
                        Diagnostic::new(NAME, problem)
                            .turn(line.position)
                            .at(Anchor::value("").in_line(Some(line.position)))
                            .help(APIBANK_SHAPES),
                    );
                }
            }
        }
    }
}

/// Whether a conversation is valid without walking the validator over it
/// (most files; the walk costs as much as a rule): the model read it
/// strictly, its timestamp has the schema's pattern, and no call has an
/// empty argument list, which is how the model reads the `null` the schema
/// refuses.
fn known_valid(file: &JsonFile<'_, Conversation>) -> bool {
    let Some(conversation) = file.typed.as_ref().filter(|_| file.strict) else {
        return false;
    };
    has_timestamp_pattern(&conversation.metadata.timestamp)
        && conversation
            .gold_calls()
            .all(|(_, _, call)| !call.request.parameters.is_empty())
}

/// `^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$` (the schema's timestamp pattern), in
/// ASCII digits: a text this accepts, the pattern accepts.
fn has_timestamp_pattern(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 19
        && bytes.iter().enumerate().all(|(i, &b)| match i {
            4 | 7 => b == b'-',
            10 => b == b' ',
            13 | 16 => b == b':',
            _ => b.is_ascii_digit(),
        })
}

/// The line shapes an API-Bank dialogue may have, for help lines.
const APIBANK_SHAPES: &str = "a line is {\"role\": \"User\" or \"AI\", \"text\": \"...\"} or {\"role\": \"API\", \"api_name\": \"...\", \"param_dict\": {...}, \"result\": {...}}";

fn json_file<T>(
    file: &JsonFile<'_, T>,
    validator: &jsonschema::Validator,
    kind: SchemaKind,
    schema: &str,
    out: &mut Vec<Diagnostic>,
) {
    let before = out.len();
    // The validator reads `Value`s: a copy of the tree.
    let value = &file.value.to_value();
    // Most files are valid, and asking that is much cheaper than listing
    // what is wrong.
    if !validator.is_valid(value) {
        for error in validator.iter_errors(value) {
            let pointer = error.instance_path.as_str().to_owned();
            let shown = if pointer.is_empty() { "/" } else { &pointer };
            // An unexpected property is shown at its key, with the name it
            // nearly is.
            let target = crate::schema::target(&error, &|| kind.schema());
            let at = match target.key {
                true => Anchor::key(target.pointer),
                false => Anchor::value(target.pointer),
            };
            out.push(
                Diagnostic::new(NAME, format!("{shown}: {error}"))
                    .at(at)
                    .help(
                        target
                            .hint
                            .unwrap_or_else(|| schema_help(&error.kind, schema)),
                    ),
            );
        }
    }
    // The schema and the types are kept in step, but if they ever drift the
    // reader's complaint is still worth a finding.
    if out.len() == before {
        if let Some((message, line, column)) = &file.shape_error {
            out.push(
                Diagnostic::new(NAME, message.clone())
                    .place(*line, *column)
                    .help(format!("the expected shape is in {schema}")),
            );
        }
    }
}

/// What to do about one schema error.
fn schema_help(kind: &jsonschema::error::ValidationErrorKind, schema: &str) -> String {
    use jsonschema::error::ValidationErrorKind as Kind;
    match kind {
        Kind::Required { property } => format!("add {property} here (see {schema})"),
        Kind::Enum { options } => format!("use one of {options}"),
        Kind::AdditionalProperties { unexpected } => {
            format!("remove {} (see {schema})", unexpected.join(", "))
        }
        Kind::Type { .. } => format!("change the value to the type {schema} gives this field"),
        Kind::Pattern { pattern } => format!("write it to match {pattern}"),
        _ => format!("the expected shape is in {schema}"),
    }
}

/// The conversation schema (schemas/conversation.schema.json), compiled
/// once, on its own: the dataset's shared table compiles every schema
/// (databases included), which costs a lint run over a few files more than
/// linting them.
pub fn conversation_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| compile(SchemaKind::Conversation))
}

/// The scenario pool schema (schemas/scenario-pool.schema.json).
pub fn pool_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| compile(SchemaKind::ScenarioPool))
}

fn compile(kind: SchemaKind) -> jsonschema::Validator {
    jsonschema::validator_for(&kind.schema()).expect("the project's schemas compile")
}

/// What is wrong with an API-Bank line's shape, if anything.
pub fn line_problem(value: &Json<'_>) -> Option<String> {
    let Some(object) = value.as_object() else {
        return Some("a dialogue line must be a JSON object".into());
    };
    let string = |key: &str| object.get(key).and_then(Json::as_str);
    match string("role") {
        None => Some("the line has no string `role`".into()),
        Some("User" | "AI") => string("text")
            .is_none()
            .then(|| "an utterance needs a string `text`".into()),
        Some("API") => {
            if string("api_name").is_none() {
                Some("an API line needs a string `api_name`".into())
            } else if !object.get("param_dict").is_some_and(Json::is_object) {
                Some("an API line needs an object `param_dict`".into())
            } else if object.get("result").is_none() {
                Some("the API line records no `result`: run `talkforge fill` on the file to record what the call returns".into())
            } else if !object.get("result").is_some_and(Json::is_object) {
                Some("an API line needs an object `result`".into())
            } else {
                None
            }
        }
        Some(other) => Some(format!(
            "unknown role {other:?}; expected \"User\", \"AI\" or \"API\""
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    /// [`line_problem`] of a line written with `json!`.
    fn line_problem(line: &Value) -> Option<String> {
        super::line_problem(&Json::from(line))
    }

    #[test]
    fn conversation_schema_accepts_and_refuses() {
        let good = json!({"name": "n", "conversation_id": "i", "user": {},
            "metadata": {"timestamp": "2023-09-11 09:00:00"},
            "conversation": [{"role": "user", "text": "hi"}]});
        assert!(conversation_validator().is_valid(&good));
        let mut bad = good.clone();
        bad["conversation"][0]["role"] = json!("customer");
        let errors: Vec<_> = conversation_validator().iter_errors(&bad).collect();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].instance_path.as_str(), "/conversation/0/role");
    }

    #[test]
    fn a_strict_reading_implies_the_schema() {
        let plain = json!({
            "name": "n", "conversation_id": "i", "suites_used": ["Alarm"], "apis_used": ["AddAlarm"],
            "scenario": null,
            "user": {"username": "u", "phone": null, "session_token": "t"},
            "metadata": {"location": "here", "timestamp": "2023-09-11 09:00:00", "username": "u"},
            "conversation": [
                {"index": 0, "role": "user", "text": "wake me at 7"},
                {"index": 1, "role": "assistant", "text": "done", "apis": [
                    {"request": {"api_name": "AddAlarm", "parameters": {"time": "07:00:00"}},
                     "response": {"alarm_id": "a"}, "exception": null}
                ]},
                {"role": "user", "text": "", "apis": null, "index": null}
            ]
        });
        let mut documents = vec![plain.clone()];
        for (pointer, replacement) in [
            ("/metadata/timestamp", json!("2023-09-11T09:00:00")),
            ("/metadata/timestamp", json!("2023-09-11 09:00:00\n")),
            ("/metadata/timestamp", json!("\u{ff12}023-09-11 09:00:00")),
            ("/conversation/0/index", json!(-1)),
            ("/conversation/0/index", json!(2.0)),
            ("/conversation/0/role", json!("system")),
            ("/conversation/0/role", json!({"user": null})),
            ("/conversation/1/apis/0/request/parameters", json!(null)),
            ("/conversation/1/apis/0/request", json!(["AddAlarm", {}])),
            ("/conversation/1/apis/0/exception", json!(1)),
            ("/user", json!([])),
            ("/user/phone", json!(555)),
            ("/scenario", json!({})),
            ("/apis_used", json!([null])),
        ] {
            let mut document = plain.clone();
            *document.pointer_mut(pointer).expect("the pointer exists") = replacement;
            documents.push(document);
        }
        for dir in ["conversations", "tests"] {
            for path in crate::formats::discover(&[dir.into()], &["json"]).unwrap_or_default() {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                documents.extend(serde_json::from_str::<Value>(&text).ok());
            }
        }
        let mut shortcuts = 0;
        for document in &documents {
            let text = serde_json::to_string(document).unwrap();
            let parsed = Document::parse(
                std::path::Path::new("c.json"),
                &text,
                crate::suite::format::LintReading::Conversation,
                true,
            );
            let Ok(Document::Conversation(file)) = parsed else {
                continue;
            };
            if known_valid(&file) {
                shortcuts += 1;
                assert!(conversation_validator().is_valid(document), "{document:#}");
            }
        }
        assert!(shortcuts > 3, "{shortcuts}");
    }

    #[test]
    fn the_timestamp_pattern_agrees_with_the_schemas() {
        let pattern = regex::Regex::new(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$").unwrap();
        for text in [
            "2023-09-11 09:00:00",
            "2023-09-11T09:00:00",
            "2023-09-11 09:00",
            "2023-09-11 09:00:00 ",
            "x2023-09-11 09:00:00",
            "2023/09/11 09:00:00",
            "\u{0662}023-09-11 09:00:00",
            "",
        ] {
            if has_timestamp_pattern(text) {
                assert!(pattern.is_match(text), "{text}");
            }
        }
        assert!(has_timestamp_pattern("1999-12-31 23:59:59"));
        assert!(!has_timestamp_pattern("1999-12-31 23:59:5"));
    }

    #[test]
    fn apibank_line_shapes() {
        assert_eq!(line_problem(&json!({"role": "User", "text": "hi"})), None);
        assert_eq!(
            line_problem(
                &json!({"role": "API", "api_name": "GetToday", "param_dict": {}, "result": {}})
            ),
            None
        );
        assert!(line_problem(&json!({"role": "Bot", "text": "hi"})).is_some());
        // A line written by hand, its result not yet recorded: fill records it.
        let unfilled =
            line_problem(&json!({"role": "API", "api_name": "GetToday", "param_dict": {}}));
        assert!(unfilled.unwrap().contains("run `talkforge fill`"));
        assert!(line_problem(&json!({"role": "AI"})).is_some());
        assert!(line_problem(
            &json!({"role": "API", "api_name": "X", "param_dict": "a=1", "result": {}})
        )
        .is_some());
        assert!(line_problem(&json!([1])).is_some());
    }
    #[test]
    fn the_rule_fires_on_a_wrong_shape_only() {
        use crate::lint::rules::testing::{conversation, dialogue, run, run_on};
        let good = conversation(&[("user", "hi", vec![])]);
        assert!(run_on(&RULE, &good).is_empty());
        let mut bad = good.clone();
        bad["conversation"][0]["role"] = json!("customer");
        let found = run_on(&RULE, &bad);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(found[0].help.as_deref().unwrap().starts_with("use one of"));
        let lines = dialogue(&[json!({"role": "User", "text": "hi"})]);
        assert!(run(&RULE, "d.jsonl", &lines).is_empty());
        let found = run(
            &RULE,
            "d.jsonl",
            &dialogue(&[json!({"role": "Bot", "text": "hi"})]),
        );
        assert_eq!(found.len(), 1);
        assert!(found[0].help.is_some());
        let found = run(&RULE, "d.jsonl", "");
        assert_eq!(found[0].message, "the dialogue is empty");
    }
}
