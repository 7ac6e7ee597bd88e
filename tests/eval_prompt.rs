//! Snapshots of what the openai predictor sends: the system prompt and a
//! full request body with gold history and a call made in the turn.

use serde_json::json;
use talkforge::eval::openai::{request_body, system_prompt, ApiMode, OpenAiSettings};
use talkforge::eval::{PredictedCall, TurnInput};
use talkforge::model::{Conversation, GoldCall};

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
        call: made,
        parsed: true,
        metadata: None,
    }];
    let settings = OpenAiSettings {
        model: "some-model".into(),
        api_mode: ApiMode::Exact,
        docs: true,
        temperature: None,
        cache: None,
    };
    let input = TurnInput {
        conversation: &conversation,
        turn: 3,
        predicted: &predicted,
    };
    insta::assert_json_snapshot!("request_body_exact", request_body(&settings, &input));
}
