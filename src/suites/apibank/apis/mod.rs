//! API-Bank's APIs, one file each: the catalog entry (spec), the behaviour
//! (`call`, as the reference's `apis/<name>.py` runs it) and the
//! correctness check its evaluator asks (`correct`, the reference's
//! `check_api_call_correctness`).
//!
//! Learned from `api-bank/apis/*.py` in AlibabaResearch/DAMO-ConvAI; the
//! code and the descriptions here are our own. Results, exception texts and
//! the order in which databases are searched follow the reference exactly,
//! because recorded results are compared with them byte for byte.

use serde_json::{Map, Value};

use super::state::State;
use crate::sim::pyargs::{py_eq, Args};
use crate::suite::ToolSpec;

mod add_agenda;
mod add_alarm;
mod add_meeting;
mod add_reminder;
mod add_scene;
mod appointment_registration;
mod book_hotel;
mod calculator;
mod cancel_registration;
mod cancel_timed_switch;
mod check_token;
#[cfg(test)]
mod correctness;
mod delete_account;
mod delete_agenda;
mod delete_alarm;
mod delete_meeting;
mod delete_reminder;
mod delete_scene;
mod dictionary;
mod document_qa;
mod emergency_knowledge;
mod forgot_password;
mod format_check;
mod get_today;
mod get_user_token;
mod home;
mod image_caption;
mod modify_agenda;
mod modify_alarm;
mod modify_meeting;
mod modify_password;
mod modify_registration;
mod modify_reminder;
mod modify_scene;
mod open_bank_account;
mod play_music;
pub mod presupposed;
mod query_agenda;
mod query_alarm;
mod query_balance;
mod query_health_data;
mod query_history_today;
mod query_meeting;
mod query_registration;
mod query_reminder;
mod query_scene;
mod query_stock;
mod read_only;
mod record_health_data;
mod records;
mod register_user;
mod search_engine;
mod send_email;
mod speech_recognition;
mod symptom_search;
mod timed_switch;
pub mod tool_search;
mod translate;
#[cfg(test)]
mod upstream;
mod wiki;

/// One API.
#[derive(Debug)]
pub struct Api {
    /// The catalog entry: parameters as the dialogues pass them, and a
    /// description in our own words (what talkforge documents and shows).
    pub spec: ToolSpec,
    /// The API as the reference's class documents itself, which is what
    /// its `ToolSearcher` returns (see `tool_search`).
    pub reference: Reference,
    /// Run a call whose arguments are bound to the API's signature (the
    /// world binds them as Python binds keyword arguments, and converts
    /// them as the reference's `ToolManager` does). Returns the whole
    /// result object as the reference's `call` returns it: usually
    /// `{"api_name", "input", "output", "exception"}` (see [`result`]),
    /// but a few APIs answer in a shape of their own.
    pub call: fn(&mut State, Args<'_>) -> Value,
    /// Whether a predicted call's result object (`response`) counts as the
    /// gold call's (`groundtruth`), as the reference's
    /// `check_api_call_correctness` decides. Where that function would
    /// raise (an assertion, a missing key), the call is not correct.
    pub correct: fn(response: &Value, groundtruth: &Value) -> bool,
    /// Fields of `input` that the reference's check deletes from the
    /// ground truth it is handed (the meeting checks pop
    /// `meeting_topic`). The reference's evaluator hands the same dict to
    /// both samples of a line that follows another API line, so the
    /// second check of such a line finds the field gone and fails; the
    /// evaluation reproduces that (see `eval::score`).
    pub check_removes: &'static [&'static str],
}

/// An API's `description`, `input_parameters` and `output_parameters` as
/// the reference's class declares them. They are results, not docs: the
/// reference's `ToolSearcher` answers with them, and the dialogues record
/// its answers, so they are kept verbatim to be compared byte for byte.
/// Parameters are `(name, type, description)` in declaration order.
#[derive(Debug, Clone, Copy)]
pub struct Reference {
    pub description: &'static str,
    pub input_parameters: &'static [(&'static str, &'static str, &'static str)],
    pub output_parameters: &'static [(&'static str, &'static str, &'static str)],
}

/// The APIs implemented so far, sorted by name.
pub static APIS: &[&Api] = &[
    &add_agenda::API,
    &add_alarm::API,
    &add_meeting::API,
    &add_reminder::API,
    &add_scene::API,
    &appointment_registration::API,
    &book_hotel::API,
    &calculator::API,
    &cancel_registration::API,
    &cancel_timed_switch::API,
    &check_token::API,
    &delete_account::API,
    &delete_agenda::API,
    &delete_alarm::API,
    &delete_meeting::API,
    &delete_reminder::API,
    &delete_scene::API,
    &dictionary::API,
    &document_qa::API,
    &emergency_knowledge::API,
    &forgot_password::API,
    &get_today::API,
    &get_user_token::API,
    &image_caption::API,
    &modify_agenda::API,
    &modify_alarm::API,
    &modify_meeting::API,
    &modify_password::API,
    &modify_registration::API,
    &modify_reminder::API,
    &modify_scene::API,
    &open_bank_account::API,
    &play_music::API,
    &query_agenda::API,
    &query_alarm::API,
    &query_balance::API,
    &query_health_data::API,
    &query_history_today::API,
    &query_meeting::API,
    &query_registration::API,
    &query_reminder::API,
    &query_scene::API,
    &query_stock::API,
    &record_health_data::API,
    &register_user::API,
    &search_engine::API,
    &send_email::API,
    &speech_recognition::API,
    &symptom_search::API,
    &timed_switch::API,
    &tool_search::API,
    &translate::API,
    &wiki::API,
];

/// An API by name.
pub fn api(name: &str) -> Option<&'static Api> {
    APIS.iter().copied().find(|api| api.spec.name == name)
}

/// The check the lenient scoring asks of `name` in place of the
/// reference's, for the one API whose check can never pass
/// (DeleteMeeting's reads a `time` its inputs lack; see
/// `eval::score::Correction::DeleteMeetingTime`).
pub fn corrected_check(name: &str) -> Option<fn(&Value, &Value) -> bool> {
    (name == delete_meeting::API.spec.name).then_some(delete_meeting::correct_by_start_time as _)
}

/// The result object most APIs return: `{"api_name", "input", "output",
/// "exception"}`, with `output` null when the call raised.
pub fn result(api_name: &str, input: Value, outcome: Result<Value, String>) -> Value {
    let (output, exception) = match outcome {
        Ok(output) => (output, Value::Null),
        Err(exception) => (Value::Null, Value::String(exception)),
    };
    let mut object = Map::new();
    object.insert("api_name".into(), api_name.into());
    object.insert("input".into(), input);
    object.insert("output".into(), output);
    object.insert("exception".into(), exception);
    Value::Object(object)
}

/// `{name: args[name], ...}` for the given names in that order: the
/// `input_parameters` dict most APIs build from their arguments.
pub fn input_of(args: &Args<'_>, names: &[&str]) -> Value {
    Value::Object(
        names
            .iter()
            .map(|name| (name.to_string(), args.value(name).clone()))
            .collect(),
    )
}

/// Python's `==` between two optional values: a field missing from both
/// sides compares equal, missing from one side unequal.
fn same(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => py_eq(a, b),
        (a, b) => a.is_none() && b.is_none(),
    }
}

/// `response[field] == groundtruth[field]` for each field, with Python's
/// `==` (`1 == 1.0`).
pub fn same_fields(response: &Value, groundtruth: &Value, fields: &[&str]) -> bool {
    fields
        .iter()
        .all(|field| same(response.get(field), groundtruth.get(field)))
}

/// `response["input"][field] == groundtruth["input"][field]` for each
/// field, with Python's `==`.
pub fn same_inputs(response: &Value, groundtruth: &Value, fields: &[&str]) -> bool {
    fields
        .iter()
        .all(|field| same(input(response, field), input(groundtruth, field)))
}

/// `result["input"][field]`, when both are there.
fn input<'a>(result: &'a Value, field: &str) -> Option<&'a Value> {
    result.get("input").and_then(|i| i.get(field))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The catalog names its parameters as the reference's classes do,
    /// in the same order, but for the timed switches' device (the
    /// dialogues' `device_id`, the code's `name`): the scoring's renaming
    /// and its `DeviceName` correction are about these two alone.
    #[test]
    fn only_the_timed_switches_name_a_parameter_otherwise() {
        let mut renamed = Vec::new();
        for api in APIS {
            let ours: Vec<&str> = api.spec.parameters.iter().map(|p| p.name).collect();
            let theirs: Vec<&str> = api.reference.input_parameters.iter().map(|p| p.0).collect();
            assert_eq!(ours.len(), theirs.len(), "{}", api.spec.name);
            for (a, b) in ours.iter().zip(&theirs) {
                if a != b {
                    renamed.push((api.spec.name, *a, *b));
                }
            }
        }
        assert_eq!(
            renamed,
            [
                ("CancelTimedSwitch", "device_id", "name"),
                ("TimedSwitch", "device_id", "name")
            ]
        );
    }

    #[test]
    fn fields_compare_as_python_compares_them() {
        let a = json!({"output": 1, "input": {"n": 2.0}});
        let b = json!({"output": 1.0, "input": {"n": 2}});
        assert!(same_fields(&a, &b, &["output", "missing"]));
        assert!(same_inputs(&a, &b, &["n"]));
        assert!(!same_fields(&a, &json!({"output": null}), &["output"]));
        assert!(!same_fields(&a, &json!({}), &["output"]));
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for the APIs' tests: a state over small databases written in
    //! the test, and calls with keyword arguments.

    use serde_json::{Map, Value};

    use super::super::state::State;
    use super::Api;
    use crate::sim::pyargs::bind;
    use crate::sim::Databases;

    /// A state over the given databases (name, JSON).
    pub fn state(databases: &[(&str, Value)]) -> State {
        let dir = tempfile::tempdir().unwrap();
        for (name, value) in databases {
            std::fs::write(dir.path().join(format!("{name}.json")), value.to_string()).unwrap();
        }
        State::new(&Databases::load_documents(dir.path()).unwrap())
    }

    /// The Account database most tests need: JohnDoe's token is `t-john`.
    pub fn accounts() -> (&'static str, Value) {
        (
            "Account",
            serde_json::json!({
                "JohnDoe": {"password": "pass123", "token": "t-john", "email": "john@example.com"},
                "JaneSmith": {"password": "pass456", "token": "t-jane", "email": "jane@example.com"}
            }),
        )
    }

    /// Call `api` with keyword arguments (a JSON object), bound to its
    /// parameters as the world binds them.
    pub fn call(api: &Api, state: &mut State, arguments: Value) -> Value {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object")
        };
        let arguments: Map<String, Value> = arguments;
        let names = |required: bool| -> Vec<&str> {
            api.spec
                .parameters
                .iter()
                .filter(|p| p.required == required)
                .map(|p| p.name)
                .collect()
        };
        let args = bind(api.spec.name, &arguments, &names(true), &names(false))
            .unwrap_or_else(|e| panic!("{e}"));
        (api.call)(state, args)
    }
}
