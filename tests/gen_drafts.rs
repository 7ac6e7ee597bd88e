//! `talkforge generate dialogues` and `generate database` against a stub
//! OpenAI-compatible server on 127.0.0.1: every reason a draft is dropped
//! or discarded, a draft kept apart because a call raised, an accepted
//! draft whose recorded results verify, resuming, and seeding a new
//! databases folder.

mod eval_support;

use std::path::Path;
use std::process::Command;

use eval_support::{text_answer, Stub};
use serde_json::{json, Value};

const KEY: &str = "sk-stub-DRAFTS-51c2";

/// A small API-Bank databases folder: one account, one alarm, one
/// reminder, one agenda item, a stock, an empty meeting list.
fn write_apibank_databases(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let files = [
        (
            "Account",
            json!({"JohnDoe": {"password": "pass123", "token": "a9s8d7f6g5h4j3k2l1", "email": "john@example.com"}}),
        ),
        (
            "Alarm",
            json!({"1": {"time": "2023-03-16 07:00:00", "username": "JohnDoe"}}),
        ),
        (
            "Reminder",
            json!({"1": {"content": "Call mom", "time": "2023-03-16 14:30:00", "username": "JohnDoe"}}),
        ),
        (
            "Agenda",
            json!({"1": {"content": "Dentist", "time": "2023-03-20 10:00:00", "location": "Clinic", "username": "JohnDoe"}}),
        ),
        ("Stock", json!({"AAPL": {"2023-03-01": 150.5}})),
        ("Meeting", json!({})),
    ];
    for (name, value) in files {
        std::fs::write(
            dir.join(format!("{name}.json")),
            serde_json::to_string_pretty(&value).unwrap(),
        )
        .unwrap();
    }
}

/// The draft the stub writes for a prompt, by the API the prompt asks for.
fn draft_for(prompt: &str) -> &'static str {
    let asks = |api: &str| prompt.contains(&format!("assistant calls {api}."));
    if asks("AddAlarm") {
        // Accepted: every argument grounded (the token by GetUserToken's
        // real result), every call succeeds; the guessed result is dropped.
        "Here you go:\n```\nUser: I'm JohnDoe, my password is pass123. Wake me at 2023-03-20 07:00:00 please.\n\
         API-Request: [GetUserToken(username='JohnDoe', password='pass123')]\n\
         API-Response: {'token': 'made-up'}\n\
         AI: You're logged in.\n\
         API-Request: [AddAlarm(token='a9s8d7f6g5h4j3k2l1', time='2023-03-20 07:00:00')]\n\
         AI: Your alarm is set for 7 am on March 20.\n```"
    } else if asks("AddReminder") {
        // Raised: grounded, but the time is no timestamp.
        "User: I'm JohnDoe (password pass123). Remind me to Call mom tomorrow.\n\
         API-Request: [GetUserToken(username='JohnDoe', password='pass123')]\n\
         AI: Logged in.\n\
         API-Request: [AddReminder(token='a9s8d7f6g5h4j3k2l1', content='Call mom', time='tomorrow')]\n\
         AI: I will remind you."
    } else if asks("AddAgenda") {
        "User: Add Dentist to my agenda.\n\
         API-Request: [AddAgenda(token='t', content='Dentist', time='2023-03-20 10:00:00', location='Clinic', colour='red')]\n\
         AI: Added."
    } else if asks("GetToday") {
        "User: What day is it?\nAPI-Request: [GetTomorrow()]\nAI: Friday."
    } else if asks("QueryStock") {
        // Dropped: the code and date come from nowhere in the dialogue.
        "User: How are my shares doing?\n\
         API-Request: [QueryStock(stock_code='AAPL', date='2023-03-01')]\n\
         AI: They closed at 150.5."
    } else if asks("AddMeeting") {
        "User: Book a meeting.\nAPI-Request: [AddMeeting(token='t', meeting_topic='Sync)]\nAI: Booked."
    } else if asks("QueryAlarm") {
        // Invalid: lint's turn-order (the assistant speaks first).
        "AI: Hello! I'm your assistant.\nUser: What day is it? I'm JohnDoe, password pass123, alarm at 2023-03-16 07:00:00.\n\
         API-Request: [GetUserToken(username='JohnDoe', password='pass123')]\n\
         API-Request: [QueryAlarm(token='a9s8d7f6g5h4j3k2l1', time='2023-03-16 07:00:00')]\n\
         AI: You have an alarm then."
    } else if asks("DeleteAlarm") {
        "User: Hello!\nAI: Hi, how can I help?"
    } else {
        panic!("no draft for this prompt:\n{prompt}")
    }
}

fn stub() -> Stub {
    Stub::start(Box::new(|_path: &str, body: &Value, _count| {
        let prompt = body["messages"][0]["content"].as_str().unwrap_or_default();
        (200, text_answer(draft_for(prompt)))
    }))
}

fn talkforge(dir: &Path, url: &str, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_talkforge"))
        .current_dir(dir)
        .args(args)
        .args(["--base-url", url, "--model", "stub-model"])
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap()
}

const APIS: &str =
    "AddAlarm,AddReminder,AddAgenda,GetToday,QueryStock,AddMeeting,DeleteAlarm,QueryAlarm";

#[test]
fn drafts_are_sorted_by_what_holds_up_and_accepted_ones_verify() {
    let dir = tempfile::tempdir().unwrap();
    write_apibank_databases(&dir.path().join("db"));
    let stub = stub();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "generate",
            "dialogues",
            "--suite",
            "apibank",
            "--databases",
            "db",
            "--apis",
            APIS,
            "--out",
            "drafts",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        talkforge(dir.path(), &stub.url, &args)
    };
    let out = run(&[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(!stdout.contains(KEY) && !stderr.contains(KEY));
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    let by_name = |name: &str| {
        summary["per_draft"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {summary}"))
            .clone()
    };
    let verdict = |name: &str| {
        let d = by_name(name);
        (
            d["verdict"].as_str().unwrap().to_string(),
            d["reason"].clone(),
        )
    };
    assert_eq!(verdict("AddAlarm-1"), ("accepted".into(), Value::Null));
    assert_eq!(
        verdict("AddReminder-1"),
        ("raised".into(), json!("raised")),
        "{}",
        by_name("AddReminder-1")
    );
    assert_eq!(
        verdict("AddAgenda-1"),
        ("discarded".into(), json!("unknown-argument"))
    );
    assert_eq!(
        verdict("GetToday-1"),
        ("discarded".into(), json!("unknown-api"))
    );
    assert_eq!(
        verdict("QueryStock-1"),
        ("dropped".into(), json!("ungrounded-argument"))
    );
    assert_eq!(
        verdict("AddMeeting-1"),
        ("discarded".into(), json!("malformed-call"))
    );
    assert_eq!(
        verdict("DeleteAlarm-1"),
        ("discarded".into(), json!("no-call"))
    );
    assert_eq!(
        verdict("QueryAlarm-1"),
        ("discarded".into(), json!("invalid")),
        "{}",
        by_name("QueryAlarm-1")
    );
    assert!(by_name("QueryAlarm-1")["detail"]
        .as_str()
        .unwrap()
        .contains("turn-order"));
    assert_eq!(
        (
            summary["drafts"].clone(),
            summary["accepted"].clone(),
            summary["raised"].clone()
        ),
        (json!(8), json!(1), json!(1))
    );
    assert_eq!(
        (summary["dropped"].clone(), summary["discarded"].clone()),
        (json!(1), json!(5))
    );
    assert!((summary["drop_rate"].as_f64().unwrap() - 6.0 / 8.0).abs() < 1e-9);
    assert_eq!(by_name("AddAlarm-1")["guessed_results"], json!(1));
    assert!(by_name("AddAgenda-1")["detail"]
        .as_str()
        .unwrap()
        .contains("colour"));
    assert!(by_name("AddReminder-1")["detail"]
        .as_str()
        .unwrap()
        .contains("AddReminder"));

    // The accepted draft records what the APIs really returned, and verify
    // agrees; the one that raised records its exception.
    let accepted = dir.path().join("drafts/accepted/AddAlarm-1.jsonl");
    let text = std::fs::read_to_string(&accepted).unwrap();
    assert!(
        text.contains("a9s8d7f6g5h4j3k2l1") && !text.contains("made-up"),
        "{text}"
    );
    assert!(text.contains("\"output\": \"success\""), "{text}");
    let verify = Command::new(env!("CARGO_BIN_EXE_talkforge"))
        .current_dir(dir.path())
        .args([
            "verify",
            "drafts/accepted",
            "--databases",
            "db",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        verify.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
    let raised =
        std::fs::read_to_string(dir.path().join("drafts/raised/AddReminder-1.jsonl")).unwrap();
    assert!(raised.contains("does not match format"), "{raised}");
    assert!(dir
        .path()
        .join("drafts/dropped/QueryStock-1.jsonl")
        .exists());
    // A discarded draft keeps the model's reply, for the reviewer.
    let reply =
        std::fs::read_to_string(dir.path().join("drafts/discarded/GetToday-1.txt")).unwrap();
    assert!(reply.contains("GetTomorrow"));
    assert_eq!(stub.requests().len(), 8);

    // A rerun keeps every draft (a reviewer may have edited them) and asks
    // nothing; the summary still counts them all.
    std::fs::write(&accepted, text.replace("Your alarm is set", "Alarm set")).unwrap();
    let again: Value = serde_json::from_slice(&run(&[]).stdout).unwrap();
    assert_eq!(again["kept"].as_array().unwrap().len(), 8);
    assert_eq!(
        (again["drafts"].clone(), again["accepted"].clone()),
        (json!(8), json!(1))
    );
    assert!(std::fs::read_to_string(&accepted)
        .unwrap()
        .contains("Alarm set"));
    assert_eq!(stub.requests().len(), 8);

    // --force drafts again, from the cache.
    let forced: Value = serde_json::from_slice(&run(&["--force"]).stdout).unwrap();
    assert_eq!(forced["kept"].as_array().unwrap().len(), 0);
    assert_eq!(forced["accepted"], json!(1));
    assert!(std::fs::read_to_string(&accepted)
        .unwrap()
        .contains("Your alarm is set"));
    assert_eq!(stub.requests().len(), 8);
}

#[test]
fn tooltalk_drafts_start_from_accepted_scenarios() {
    let dir = tempfile::tempdir().unwrap();
    eval_support::write_databases(&dir.path().join("db"));
    let pool = json!({
        "name": "Alarm-AddAlarm", "plugins": ["Alarm"], "required_tool": "AddAlarm",
        "model": "stub", "prompt_sha256": "0", "raw_reply": "",
        "scenarios": [
            {"text": "Alice wants an alarm at 07:30:00 (AddAlarm)", "tools": ["AddAlarm"], "accepted": true, "reasons": []},
            {"text": "rejected one", "tools": [], "accepted": false, "reasons": ["too short"]}
        ]
    });
    std::fs::create_dir_all(dir.path().join("pools")).unwrap();
    std::fs::write(
        dir.path().join("pools/Alarm-AddAlarm.json"),
        pool.to_string(),
    )
    .unwrap();
    let stub = Stub::start(Box::new(|_: &str, body: &Value, _| {
        let prompt = body["messages"][0]["content"].as_str().unwrap_or_default();
        assert!(prompt.contains("Alice wants an alarm"), "{prompt}");
        assert!(
            !prompt.contains("session_token ("),
            "the world supplies it: {prompt}"
        );
        (200, text_answer("User: Set an alarm for 07:30:00 please.\nAPI-Request: [AddAlarm(time='07:30:00')]\nAI: Done."))
    }));
    let out = talkforge(
        dir.path(),
        &stub.url,
        &[
            "generate",
            "dialogues",
            "--suite",
            "tooltalk",
            "--databases",
            "db",
            "--scenarios",
            "pools",
            "--out",
            "drafts",
            "--format",
            "json",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (summary["prompts"].clone(), summary["accepted"].clone()),
        (json!(1), json!(1)),
        "{summary}"
    );
    let file = dir.path().join("drafts/accepted/Alarm-AddAlarm-1.json");
    let conversation: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let call = &conversation["conversation"][1]["apis"][0];
    assert_eq!(call["request"]["parameters"]["time"], json!("07:30:00"));
    // fill put in the session token and the real result.
    assert!(
        call["request"]["parameters"]["session_token"].is_string(),
        "{call}"
    );
    assert!(call["response"]["alarm_id"].is_string(), "{call}");
    assert_eq!(
        conversation["scenario"],
        json!("Alice wants an alarm at 07:30:00 (AddAlarm)")
    );
}

#[test]
fn seeding_writes_a_new_folder_with_what_valid_proposals_added() {
    let dir = tempfile::tempdir().unwrap();
    write_apibank_databases(&dir.path().join("db"));
    let stub = Stub::start(Box::new(|_: &str, _: &Value, _| {
        (
            200,
            text_answer(
                "Here are the calls:\n\
                 [AddAlarm(token='a9s8d7f6g5h4j3k2l1', time='2023-04-01 06:00:00')]\n\
                 [AddAlarm(token='a9s8d7f6g5h4j3k2l1', time='2023-04-02 06:30:00')]\n\
                 [AddAlarm(token='nobody', time='2023-04-03 06:00:00')]\n\
                 [AddAlarm(token='a9s8d7f6g5h4j3k2l1', time='soon')]\n\
                 [DeleteAlarm(token='a9s8d7f6g5h4j3k2l1', time='2023-03-16 07:00:00')]\n\
                 [AddAlarm(token='a9s8d7f6g5h4j3k2l1', time='2023-04-05 06:00:00', label='x')]\n\
                 [AddAlarm(token='a9s8d7f6g5h4j3k2l1', time='2023-04-06)]",
            ),
        )
    }));
    let seed = |out: &str| {
        talkforge(
            dir.path(),
            &stub.url,
            &[
                "generate",
                "database",
                "--suite",
                "apibank",
                "--databases",
                "db",
                "--apis",
                "AddAlarm",
                "--out",
                out,
                "--format",
                "json",
            ],
        )
    };
    let out = seed("db-seeded");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (summary["proposals"].clone(), summary["added"].clone()),
        (json!(7), json!(2)),
        "{summary}"
    );
    let reasons: Vec<&str> = summary["per_proposal"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["reason"].as_str())
        .collect();
    assert_eq!(
        reasons,
        [
            "raised",
            "raised",
            "other-api",
            "unknown-argument",
            "malformed-call"
        ]
    );
    assert_eq!(summary["changed"], json!(["Alarm"]));
    // The new folder holds every database; Alarm has the two new alarms
    // after the old one, and the source is untouched.
    let alarms: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("db-seeded/Alarm.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        alarms,
        json!({"1": {"time": "2023-03-16 07:00:00", "username": "JohnDoe"},
               "2": {"username": "JohnDoe", "time": "2023-04-01 06:00:00"},
               "3": {"username": "JohnDoe", "time": "2023-04-02 06:30:00"}})
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("db-seeded/Stock.json")).unwrap(),
        std::fs::read_to_string(dir.path().join("db/Stock.json")).unwrap()
    );
    let source: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("db/Alarm.json")).unwrap())
            .unwrap();
    assert_eq!(source.as_object().unwrap().len(), 1);
    // Never into the source, nor over a folder holding files.
    let again = seed("db");
    assert_eq!(again.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("is the databases folder it starts from")
    );
    let over = seed("db-seeded");
    assert_eq!(over.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&over.stderr).contains("--force"));
}
