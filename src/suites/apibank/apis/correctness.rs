//! The correctness checks of the APIs whose own tests only check a call
//! against itself: for each, what its rule compares (a change there makes
//! the call wrong) and what it leaves alone (a change there keeps it
//! right), as the reference's `check_api_call_correctness` reads.

use serde_json::{json, Value};

use super::api;

/// `result` with the value at JSON pointer `pointer` replaced.
fn with(result: &Value, pointer: &str, value: Value) -> Value {
    let mut changed = result.clone();
    *changed
        .pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {pointer} in {result}")) = value;
    changed
}

/// Check `name`'s rule: the gold result against itself, then each
/// `(pointer, value, verdict)` change of the response.
fn rule(name: &str, gold: Value, changes: &[(&str, Value, bool)]) {
    let correct = api(name).unwrap().correct;
    assert!(
        correct(&gold, &gold),
        "{name}: the gold call against itself"
    );
    for (pointer, value, expected) in changes {
        let response = with(&gold, pointer, value.clone());
        assert_eq!(
            correct(&response, &gold),
            *expected,
            "{name}: {pointer} = {value}"
        );
    }
}

fn result(name: &str, input: Value, output: Value) -> Value {
    json!({"api_name": name, "input": input, "output": output, "exception": null})
}

#[test]
fn inputs_output_and_exception_all_compared() {
    for (name, input) in [
        ("CheckToken", json!({"token": "t1"})),
        ("DeleteAccount", json!({"token": "t1"})),
        (
            "DeleteAlarm",
            json!({"token": "t1", "time": "2023-03-20 07:00:00"}),
        ),
        (
            "ForgotPassword",
            json!({"status": "Forgot Password", "username": "a", "email": "a@x.com"}),
        ),
        ("GetUserToken", json!({"username": "a", "password": "p"})),
        ("ImageCaption", json!({"url": "http://x/a.png"})),
        (
            "ModifyAlarm",
            json!({"token": "t1", "from_time": "2023-03-20 07:00:00", "to_time": "2023-03-20 08:00:00"}),
        ),
        (
            "ModifyPassword",
            json!({"token": "t1", "old_password": "p", "new_password": "q"}),
        ),
        (
            "OpenBankAccount",
            json!({"account": "a1", "password": "p", "name": "Ann"}),
        ),
        (
            "QueryAlarm",
            json!({"token": "t1", "time": "2023-03-20 07:00:00"}),
        ),
        ("SpeechRecognition", json!({"url": "http://x/a.wav"})),
    ] {
        let first = input.as_object().unwrap().keys().next().unwrap().clone();
        rule(
            name,
            result(name, input, json!("success")),
            &[
                (&format!("/input/{first}"), json!("other"), false),
                ("/output", json!("failed"), false),
                ("/exception", json!("boom"), false),
                ("/api_name", json!("Renamed"), true),
            ],
        );
    }
}

#[test]
fn reminders_compare_content_words_case_blind_and_the_time_exactly() {
    for name in ["AddReminder", "QueryReminder"] {
        let gold = result(
            name,
            json!({"token": "t1", "content": "Call the dentist", "time": "2023-03-20 07:00:00"}),
            json!("success"),
        );
        rule(
            name,
            gold,
            &[
                ("/input/content", json!("call THE dentist"), true),
                ("/input/content", json!("Call the doctor now please"), false),
                ("/input/time", json!("2023-03-20 07:00"), false),
                ("/input/token", json!("t2"), true),
                ("/output", json!("failed"), false),
            ],
        );
    }
}

#[test]
fn agenda_queries_and_changes_compare_content_words_with_case() {
    for name in ["ModifyAgenda", "QueryAgenda"] {
        let gold = result(
            name,
            json!({"token": "t1", "content": "Gym session today", "time": "2023-03-20", "location": "Gym"}),
            json!("success"),
        );
        rule(
            name,
            gold,
            &[
                ("/input/content", json!("Gym session today please"), true),
                ("/input/content", json!("gym Session today"), false),
                ("/input/location", json!("gym"), false),
                ("/input/time", json!("2023-03-21"), false),
                ("/input/token", json!("t2"), true),
            ],
        );
    }
}

#[test]
fn meetings_compare_the_topic_by_words_and_the_other_inputs_exactly() {
    for name in ["AddMeeting", "ModifyMeeting", "QueryMeeting"] {
        let gold = result(
            name,
            json!({"token": "t1", "meeting_topic": "Budget review meeting", "start_time": "2023-03-20 14:00:00",
                   "end_time": "2023-03-20 15:00:00", "location": "Room A", "attendees": ["Ann", "Bo"]}),
            json!("success"),
        );
        rule(
            name,
            gold,
            &[
                ("/input/meeting_topic", json!("Budget review"), true),
                ("/input/meeting_topic", json!("Sales"), false),
                ("/input/attendees", json!(["Bo", "Ann"]), false),
                ("/input/location", json!("Room B"), false),
                ("/input/token", json!("t2"), false),
            ],
        );
    }
}

#[test]
fn a_deletion_that_succeeded_compares_the_time_only() {
    let gold = result(
        "DeleteAgenda",
        json!({"token": "t1", "content": "Gym", "time": "2023-03-20", "location": "Gym"}),
        json!("success"),
    );
    rule(
        "DeleteAgenda",
        gold.clone(),
        &[
            ("/input/content", json!("Something else"), true),
            ("/input/time", json!("2023-03-21"), false),
            ("/output", json!("failed"), false),
        ],
    );
    // When the gold call failed, its output and exception are compared.
    let failed = with(
        &with(&gold, "/output", Value::Null),
        "/exception",
        json!("not found"),
    );
    rule(
        "DeleteAgenda",
        failed,
        &[
            ("/input/time", json!("2023-03-21"), true),
            ("/exception", json!("other"), false),
        ],
    );
}

#[test]
fn scenes_compare_names_case_blind_and_devices_in_any_order() {
    rule(
        "QueryScene",
        result(
            "QueryScene",
            json!({"name": "Morning"}),
            json!([{"name": "light"}]),
        ),
        &[
            ("/input/name", json!(" MORNING "), true),
            ("/input/name", json!("Evening"), false),
            ("/output", json!([]), false),
        ],
    );
    rule(
        "DeleteScene",
        result("DeleteScene", json!({"name": "Morning"}), json!("success")),
        &[
            ("/input/name", json!("morning"), true),
            ("/output", json!("failed"), false),
        ],
    );
    let devices = json!([{"name": "Light", "description": "Hall light"}, {"name": "fan", "description": "Fan"}]);
    rule(
        "ModifyScene",
        result(
            "ModifyScene",
            json!({"name": "Morning", "devices": devices}),
            json!("success"),
        ),
        &[
            (
                "/input/devices",
                json!([{"name": "fan ", "description": "Fan"}, {"name": "light", "description": " Hall light"}]),
                true,
            ),
            ("/input/devices/0/description", json!("Porch light"), false),
            ("/input/name", json!("Evening"), false),
        ],
    );
}

#[test]
fn a_timed_switch_cancellation_compares_device_and_moment() {
    rule(
        "CancelTimedSwitch",
        result(
            "CancelTimedSwitch",
            json!({"device_id": "Lamp", "time": "2023-03-20 07:00:00"}),
            json!("success"),
        ),
        &[
            ("/input/device_id", json!(" lamp"), true),
            ("/input/device_id", json!("Fan"), false),
            ("/input/time", json!("2023-03-20 08:00:00"), false),
        ],
    );
}

#[test]
fn emails_compare_receiver_case_blind_and_subject_and_content_stripped() {
    rule(
        "SendEmail",
        result(
            "SendEmail",
            json!({"receiver": "Ann@X.com", "subject": "Hi", "content": "See you"}),
            json!("success"),
        ),
        &[
            ("/input/receiver", json!(" ann@x.com"), true),
            ("/input/subject", json!("Hi "), true),
            ("/input/subject", json!("hi"), false),
            ("/input/content", json!("See you soon"), false),
        ],
    );
}

#[test]
fn music_and_tool_search_compare_outputs_only() {
    rule(
        "PlayMusic",
        result(
            "PlayMusic",
            json!({"music_name": "Yesterday"}),
            json!("success"),
        ),
        &[
            ("/input/music_name", json!("Other"), true),
            ("/output", json!("failed"), false),
        ],
    );
    rule(
        "ToolSearcher",
        result(
            "ToolSearcher",
            json!({"keywords": "alarm"}),
            json!({"name": "AddAlarm"}),
        ),
        &[
            ("/input/keywords", json!("set an alarm"), true),
            ("/output", json!({"name": "QueryAlarm"}), false),
            ("/exception", json!("boom"), false),
        ],
    );
}
