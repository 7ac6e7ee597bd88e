//! The JSON Schemas of every file talkforge reads, generated from the serde
//! types (schemars) so the two cannot drift: `cargo xtask schemas` writes
//! them to schemas/, a test checks the committed copies are current, and
//! validation here uses the same generated schemas.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::formats::read::{read_json, TextIndex};
use crate::formats::scenario::ScenarioPool;
use crate::json::locate::locate_nearest;
use crate::suite::docs::CatalogDoc;
use crate::suite::format::{DatabaseSchema, FormatSchema};
use crate::suite::{Registry, Suite};
use crate::Result;

/// The `format` of a date and time written `%Y-%m-%d %H:%M:%S`: the
/// pattern says its shape, the format that it is a real date and time
/// (no 30 February, no 25:61).
pub const TIMESTAMP_FORMAT: &str = "timestamp";
/// The `format` of a clock time written `%H:%M:%S`.
pub const CLOCK_TIME_FORMAT: &str = "clock-time";

/// Whether `text` has the shape `pattern` gives, `d` standing for a digit.
/// A date or time of another shape breaks the schema's `pattern`; its
/// `format` only says whether one of the right shape exists, so that each
/// problem is reported once.
fn shaped(text: &str, pattern: &str) -> bool {
    text.len() == pattern.len()
        && text.bytes().zip(pattern.bytes()).all(|(t, p)| match p {
            b'd' => t.is_ascii_digit(),
            _ => t == p,
        })
}

/// What kind of file a schema describes: the model's own files, and the
/// schemas the registered suites state for their formats and databases.
#[derive(Debug, Clone, Copy)]
pub enum SchemaKind {
    /// A conversation in the model's JSON shape.
    Conversation,
    ScenarioPool,
    Catalog,
    /// A file format's own schema (`FileFormat::schema`).
    Format(FormatSchema),
    /// A database file, by its stem (`Account`, `Calendar`, ...).
    Database(DatabaseSchema),
}

impl PartialEq for SchemaKind {
    fn eq(&self, other: &Self) -> bool {
        self.file_name() == other.file_name()
    }
}

impl Eq for SchemaKind {}

impl SchemaKind {
    /// Every schema of the model and of `registry`'s suites (a format
    /// whose schema is the model's is listed once), in the order schemas/
    /// lists them.
    pub fn all(registry: &Registry) -> Vec<SchemaKind> {
        let mut kinds = vec![
            SchemaKind::Conversation,
            SchemaKind::ScenarioPool,
            SchemaKind::Catalog,
        ];
        let suites = registry.suites();
        let formats = suites
            .iter()
            .flat_map(|suite| suite.formats().iter())
            .filter_map(|format| format.schema)
            .map(SchemaKind::Format);
        let databases = suites
            .iter()
            .flat_map(|suite| suite.database_format().schemas.iter().copied())
            .map(SchemaKind::Database);
        for kind in formats.chain(databases) {
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        kinds
    }

    /// The schema's path under schemas/.
    pub fn file_name(self) -> String {
        match self {
            SchemaKind::Conversation => "conversation.schema.json".into(),
            SchemaKind::ScenarioPool => "scenario-pool.schema.json".into(),
            SchemaKind::Catalog => "catalog.schema.json".into(),
            SchemaKind::Format(schema) => schema.file_name.into(),
            SchemaKind::Database((name, _)) => format!("databases/{name}.schema.json"),
        }
    }

    /// The schema, generated from the serde types.
    pub fn schema(self) -> Value {
        fn of<T: JsonSchema>() -> Value {
            serde_json::to_value(schemars::schema_for!(T)).expect("schemas serialise")
        }
        match self {
            SchemaKind::Conversation => crate::formats::read::conversation_schema(),
            SchemaKind::ScenarioPool => of::<ScenarioPool>(),
            SchemaKind::Catalog => of::<CatalogDoc>(),
            SchemaKind::Format(schema) => (schema.make)(),
            SchemaKind::Database((_, make)) => make(),
        }
    }

    /// The schema as committed: pretty JSON with a final newline.
    pub fn text(self) -> String {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&self.schema()).expect("schemas serialise")
        )
    }

    /// The compiled validator, built once per process and schema.
    pub fn validator(self) -> &'static jsonschema::Validator {
        type Validators = Mutex<HashMap<String, &'static jsonschema::Validator>>;
        static VALIDATORS: OnceLock<Validators> = OnceLock::new();
        let mut validators = VALIDATORS
            .get_or_init(Validators::default)
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        validators.entry(self.file_name()).or_insert_with(|| {
            let validator = jsonschema::options()
                .should_validate_formats(true)
                .with_format(TIMESTAMP_FORMAT, |s: &str| {
                    !shaped(s, "dddd-dd-dd dd:dd:dd")
                        || chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").is_ok()
                })
                .with_format(CLOCK_TIME_FORMAT, |s: &str| {
                    !shaped(s, "dd:dd:dd")
                        || chrono::NaiveTime::parse_from_str(s, "%H:%M:%S").is_ok()
                })
                .build(&self.schema())
                .expect("the project's schemas compile");
            // One a schema, kept for the process: there are a dozen.
            Box::leak(Box::new(validator))
        })
    }

    /// The schema `suite` states for a database file, by its stem; None
    /// for databases it has none for (they are loaded but not checked).
    pub fn for_database(suite: &dyn Suite, stem: &str) -> Option<SchemaKind> {
        suite
            .database_format()
            .schemas
            .iter()
            .find(|(name, _)| *name == stem)
            .copied()
            .map(SchemaKind::Database)
    }
}

/// One place where a file breaks its schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemaViolation {
    pub file: String,
    /// JSON pointer to the offending value (`""` is the whole document).
    pub pointer: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for SchemaViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(
            f,
            "{}:{}:{}: {pointer}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

/// Every violation of `kind`'s schema in a parsed file, placed at the line
/// and column of the offending value in `text`.
pub fn validate(path: &Path, text: &str, value: &Value, kind: SchemaKind) -> Vec<SchemaViolation> {
    let errors: Vec<(String, Target, String)> = kind
        .validator()
        .iter_errors(value)
        .map(|error| {
            let target = target(&error, &|| kind.schema());
            let message = match &target.hint {
                Some(hint) => format!("{error}; {hint}"),
                None => error.to_string(),
            };
            (error.instance_path.as_str().to_owned(), target, message)
        })
        .collect();
    if errors.is_empty() {
        return Vec::new();
    }
    // Every violation placed in one pass over the text.
    let pointers: Vec<&str> = errors.iter().map(|(_, t, _)| t.pointer.as_str()).collect();
    let found = locate_nearest(text, &pointers);
    let index = TextIndex::new(text);
    errors
        .into_iter()
        .zip(found)
        .map(|((pointer, target, message), found)| {
            let offset = found.filter(|f| f.exact).map_or(0, |f| match target.key {
                true => f.located.key.unwrap_or(f.located.value),
                false => f.located.value,
            });
            let (line, column) = index.line_column(offset);
            SchemaViolation {
                file: path.display().to_string(),
                pointer,
                line,
                column,
                message,
            }
        })
        .collect()
}

/// Where a schema error is best shown, and what to say beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// JSON pointer to show it at.
    pub pointer: String,
    /// At the key of that pointer (an unexpected property), not its value.
    pub key: bool,
    /// "did you mean `ground_truth`?" for a property the schema does not
    /// allow but nearly names.
    pub hint: Option<String>,
}

/// Where `error` is best shown: an unexpected property at its own key,
/// with the allowed property it nearly names, when there is one (a typo);
/// anything else at the offending value. `schema` gives the schema the
/// error came from (only asked for an unexpected property).
pub fn target(error: &jsonschema::ValidationError<'_>, schema: &dyn Fn() -> Value) -> Target {
    use jsonschema::error::ValidationErrorKind as Kind;
    let at_value = Target {
        pointer: error.instance_path.as_str().to_owned(),
        key: false,
        hint: None,
    };
    let Kind::AdditionalProperties { unexpected } = &error.kind else {
        return at_value;
    };
    let Some(first) = unexpected.first() else {
        return at_value;
    };
    let schema = schema();
    let allowed = allowed_properties(&schema, error.schema_path.as_str());
    let names: Vec<&str> = allowed.iter().map(String::as_str).collect();
    Target {
        pointer: format!(
            "{}/{}",
            at_value.pointer,
            first.replace('~', "~0").replace('/', "~1")
        ),
        key: true,
        hint: crate::words::closest_name(first, &names)
            .map(|name| format!("did you mean `{name}`?")),
    }
}

/// The properties the object schema that holds the keyword at
/// `schema_path` (its `additionalProperties`) allows, following `$ref`s
/// within the schema; none when the path cannot be followed.
fn allowed_properties(schema: &Value, schema_path: &str) -> Vec<String> {
    let tokens: Vec<String> = schema_path
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let Some((_keyword, parents)) = tokens.split_last() else {
        return Vec::new();
    };
    let resolve = |node: &'_ Value| -> Option<&'_ Value> {
        let reference = node.get("$ref")?.as_str()?.strip_prefix('#')?;
        schema.pointer(reference)
    };
    let mut node = schema;
    for token in parents {
        let next = match token.as_str() {
            "$ref" => resolve(node),
            key => match node {
                Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => node.get(key),
            },
        };
        match next {
            Some(next) => node = next,
            None => return Vec::new(),
        }
    }
    // A keyword reached through a `$ref` the path does not name.
    let node = if node.get("properties").is_none() {
        resolve(node).unwrap_or(node)
    } else {
        node
    };
    node.get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// Check every database file in `dir` that `suite` has a schema for
/// against it (another suite's schema for a database of the same name does
/// not apply). A file that cannot be read or parsed is an error (exit 2),
/// naming its place.
pub fn validate_databases(dir: &Path, suite: &dyn Suite) -> Result<Vec<SchemaViolation>> {
    let mut violations = Vec::new();
    for &schema in suite.database_format().schemas {
        let path = dir.join(format!("{}.json", schema.0));
        if !path.exists() {
            continue;
        }
        let (text, value) = read_json(&path)?;
        violations.extend(validate(&path, &text, &value, SchemaKind::Database(schema)));
    }
    Ok(violations)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A database's schema as the default registry's suites state it.
    fn database(stem: &str) -> SchemaKind {
        crate::suites::registry()
            .suites()
            .iter()
            .find_map(|suite| SchemaKind::for_database(*suite, stem))
            .expect("a registered database")
    }

    #[test]
    fn every_schema_compiles_and_has_a_distinct_file() {
        let mut names: Vec<String> = SchemaKind::all(&crate::suites::registry())
            .iter()
            .map(|k| k.file_name())
            .collect();
        for kind in SchemaKind::all(&crate::suites::registry()) {
            let _ = kind.validator();
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 12);
    }

    #[test]
    fn a_violation_names_pointer_line_and_column() {
        let text = "{\n  \"ann\": {\n    \"a1\": {\"alarm_id\": \"a1\", \"time\": 700}\n  }\n}";
        let value: Value = serde_json::from_str(text).unwrap();
        let found = validate(Path::new("Alarm.json"), text, &value, database("Alarm"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].pointer, "/ann/a1/time");
        assert_eq!((found[0].line, found[0].column), (3, 38));
        assert!(found[0]
            .to_string()
            .starts_with("Alarm.json:3:38: /ann/a1/time: "));
    }

    #[test]
    fn impossible_dates_and_times_break_the_schema() {
        let alarm = |time: &str| json!({"ann": {"a1": {"alarm_id": "a1", "time": time}}});
        let alarms = database("Alarm").validator();
        assert!(alarms.is_valid(&alarm("23:59:59")));
        assert!(!alarms.is_valid(&alarm("25:61:00")));
        let email = |date: &str| {
            json!({"ann": {"e1": {"email_id": "e1", "date": date, "sender": "a@x.com",
                                   "receivers": [], "subject": "s", "body": "b"}}})
        };
        let emails = database("Email").validator();
        assert!(emails.is_valid(&email("2024-02-29 10:00:00")));
        assert!(!emails.is_valid(&email("2023-02-29 10:00:00")));
        assert!(!emails.is_valid(&email("2023-09-31 10:00:00")));
        let day = |date: &str| json!({"lisbon": {date: {"date": date, "high": 1, "low": 0, "conditions": "sunny"}}});
        let weather = database("Weather").validator();
        assert!(weather.is_valid(&day("2023-09-30")));
        assert!(!weather.is_valid(&day("2023-13-01")));
        let reminder = |due: Value| json!({"ann": {"r1": {"reminder_id": "r1", "task": "t", "due_date": due, "status": "pending"}}});
        let reminders = database("Reminder").validator();
        assert!(reminders.is_valid(&reminder(Value::Null)));
        assert!(!reminders.is_valid(&reminder(json!("2023-04-31 09:00:00"))));
    }

    #[test]
    fn account_records_need_their_session_token_key() {
        let kind = database("Account");
        let account = json!({"username": "a", "email": "a@x.com", "phone": "555-000-0000",
                             "name": "A", "password": "p", "session_token": null});
        let errors: Vec<String> = kind
            .validator()
            .iter_errors(&json!({ "a": account }))
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
        let mut without = account.clone();
        without.as_object_mut().unwrap().remove("session_token");
        assert!(!kind.validator().is_valid(&json!({ "a": without })));
        let mut typo = account;
        typo["passwrod"] = json!("p");
        assert!(!kind.validator().is_valid(&json!({ "a": typo })));
    }
}
