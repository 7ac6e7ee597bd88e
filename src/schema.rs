//! The JSON Schemas of every file talkforge reads, generated from the serde
//! types (schemars) so the two cannot drift: `cargo xtask schemas` writes
//! them to schemas/, a test checks the committed copies are current, and
//! validation here uses the same generated schemas.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::dialogue::Conversation;
use crate::formats::read::{read_json, TextIndex};
use crate::formats::scenario::ScenarioPool;
use crate::json::locate::locate_nearest;
use crate::suite::docs::CatalogDoc;
use crate::suite::Suite;
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

/// What kind of file a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemaKind {
    Conversation,
    ScenarioPool,
    Catalog,
    /// An API-Bank level-3 scenario in our own format (`.lv3.json`).
    ApiBankLevel3,
    /// A database file, by its stem (`Account`, `Calendar`, ...).
    Database(&'static str),
}

/// The database files with a schema, by stem: every suite's, in suite order.
fn databases() -> impl Iterator<Item = &'static str> {
    crate::suites::all()
        .into_iter()
        .flat_map(|suite| suite.database_schemas().iter().map(|(name, _)| *name))
}

impl SchemaKind {
    /// Every schema, in the order schemas/ lists them.
    pub fn all() -> Vec<SchemaKind> {
        let mut kinds = vec![
            SchemaKind::Conversation,
            SchemaKind::ScenarioPool,
            SchemaKind::Catalog,
            SchemaKind::ApiBankLevel3,
        ];
        kinds.extend(databases().map(SchemaKind::Database));
        kinds
    }

    /// The schema's path under schemas/.
    pub fn file_name(self) -> String {
        match self {
            SchemaKind::Conversation => "conversation.schema.json".into(),
            SchemaKind::ScenarioPool => "scenario-pool.schema.json".into(),
            SchemaKind::Catalog => "catalog.schema.json".into(),
            SchemaKind::ApiBankLevel3 => "apibank-level3-scenario.schema.json".into(),
            SchemaKind::Database(name) => format!("databases/{name}.schema.json"),
        }
    }

    /// The schema, generated from the serde types.
    pub fn schema(self) -> Value {
        fn of<T: JsonSchema>() -> Value {
            serde_json::to_value(schemars::schema_for!(T)).expect("schemas serialise")
        }
        match self {
            SchemaKind::Conversation => of::<Conversation>(),
            SchemaKind::ScenarioPool => of::<ScenarioPool>(),
            SchemaKind::Catalog => of::<CatalogDoc>(),
            SchemaKind::ApiBankLevel3 => crate::suites::apibank::level3::format::schema(),
            SchemaKind::Database(name) => crate::suites::all()
                .into_iter()
                .flat_map(|suite| suite.database_schemas())
                .find(|(known, _)| *known == name)
                .map(|(_, schema)| schema())
                .unwrap_or_else(|| unreachable!("no schema for database {name}")),
        }
    }

    /// The schema as committed: pretty JSON with a final newline.
    pub fn text(self) -> String {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&self.schema()).expect("schemas serialise")
        )
    }

    /// The compiled validator, built once per process.
    pub fn validator(self) -> &'static jsonschema::Validator {
        static VALIDATORS: OnceLock<HashMap<SchemaKind, jsonschema::Validator>> = OnceLock::new();
        &VALIDATORS.get_or_init(|| {
            SchemaKind::all()
                .into_iter()
                .map(|kind| {
                    let validator = jsonschema::options()
                        .should_validate_formats(true)
                        .with_format(TIMESTAMP_FORMAT, |s: &str| {
                            !shaped(s, "dddd-dd-dd dd:dd:dd")
                                || chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S")
                                    .is_ok()
                        })
                        .with_format(CLOCK_TIME_FORMAT, |s: &str| {
                            !shaped(s, "dd:dd:dd")
                                || chrono::NaiveTime::parse_from_str(s, "%H:%M:%S").is_ok()
                        })
                        .build(&kind.schema())
                        .expect("the project's schemas compile");
                    (kind, validator)
                })
                .collect()
        })[&self]
    }

    /// The schema for a database file, by its stem; None for databases the
    /// tools do not know (they are loaded but not checked).
    pub fn for_database(stem: &str) -> Option<SchemaKind> {
        databases()
            .find(|name| *name == stem)
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
    let errors: Vec<(String, String)> = kind
        .validator()
        .iter_errors(value)
        .map(|error| (error.instance_path.as_str().to_owned(), error.to_string()))
        .collect();
    if errors.is_empty() {
        return Vec::new();
    }
    // Every violation placed in one pass over the text.
    let pointers: Vec<&str> = errors.iter().map(|(pointer, _)| pointer.as_str()).collect();
    let found = locate_nearest(text, &pointers);
    let index = TextIndex::new(text);
    errors
        .into_iter()
        .zip(found)
        .map(|((pointer, message), found)| {
            let offset = found.filter(|f| f.exact).map_or(0, |f| f.located.value);
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

/// Check every database file in `dir` that `suite` has a schema for
/// against it (another suite's schema for a database of the same name does
/// not apply). A file that cannot be read or parsed is an error (exit 2),
/// naming its place.
pub fn validate_databases(dir: &Path, suite: &dyn Suite) -> Result<Vec<SchemaViolation>> {
    let mut violations = Vec::new();
    for (stem, _) in suite.database_schemas() {
        let path = dir.join(format!("{stem}.json"));
        if !path.exists() {
            continue;
        }
        let (text, value) = read_json(&path)?;
        violations.extend(validate(&path, &text, &value, SchemaKind::Database(stem)));
    }
    Ok(violations)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_schema_compiles_and_has_a_distinct_file() {
        let mut names: Vec<String> = SchemaKind::all().iter().map(|k| k.file_name()).collect();
        for kind in SchemaKind::all() {
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
        let found = validate(
            Path::new("Alarm.json"),
            text,
            &value,
            SchemaKind::Database("Alarm"),
        );
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
        let alarms = SchemaKind::Database("Alarm").validator();
        assert!(alarms.is_valid(&alarm("23:59:59")));
        assert!(!alarms.is_valid(&alarm("25:61:00")));
        let email = |date: &str| {
            json!({"ann": {"e1": {"email_id": "e1", "date": date, "sender": "a@x.com",
                                   "receivers": [], "subject": "s", "body": "b"}}})
        };
        let emails = SchemaKind::Database("Email").validator();
        assert!(emails.is_valid(&email("2024-02-29 10:00:00")));
        assert!(!emails.is_valid(&email("2023-02-29 10:00:00")));
        assert!(!emails.is_valid(&email("2023-09-31 10:00:00")));
        let day = |date: &str| json!({"lisbon": {date: {"date": date, "high": 1, "low": 0, "conditions": "sunny"}}});
        let weather = SchemaKind::Database("Weather").validator();
        assert!(weather.is_valid(&day("2023-09-30")));
        assert!(!weather.is_valid(&day("2023-13-01")));
        let reminder = |due: Value| json!({"ann": {"r1": {"reminder_id": "r1", "task": "t", "due_date": due, "status": "pending"}}});
        let reminders = SchemaKind::Database("Reminder").validator();
        assert!(reminders.is_valid(&reminder(Value::Null)));
        assert!(!reminders.is_valid(&reminder(json!("2023-04-31 09:00:00"))));
    }

    #[test]
    fn account_records_need_their_session_token_key() {
        let kind = SchemaKind::Database("Account");
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
