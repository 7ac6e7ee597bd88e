//! Snapshots of what the openai predictor sends: the system prompt and a
//! full request body with gold history and a call made in the turn.

use serde_json::json;
use talkforge::dialogue::{Conversation, GoldCall};
use talkforge::run::answer::llm::body;
use talkforge::run::answer::Message;
use talkforge::run::turn_request::{chat, system_prompt, ApiMode, TurnPrompt};
use talkforge::sim::Reply;
use talkforge::suite::predict::{PredictedCall, TurnInput};

fn conversation(logged_in: bool) -> Conversation {
    let mut value = json!({
        "name": "snap", "conversation_id": "snap",
        "suites_used": ["Alarm"], "apis_used": ["FindAlarms", "DeleteAlarm"],
        "user": {"username": "alice"},
        "metadata": {"location": "Springfield", "timestamp": "2024-05-13 09:00:00"},
        "conversation": [
            {"role": "user", "text": "What alarms do I have?"},
            {"role": "assistant", "text": "One at 08:00.", "apis": [
                {"request": {"api_name": "FindAlarms", "parameters": {"session_token": "tok"}},
                 "response": {"alarms": [{"alarm_id": "aaaa-bbbb", "time": "08:00:00"}]},
                 "exception": null}]},
            {"role": "user", "text": "Remove it."},
            {"role": "assistant", "text": "Removed."}
        ]
    });
    if logged_in {
        value["metadata"]["username"] = json!("alice");
    }
    serde_json::from_value(value).unwrap()
}

#[test]
fn system_prompt_with_and_without_a_logged_in_user() {
    insta::assert_snapshot!(
        "system_prompt_logged_in",
        system_prompt(&conversation(true))
    );
    insta::assert_snapshot!(
        "system_prompt_logged_out",
        system_prompt(&conversation(false))
    );
}

#[test]
fn request_body_with_history_and_a_call_in_the_turn() {
    let conversation = conversation(true);
    let made: GoldCall = serde_json::from_value(json!({
        "request": {"api_name": "DeleteAlarm",
                    "parameters": {"alarm_id": "aaaa-bbbb", "session_token": "tok"}},
        "response": {"status": "success"}, "exception": null
    }))
    .unwrap();
    let predicted = [PredictedCall {
        api_name: made.request.api_name,
        arguments: made.request.parameters,
        response: Reply::Json(made.response),
        exception: made.exception,
        parsed: true,
        metadata: None,
    }];
    let settings = TurnPrompt {
        catalog: talkforge::suites::tooltalk::catalog(),
        api_mode: ApiMode::Exact,
        docs: true,
    };
    let model = "some-model";
    let input = TurnInput {
        conversation: &conversation,
        turn: 3,
        predicted: &predicted,
    };
    insta::assert_json_snapshot!(
        "request_body_exact",
        body(model, None, &chat(&settings, &input))
    );
}

/// An earlier assistant turn is shown as the assistant made it: its calls
/// (with results) first, then its text. The reference builds its history
/// so since microsoft/ToolTalk#10 (commit 19e23f0).
#[test]
fn an_earlier_turns_calls_come_before_its_text() {
    let mut value = serde_json::to_value(conversation(true)).unwrap();
    // A second gold call in the first assistant turn.
    let second = json!({"request": {"api_name": "FindAlarms",
                                    "parameters": {"session_token": "tok", "start_range": "07:00:00"}},
                        "response": {"alarms": []}, "exception": null});
    value["conversation"][1]["apis"]
        .as_array_mut()
        .unwrap()
        .push(second);
    let conversation: Conversation = serde_json::from_value(value).unwrap();
    let input = TurnInput {
        conversation: &conversation,
        turn: 3,
        predicted: &[],
    };
    let settings = TurnPrompt {
        catalog: talkforge::suites::tooltalk::catalog(),
        api_mode: ApiMode::Exact,
        docs: true,
    };
    let order: Vec<String> = chat(&settings, &input)
        .messages
        .into_iter()
        .filter_map(|message| match message {
            Message::User(t) => Some(format!("user: {t}")),
            Message::Assistant(t) => Some(format!("assistant: {t}")),
            Message::Call { name, .. } => Some(format!("call: {name}")),
            Message::System(_) | Message::Result { .. } | Message::Calls { .. } => None,
        })
        .collect();
    assert_eq!(
        order,
        [
            "user: What alarms do I have?",
            "call: FindAlarms",
            "call: FindAlarms",
            "assistant: One at 08:00.",
            "user: Remove it.",
        ]
    );
    let model = "m";
    let body = body(model, None, &chat(&settings, &input));
    let messages: Vec<(String, bool)> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m.get("tool_calls").is_some(),
            )
        })
        .collect();
    let expected: Vec<(String, bool)> = [
        ("system", false),
        ("user", false),
        ("assistant", true),
        ("tool", false),
        ("assistant", true),
        ("tool", false),
        ("assistant", false),
        ("user", false),
    ]
    .iter()
    .map(|(r, c)| (r.to_string(), *c))
    .collect();
    assert_eq!(messages, expected);
    assert_eq!(body["messages"][6]["content"], "One at 08:00.");
}
