//! The databases the simulated tools act on, one file each. Every file is a
//! JSON object keyed by username (or city); the typed records here are the
//! schema of those files (schemas/databases/*.schema.json). The world itself
//! works on the parsed JSON so that key order, and so result order, is kept.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::suite::DatabaseSchema;

const TIMESTAMP: &str = r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$";
const CLOCK_TIME: &str = r"^\d{2}:\d{2}:\d{2}$";
const DATE: &str = r"^\d{4}-\d{2}-\d{2}$";

/// Each database file's schema, by file stem, in the order schemas/ lists them.
pub const SCHEMAS: &[DatabaseSchema] = &[
    ("Account", schema::<AccountDatabase>),
    ("Alarm", schema::<AlarmDatabase>),
    ("Calendar", schema::<CalendarDatabase>),
    ("Email", schema::<EmailDatabase>),
    ("HistoricWeather", schema::<HistoricWeatherDatabase>),
    ("Message", schema::<MessageDatabase>),
    ("Reminder", schema::<ReminderDatabase>),
    ("Weather", schema::<WeatherDatabase>),
];

/// The first and last dates the records hold: every text value, at any
/// depth, that is exactly a date (`2023-09-11`) or a time stamp
/// (`2023-09-11 09:00:00`) counts by its date; keys, clock times and
/// other texts do not.
pub fn date_range(databases: &crate::sim::Databases) -> Option<crate::suite::DateRange> {
    crate::suite::DateRange::of(record_dates(databases))
}

/// Every date the records hold (as [`date_range`] reads them), in the
/// databases' order, repeats kept.
pub fn record_dates(databases: &crate::sim::Databases) -> Vec<chrono::NaiveDate> {
    fn dates(value: &Value, out: &mut Vec<chrono::NaiveDate>) {
        match value {
            Value::String(text) => out.extend(date_of(text)),
            Value::Array(items) => items.iter().for_each(|v| dates(v, out)),
            Value::Object(members) => members.values().for_each(|v| dates(v, out)),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    let mut found = Vec::new();
    for name in databases.names() {
        if let Some(table) = databases.get(name) {
            for (_, record) in table.iter() {
                dates(&record.to_value(), &mut found);
            }
        }
    }
    found
}

/// The date of a text that is exactly a date or a time stamp.
fn date_of(text: &str) -> Option<chrono::NaiveDate> {
    match text.len() {
        10 => chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").ok(),
        19 => chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
            .ok()
            .map(|t| t.date()),
        _ => None,
    }
}

fn schema<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).expect("schemas serialise")
}

/// `Account.json`: accounts by username.
pub type AccountDatabase = IndexMap<String, Account>;
/// `Alarm.json`: by username, then alarm id.
pub type AlarmDatabase = IndexMap<String, IndexMap<String, Alarm>>;
/// `Calendar.json`: by username, then event id (a shared event sits in
/// every attendee's calendar under the same id).
pub type CalendarDatabase = IndexMap<String, IndexMap<String, Event>>;
/// `Email.json`: inboxes by username, then email id.
pub type EmailDatabase = IndexMap<String, IndexMap<String, Email>>;
/// `HistoricWeather.json`: by city (lower case), then month name.
pub type HistoricWeatherDatabase = IndexMap<String, IndexMap<String, MonthClimate>>;
/// `Message.json`: received messages by username, then message id.
pub type MessageDatabase = IndexMap<String, IndexMap<String, Message>>;
/// `Reminder.json`: by username, then reminder id.
pub type ReminderDatabase = IndexMap<String, IndexMap<String, Reminder>>;
/// `Weather.json`: by city (lower case), then date.
pub type WeatherDatabase = IndexMap<String, IndexMap<String, DayWeather>>;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Account {
    pub username: String,
    pub email: String,
    /// `ddd-ddd-dddd`.
    pub phone: String,
    pub name: String,
    pub password: String,
    /// Null when logged out. The key must be there: the session check
    /// reads it from every account.
    #[schemars(required, extend("type" = ["string", "null"]))]
    pub session_token: Option<String>,
    /// Set while a password reset is under way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_code: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Alarm {
    pub alarm_id: String,
    /// `%H:%M:%S`.
    #[schemars(regex(pattern = CLOCK_TIME), extend("format" = crate::schema::CLOCK_TIME_FORMAT))]
    pub time: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EventType {
    /// With other people, who are listed as attendees.
    Meeting,
    Event,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Event {
    pub event_id: String,
    pub name: String,
    pub event_type: EventType,
    #[schemars(regex(pattern = TIMESTAMP), extend("format" = crate::schema::TIMESTAMP_FORMAT))]
    pub start_time: String,
    #[schemars(regex(pattern = TIMESTAMP), extend("format" = crate::schema::TIMESTAMP_FORMAT))]
    pub end_time: String,
    #[schemars(required, extend("type" = ["string", "null"]))]
    pub location: Option<String>,
    #[schemars(required, extend("type" = ["string", "null"]))]
    pub description: Option<String>,
    /// Usernames; null for a personal event.
    #[schemars(required, extend("type" = ["array", "null"]))]
    pub attendees: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Email {
    pub email_id: String,
    /// When it arrived; mail dated after a conversation's now is hidden.
    #[schemars(regex(pattern = TIMESTAMP), extend("format" = crate::schema::TIMESTAMP_FORMAT))]
    pub date: String,
    pub sender: String,
    pub receivers: Vec<String>,
    pub subject: String,
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MonthClimate {
    pub min_temp: i64,
    pub max_temp: i64,
    pub record_min_temp: i64,
    pub record_max_temp: i64,
    pub avg_rainfall: f64,
    pub snow_days: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Message {
    pub message_id: String,
    #[schemars(regex(pattern = TIMESTAMP), extend("format" = crate::schema::TIMESTAMP_FORMAT))]
    pub timestamp: String,
    /// The sender's username.
    pub sender: String,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReminderStatus {
    Pending,
    Complete,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reminder {
    pub reminder_id: String,
    pub task: String,
    #[schemars(required, regex(pattern = TIMESTAMP), extend("type" = ["string", "null"], "format" = crate::schema::TIMESTAMP_FORMAT))]
    pub due_date: Option<String>,
    pub status: ReminderStatus,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DayWeather {
    #[schemars(regex(pattern = DATE), extend("format" = "date"))]
    pub date: String,
    pub high: i64,
    pub low: i64,
    pub conditions: String,
}

#[cfg(test)]
mod date_tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_range_takes_dates_and_time_stamps_at_any_depth_and_nothing_else() {
        let databases = crate::sim::Databases::from_tables(
            [
                (
                    "Calendar",
                    json!({"ann": {"e1": {"start_time": "2023-09-12 10:00:00",
                                          "notes": ["2023-09-02"]}}}),
                ),
                (
                    "Weather",
                    json!({"2020-01-01": {"date": "2023-09-30", "time": "07:00:00",
                                          "text": "2019-01-01 was cold", "odd": "2023-13-40"}}),
                ),
            ]
            .map(|(name, t)| (name.to_string(), t.as_object().unwrap().clone())),
        );
        let range = date_range(&databases).unwrap();
        assert_eq!(
            (range.first.to_string(), range.last.to_string()),
            ("2023-09-02".to_string(), "2023-09-30".to_string())
        );
        let empty = crate::sim::Databases::from_tables(
            [("Alarm", json!({"ann": {"a1": {"time": "07:00:00"}}}))]
                .map(|(name, t)| (name.to_string(), t.as_object().unwrap().clone())),
        );
        assert_eq!(date_range(&empty), None);
    }
}
