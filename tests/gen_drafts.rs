//! `talkforge generate dialogues` and `generate database` against a stub
//! OpenAI-compatible server on 127.0.0.1: every reason a draft is dropped
//! or discarded, a draft kept apart because a call raised, one that never
//! calls its API, an accepted draft whose recorded results verify, the
//! funnel, N drafts as N prompts, reruns from the cache, the judge model,
//! resuming, and seeding a new databases folder.

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
    } else if asks("QueryReminder") {
        // Dropped: it logs in and forgets the call it was drafted for.
        "User: I'm JohnDoe, my password is pass123. What are my reminders?\n\
         API-Request: [GetUserToken(username='JohnDoe', password='pass123')]\n\
         AI: You're logged in."
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

const APIS: &str = "AddAlarm,AddReminder,AddAgenda,GetToday,QueryStock,AddMeeting,DeleteAlarm,QueryAlarm,QueryReminder";

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
        verdict("QueryReminder-1"),
        ("dropped".into(), json!("missing-target"))
    );
    assert!(by_name("QueryReminder-1")["detail"]
        .as_str()
        .unwrap()
        .contains("QueryReminder"));
    assert_eq!(
        (
            summary["drafts"].clone(),
            summary["accepted"].clone(),
            summary["raised"].clone()
        ),
        (json!(9), json!(1), json!(1))
    );
    assert_eq!(
        (summary["dropped"].clone(), summary["discarded"].clone()),
        (json!(2), json!(5))
    );
    assert!((summary["drop_rate"].as_f64().unwrap() - 7.0 / 9.0).abs() < 1e-9);
    // The funnel: each stage keeps what the next receives.
    assert_eq!(
        summary["stages"],
        json!([
            {"stage": "format", "input": 9, "kept": 4, "dropped": 5, "reasons":
                {"invalid": 1, "malformed-call": 1, "no-call": 1, "unknown-api": 1, "unknown-argument": 1}},
            {"stage": "execution", "input": 4, "kept": 3, "dropped": 1, "reasons": {"raised": 1}},
            {"stage": "target", "input": 3, "kept": 2, "dropped": 1, "reasons": {"missing-target": 1}},
            {"stage": "grounding", "input": 2, "kept": 1, "dropped": 1, "reasons": {"ungrounded-argument": 1}},
        ])
    );
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
    // The draft that forgot its API keeps what the call it made returned.
    let forgot =
        std::fs::read_to_string(dir.path().join("drafts/dropped/QueryReminder-1.jsonl")).unwrap();
    assert!(forgot.contains("a9s8d7f6g5h4j3k2l1"), "{forgot}");
    // A discarded draft keeps the model's reply, for the reviewer.
    let reply =
        std::fs::read_to_string(dir.path().join("drafts/discarded/GetToday-1.txt")).unwrap();
    assert!(reply.contains("GetTomorrow"));
    assert_eq!(stub.requests().len(), 9);

    // A rerun keeps every draft (a reviewer may have edited them) and asks
    // nothing; the summary still counts them all.
    std::fs::write(&accepted, text.replace("Your alarm is set", "Alarm set")).unwrap();
    let again: Value = serde_json::from_slice(&run(&[]).stdout).unwrap();
    assert_eq!(again["kept"].as_array().unwrap().len(), 9);
    assert_eq!(
        (again["drafts"].clone(), again["accepted"].clone()),
        (json!(9), json!(1))
    );
    assert_eq!(again["stages"], summary["stages"]);
    assert!(std::fs::read_to_string(&accepted)
        .unwrap()
        .contains("Alarm set"));
    assert_eq!(stub.requests().len(), 9);
    // The human output prints the funnel as a table.
    let human = talkforge(
        dir.path(),
        &stub.url,
        &[
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
        ],
    );
    let human = String::from_utf8_lossy(&human.stdout);
    let rows: Vec<Vec<&str>> = human
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() >= 4)
        .collect();
    let row = |stage: &str| {
        rows.iter()
            .find(|w| w[0] == stage)
            .unwrap_or_else(|| panic!("no {stage} row in\n{human}"))[1..4]
            .to_vec()
    };
    assert_eq!(row("stage"), ["in", "kept", "dropped"], "{human}");
    assert_eq!(row("format"), ["9", "4", "5"], "{human}");
    assert_eq!(row("target"), ["3", "2", "1"], "{human}");
    assert_eq!(row("grounding"), ["2", "1", "1"], "{human}");

    // --force drafts again, from the cache.
    let forced: Value = serde_json::from_slice(&run(&["--force"]).stdout).unwrap();
    assert_eq!(forced["kept"].as_array().unwrap().len(), 0);
    assert_eq!(forced["accepted"], json!(1));
    assert!(std::fs::read_to_string(&accepted)
        .unwrap()
        .contains("Your alarm is set"));
    assert_eq!(stub.requests().len(), 9);
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
            {"text": "rejected one", "tools": [], "accepted": false, "reasons": ["too short"]},
            {"text": "Alice checks her alarms, then adds one at 09:00:00 (FindAlarms, AddAlarm)", "tools": ["FindAlarms", "AddAlarm"], "accepted": true, "reasons": []}
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
        assert!(
            !prompt.contains("session_token ("),
            "the world supplies it: {prompt}"
        );
        if prompt.contains("Alice wants an alarm") {
            (200, text_answer("User: Set an alarm for 07:30:00 please.\nAPI-Request: [AddAlarm(time='07:30:00')]\nAI: Done."))
        } else {
            // The scenario's required call is never made.
            (200, text_answer("User: Which alarms do I have?\nAPI-Request: [FindAlarms()]\nAI: One, at 08:00:00."))
        }
    }));
    let run = |extra: &[&str]| {
        let mut args = vec![
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
        ];
        args.extend_from_slice(extra);
        talkforge(dir.path(), &stub.url, &args)
    };
    let out = run(&[]);
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
        (json!(2), json!(1)),
        "{summary}"
    );
    let forgot = &summary["per_draft"][1];
    assert_eq!(
        (forgot["name"].clone(), forgot["reason"].clone()),
        (json!("Alarm-AddAlarm-3"), json!("missing-target")),
        "{summary}"
    );
    assert!(forgot["detail"].as_str().unwrap().contains("AddAlarm"));
    // It is recorded with what FindAlarms really returned.
    let dropped: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("drafts/dropped/Alarm-AddAlarm-3.json")).unwrap(),
    )
    .unwrap();
    let call = &dropped["conversation"][1]["apis"][0];
    assert!(call["response"].to_string().contains("aaaa-bbbb"), "{call}");
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
    // Drafted again from the cache, the file is the same, byte for byte
    // (its conversation id and session token included).
    let written = std::fs::read(&file).unwrap();
    assert_eq!(run(&["--force"]).status.code(), Some(0));
    assert_eq!(stub.requests().len(), 2);
    assert!(std::fs::read(&file).unwrap() == written);
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
                 [AddAlarm(token='a9s8d7f6g5h4j3k2l1', time='2023-04-01 06:00:00')]\n\
                 [AddAlarm(token='a9s8d7f6g5h4j3k2l1', time='2023-03-16 07:00:00')]\n\
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
        (json!(9), json!(2)),
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
            "duplicate-record",
            "duplicate-record",
            "raised",
            "raised",
            "other-api",
            "unknown-argument",
            "malformed-call"
        ]
    );
    // A repeated proposal, and one that repeats a record already there,
    // add nothing: each says which record it repeats.
    let details: Vec<&str> = summary["per_proposal"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["reason"] == "duplicate-record")
        .map(|p| p["detail"].as_str().unwrap())
        .collect();
    assert_eq!(
        details,
        [
            "Alarm: the new record 4 repeats record 2",
            "Alarm: the new record 4 repeats record 1"
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

/// `generate database --dry-run --out` writes the seeding prompts, as
/// `generate dialogues --dry-run --out` writes its own, and sends nothing;
/// the real run then writes beside them.
#[test]
fn a_seeding_dry_run_writes_its_prompts() {
    let dir = tempfile::tempdir().unwrap();
    write_apibank_databases(&dir.path().join("db"));
    let stub = Stub::start(Box::new(|_: &str, _: &Value, _| {
        (
            200,
            text_answer("[AddAlarm(token='a9s8d7f6g5h4j3k2l1', time='2023-04-01 06:00:00')]"),
        )
    }));
    let seed = |extra: &[&str]| {
        let mut args = vec![
            "generate",
            "database",
            "--suite",
            "apibank",
            "--databases",
            "db",
            "--apis",
            "AddAlarm,AddReminder",
            "--out",
            "seeded",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        talkforge(dir.path(), &stub.url, &args)
    };
    let out = seed(&["--dry-run"]);
    assert_eq!(out.status.code(), Some(0));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["prompts"], json!(2));
    assert_eq!(summary["files"].as_array().unwrap().len(), 2, "{summary}");
    let prompt =
        std::fs::read_to_string(dir.path().join("seeded/prompts/AddAlarm.prompt.md")).unwrap();
    assert!(prompt.contains("AddAlarm") && prompt.contains("2023-03-16 07:00:00"));
    assert!(dir
        .path()
        .join("seeded/prompts/AddReminder.prompt.md")
        .exists());
    assert!(stub.requests().is_empty());
    // Never into the databases it reads.
    let into_source = talkforge(
        dir.path(),
        &stub.url,
        &[
            "generate",
            "database",
            "--suite",
            "apibank",
            "--databases",
            "db",
            "--out",
            "db",
            "--dry-run",
        ],
    );
    assert_eq!(into_source.status.code(), Some(2));
    assert!(!dir.path().join("db/prompts").exists());
    // The prompts a dry run left do not make --out a folder to refuse.
    let real = seed(&[]);
    assert_eq!(
        real.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&real.stderr)
    );
    assert!(dir.path().join("seeded/Alarm.json").exists());
}

/// `generate dialogues` over API-Bank with `db` in `dir`.
fn draft_apibank(dir: &Path, url: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "generate",
        "dialogues",
        "--suite",
        "apibank",
        "--databases",
        "db",
        "--out",
        "drafts",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    talkforge(dir, url, &args)
}

fn summary_of(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// `--drafts N` renders N different prompts for every API: records drawn
/// without replacement where the database has enough, and for an API with
/// no database or one record, another situation and the draft's number.
#[test]
fn n_drafts_are_n_different_prompts() {
    let dir = tempfile::tempdir().unwrap();
    write_apibank_databases(&dir.path().join("db"));
    // Three alarms: three drafts, three different alarms.
    std::fs::write(
        dir.path().join("db/Alarm.json"),
        json!({
            "1": {"time": "2023-03-16 07:00:00", "username": "JohnDoe"},
            "2": {"time": "2023-03-17 08:15:00", "username": "JohnDoe"},
            "3": {"time": "2023-03-18 09:30:00", "username": "JohnDoe"},
        })
        .to_string(),
    )
    .unwrap();
    let out = draft_apibank(
        dir.path(),
        "http://127.0.0.1:9/v1",
        &[
            "--apis",
            "Calculator,GetToday,AddReminder,AddAlarm",
            "--drafts",
            "3",
            "--seed",
            "1",
            "--dry-run",
        ],
    );
    assert_eq!(summary_of(&out)["prompts"], json!(12));
    let prompt = |name: &str| {
        std::fs::read_to_string(dir.path().join(format!("drafts/prompts/{name}.prompt.md")))
            .unwrap()
    };
    for api in ["Calculator", "GetToday", "AddReminder", "AddAlarm"] {
        let prompts: Vec<String> = (1..=3).map(|n| prompt(&format!("{api}-{n}"))).collect();
        for a in 0..3 {
            for b in a + 1..3 {
                assert_ne!(
                    prompts[a],
                    prompts[b],
                    "{api}-{} and {api}-{}",
                    a + 1,
                    b + 1
                );
            }
        }
    }
    let times: Vec<&str> = ["07:00:00", "08:15:00", "09:30:00"].to_vec();
    let drawn: Vec<usize> = (1..=3)
        .map(|n| {
            let text = prompt(&format!("AddAlarm-{n}"));
            let found: Vec<usize> = (0..3).filter(|i| text.contains(times[*i])).collect();
            assert_eq!(found.len(), 1, "{text}");
            found[0]
        })
        .collect();
    let mut distinct = drawn.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "records drawn: {drawn:?}");
}

/// A stub that answers like a model at a temperature above 0: each
/// request gets the next of its replies, whatever the prompt.
fn varied_stub(replies: &'static [&'static str]) -> Stub {
    Stub::start(Box::new(move |_: &str, _: &Value, count| {
        (200, text_answer(replies[count % replies.len()]))
    }))
}

/// Two drafts of the same prompt text (a template without the draft's
/// number) are two requests, cached apart: neither is the other's reply.
#[test]
fn the_cache_key_holds_the_draft_number() {
    let dir = tempfile::tempdir().unwrap();
    write_apibank_databases(&dir.path().join("db"));
    std::fs::write(
        dir.path().join("same.j2"),
        "Write a dialogue that calls {{ tools | join(', ') }}.",
    )
    .unwrap();
    let stub = varied_stub(&[
        "User: What is 2+3?\nAPI-Request: [Calculator(formula='2+3')]\nAI: It is 5.",
        "User: What is 7*6?\nAPI-Request: [Calculator(formula='7*6')]\nAI: It is 42.",
    ]);
    let args = [
        "--apis",
        "Calculator",
        "--drafts",
        "2",
        "--template",
        "same.j2",
        "--concurrency",
        "1",
    ];
    let out = draft_apibank(dir.path(), &stub.url, &args);
    let summary = summary_of(&out);
    assert_eq!(summary["accepted"], json!(2), "{summary}");
    assert_eq!(stub.requests().len(), 2, "one request a draft");
    let read = |n: usize| {
        std::fs::read_to_string(
            dir.path()
                .join(format!("drafts/accepted/Calculator-{n}.jsonl")),
        )
        .unwrap()
    };
    let (first, second) = (read(1), read(2));
    assert_ne!(first, second);
    // From the cache, each draft gets its own reply back.
    let again = draft_apibank(dir.path(), &stub.url, &[&args[..], &["--force"]].concat());
    assert_eq!(summary_of(&again)["accepted"], json!(2));
    assert_eq!(stub.requests().len(), 2);
    assert_eq!((read(1), read(2)), (first, second));
}

/// Every file under `dir`, by path relative to it, with its bytes.
/// A summary less its `usage`: what a rerun from the cache must repeat
/// (its usage says the replies were cached).
fn verdicts_of(summary: &Value) -> Value {
    let mut summary = summary.clone();
    summary.as_object_mut().unwrap().remove("usage");
    summary
}

fn tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                files.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// A rerun answered entirely from the cache writes the same summary and
/// the same files, byte for byte: with replies that differ request by
/// request, drafts sent at once, and a call whose result the reference
/// draws at random (a new account's token).
#[test]
fn a_rerun_from_the_cache_gives_the_same_verdicts_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    write_apibank_databases(&dir.path().join("db"));
    // Each prompt gets a reply of its own, chosen by what it asks for
    // (never by the order the concurrent requests arrive in).
    let stub = Stub::start(Box::new(|_: &str, body: &Value, _| {
        let prompt = body.to_string();
        let reply = if prompt.contains("RegisterUser") {
            "User: Sign me up: username newbie, password pw1, email newbie@example.com.\n\
             API-Request: [RegisterUser(username='newbie', password='pw1', email='newbie@example.com')]\n\
             AI: Your account is ready."
        } else if prompt.contains("Calculator") && prompt.len().is_multiple_of(2) {
            "User: What is 2+3?\nAPI-Request: [Calculator(formula='2+3')]\nAI: It is 5."
        } else if prompt.contains("Calculator") {
            "User: Compute it.\nAPI-Request: [Calculator(formula='9-4')]\nAI: 5."
        } else {
            "User: Hello!\nAI: Hi."
        };
        (200, text_answer(reply))
    }));
    let args = [
        "--apis",
        "RegisterUser,Calculator,GetToday",
        "--drafts",
        "3",
        "--concurrency",
        "4",
    ];
    let first = draft_apibank(dir.path(), &stub.url, &args);
    assert_eq!(first.status.code(), Some(0));
    let sent = stub.requests().len();
    assert_eq!(sent, 9);
    let written = tree(&dir.path().join("drafts"));
    let summary = summary_of(&first);
    assert!(
        summary["accepted"].as_u64().unwrap() >= 1,
        "the stub's replies include accepted drafts: {summary}"
    );
    for _ in 0..2 {
        let again = draft_apibank(dir.path(), &stub.url, &[&args[..], &["--force"]].concat());
        assert_eq!(stub.requests().len(), sent, "answered from the cache");
        let summary_again = summary_of(&again);
        assert_eq!(verdicts_of(&summary_again), verdicts_of(&summary));
        // Every reply came from the cache: nothing spent, what they cost
        // when first asked beside it.
        let usage = &summary["usage"][0];
        let cached = &summary_again["usage"][0];
        assert_eq!(
            (&usage["requests"], &usage["cached"]),
            (&json!(9), &json!(0))
        );
        assert_eq!(
            (&cached["requests"], &cached["cached"]),
            (&json!(9), &json!(9))
        );
        assert_eq!(cached["total_tokens"], json!(0));
        assert_eq!(cached["cached_total_tokens"], usage["total_tokens"]);
        let rewritten = tree(&dir.path().join("drafts"));
        assert_eq!(
            rewritten.keys().collect::<Vec<_>>(),
            written.keys().collect::<Vec<_>>()
        );
        for (name, bytes) in &written {
            if name == "summary.json" {
                let read = |b: &[u8]| verdicts_of(&serde_json::from_slice(b).unwrap());
                assert_eq!(read(&rewritten[name]), read(bytes));
                continue;
            }
            assert!(rewritten[name] == *bytes, "{name} differs");
        }
    }
}

/// The judge's side of a stub: it accepts the alarm, rejects the reminder
/// (its reply states a time no result holds), answers nonsense about the
/// sum.
fn judge_answer(prompt: &str) -> &'static str {
    if prompt.contains("AddAlarm(") {
        "{\"verdict\": \"accept\", \"reason\": \"the alarm is set as asked\"}"
    } else if prompt.contains("AddReminder(") {
        "Verdict: reject\nReason: the reply says 10 am, which no result holds."
    } else {
        "What a lovely dialogue! I would give it a seven."
    }
}

/// `--judge-model` reads each draft that passed the other checks, with
/// its real results, after execution and grounding; a draft it refuses,
/// or whose answer holds no verdict, goes to rejected/ with the reason.
#[test]
fn a_judge_model_reads_executed_drafts_and_refuses_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    write_apibank_databases(&dir.path().join("db"));
    let stub = Stub::start(Box::new(|_: &str, body: &Value, _| {
        let prompt = body["messages"][0]["content"].as_str().unwrap_or_default();
        let text = if body["model"] == "stub-judge" {
            judge_answer(prompt)
        } else if prompt.contains("assistant calls AddReminder.") {
            "User: I'm JohnDoe (password pass123). Remind me to water plants at 2023-03-20 09:00:00.\n\
             API-Request: [GetUserToken(username='JohnDoe', password='pass123')]\n\
             AI: Logged in.\n\
             API-Request: [AddReminder(token='a9s8d7f6g5h4j3k2l1', content='water plants', time='2023-03-20 09:00:00')]\n\
             AI: Done, I will remind you at 10 am."
        } else if prompt.contains("assistant calls Calculator.") {
            "User: What is 2+3?\nAPI-Request: [Calculator(formula='2+3')]\nAI: It is 5."
        } else {
            draft_for(prompt)
        };
        (200, text_answer(text))
    }));
    let args = [
        "--apis",
        "AddAlarm,AddReminder,Calculator,GetToday",
        "--judge-model",
        "stub-judge",
    ];
    let out = draft_apibank(dir.path(), &stub.url, &args);
    let summary = summary_of(&out);
    let judged: Vec<Value> = stub
        .requests()
        .into_iter()
        .filter(|r| r.body["model"] == "stub-judge")
        .map(|r| r.body)
        .collect();
    // GetToday-1 (unknown API) never reaches the judge.
    assert_eq!(judged.len(), 3);
    assert!(judged.iter().all(|b| b["temperature"] == json!(0.0)));
    // The judge reads the real results, not what the model guessed.
    let alarm = judged
        .iter()
        .map(|b| b["messages"][0]["content"].as_str().unwrap())
        .find(|p| p.contains("AddAlarm("))
        .unwrap();
    assert!(
        alarm.contains("a9s8d7f6g5h4j3k2l1") && !alarm.contains("made-up"),
        "{alarm}"
    );
    assert!(alarm.contains("success"), "{alarm}");
    let verdict = |name: &str| {
        let d = summary["per_draft"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == name)
            .unwrap()
            .clone();
        (d["verdict"].clone(), d["reason"].clone(), d)
    };
    let (v, r, alarm) = verdict("AddAlarm-1");
    assert_eq!((v, r), (json!("accepted"), Value::Null));
    assert_eq!(alarm["judge"]["verdict"], "accept");
    let (v, r, reminder) = verdict("AddReminder-1");
    assert_eq!((v, r), (json!("rejected"), json!("judge-rejected")));
    assert!(reminder["detail"].as_str().unwrap().contains("10 am"));
    let (v, r, sum) = verdict("Calculator-1");
    assert_eq!((v, r), (json!("rejected"), json!("judge-unreadable")));
    assert!(
        sum["detail"].as_str().unwrap().contains("holds no verdict"),
        "{sum}"
    );
    // Rejected drafts are written, executed, with the judge's reason.
    let rejected = dir.path().join("drafts/rejected");
    let reminder = std::fs::read_to_string(rejected.join("AddReminder-1.jsonl")).unwrap();
    assert!(reminder.contains("\"output\""), "{reminder}");
    let note = std::fs::read_to_string(rejected.join("AddReminder-1.judge.txt")).unwrap();
    assert!(
        note.contains("10 am") && note.contains("stub-model-0613"),
        "{note}"
    );
    assert!(rejected.join("Calculator-1.jsonl").exists());
    assert!(dir.path().join("drafts/accepted/AddAlarm-1.jsonl").exists());
    // The judge is the funnel's last stage.
    let stages = summary["stages"].as_array().unwrap();
    assert_eq!(
        stages.last().unwrap(),
        &json!({"stage": "judge", "input": 3, "kept": 1, "dropped": 2,
                "reasons": {"judge-rejected": 1, "judge-unreadable": 1}})
    );
    assert_eq!(
        (summary["rejected"].clone(), summary["judge_model"].clone()),
        (json!(2), json!("stub-judge"))
    );
    // Its replies are cached like every other request.
    let sent = stub.requests().len();
    let again = draft_apibank(dir.path(), &stub.url, &[&args[..], &["--force"]].concat());
    assert_eq!(verdicts_of(&summary_of(&again)), verdicts_of(&summary));
    assert_eq!(stub.requests().len(), sent);
    assert!(!rejected.join("AddAlarm-1.judge.txt").exists());
}

/// The judge's prompt line holding ToolSearcher's real result.
fn tool_search_result(prompt: &str) -> String {
    let lines: Vec<&str> = prompt.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("ToolSearcher("))
        .unwrap_or_else(|| panic!("no tool search: {prompt}"));
    lines[at..]
        .iter()
        .find(|l| l.contains("Result:"))
        .unwrap_or_else(|| panic!("no result: {prompt}"))
        .to_string()
}

/// A repository whose API-Bank subset declares the project's tool
/// descriptions: drafts against its databases are executed with them, so
/// a draft's tool search (and what the judge reads of it, and the file
/// written) carries the project's words; `--tool-descriptions` wins.
#[test]
fn drafts_search_tools_in_the_words_their_subset_declares() {
    let dir = tempfile::tempdir().unwrap();
    write_apibank_databases(&dir.path().join("db"));
    std::fs::create_dir_all(dir.path().join("conversations/own")).unwrap();
    std::fs::write(
        dir.path().join("talkforge.toml"),
        "[[dataset.subset]]\nfolder = \"own\"\nsuite = \"apibank\"\ndatabases = \"db\"\n\
         tool-descriptions = \"project\"\n",
    )
    .unwrap();
    let stub = Stub::start(Box::new(|_: &str, body: &Value, _| {
        let text = if body["model"] == "stub-judge" {
            "{\"verdict\": \"accept\", \"reason\": \"fine\"}"
        } else {
            "User: What was AAPL worth on 2023-03-01?\n\
             API-Request: [ToolSearcher(keywords='stock price')]\n\
             AI: I found the API.\n\
             API-Request: [QueryStock(stock_code='AAPL', date='2023-03-01')]\n\
             AI: It was 150.5."
        };
        (200, text_answer(text))
    }));
    let judged = |extra: &[&str]| {
        let mut args = vec![
            "--apis",
            "QueryStock",
            "--judge-model",
            "stub-judge",
            "--force",
        ];
        args.extend_from_slice(extra);
        let out = draft_apibank(dir.path(), &stub.url, &args);
        let summary = summary_of(&out);
        assert_eq!(summary["per_draft"][0]["verdict"], "accepted", "{summary}");
        let prompt = stub
            .requests()
            .into_iter()
            .rev()
            .find(|r| r.body["model"] == "stub-judge")
            .map(|r| {
                r.body["messages"][0]["content"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .unwrap();
        let file =
            std::fs::read_to_string(dir.path().join("drafts/accepted/QueryStock-1.jsonl")).unwrap();
        (tool_search_result(&prompt), file)
    };
    let project = "Tells a stock's price on a day.";
    let (result, file) = judged(&[]);
    assert!(result.contains(project), "{result}");
    assert!(file.contains(project), "{file}");
    let (result, file) = judged(&["--tool-descriptions", "reference"]);
    assert!(!result.contains(project), "{result}");
    assert!(result.contains("QueryStock"), "{result}");
    assert!(!file.contains(project), "{file}");
}
