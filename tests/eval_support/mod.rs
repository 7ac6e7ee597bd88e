//! Test helpers for the evaluation tests: a tiny OpenAI-compatible HTTP
//! server on 127.0.0.1 (port 0) and a small self-contained world.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{json, Value};

/// One request the stub received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub authorization: Option<String>,
    pub body: Value,
    /// When it arrived.
    pub at: Instant,
}

/// Answers a request body with a status and a JSON body.
pub type Responder = dyn Fn(&str, &Value, usize) -> (u16, Value) + Send + Sync;

/// An answer of any shape: status, extra headers, raw body.
#[derive(Debug, Clone)]
pub struct Raw {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Raw {
    pub fn json(status: u16, body: &Value) -> Raw {
        Raw {
            status,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    pub fn text(status: u16, body: &str) -> Raw {
        Raw {
            status,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Raw {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
}

/// Answers a request with a [`Raw`] answer.
pub type RawResponder = dyn Fn(&str, &Value, usize) -> Raw + Send + Sync;

pub struct Stub {
    pub url: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl Stub {
    /// Serve on a fresh port until the test process ends. `respond` gets
    /// the path, the body and the number of requests seen before.
    pub fn start(respond: Box<Responder>) -> Stub {
        Stub::start_raw(Box::new(move |path: &str, body: &Value, count| {
            let (status, answer) = respond(path, body, count);
            Raw::json(status, &answer)
        }))
    }

    /// Like [`Stub::start`], with full control over each answer.
    pub fn start_raw(respond: Box<RawResponder>) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let respond: Arc<RawResponder> = Arc::from(respond);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = log.clone();
                let respond = respond.clone();
                std::thread::spawn(move || serve(stream, &log, respond.as_ref()));
            }
        });
        Stub { url, seen }
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, log: &Mutex<Vec<Seen>>, respond: &RawResponder) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    let mut length = 0;
    let mut authorization = None;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap_or((line, ""));
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap(),
            "authorization" => authorization = Some(value.trim().to_string()),
            _ => {}
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let count = {
        let mut log = log.lock().unwrap();
        log.push(Seen {
            path: path.clone(),
            authorization,
            body: body.clone(),
            at: Instant::now(),
        });
        log.len() - 1
    };
    let answer = respond(&path, &body, count);
    let headers: String = answer
        .headers
        .iter()
        .map(|(n, v)| format!("{n}: {v}\r\n"))
        .collect();
    let text = answer.body;
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {} X\r\nContent-Type: application/json\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{text}",
        answer.status,
        text.len()
    );
}

/// A chat completion answering with text.
pub fn text_answer(text: &str) -> Value {
    completion(json!({"role": "assistant", "content": text}), "stop")
}

/// A chat completion answering with tool calls `(name, raw arguments)`.
pub fn tool_answer(calls: &[(&str, &str)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| {
            json!({"id": format!("call_stub_{i}"), "type": "function",
                   "function": {"name": name, "arguments": args}})
        })
        .collect();
    completion(
        json!({"role": "assistant", "content": null, "tool_calls": calls}),
        "tool_calls",
    )
}

fn completion(message: Value, finish: &str) -> Value {
    json!({
        "id": "chatcmpl-stub", "object": "chat.completion", "created": 1,
        // The dated name a server reports for the model asked for.
        "model": "stub-model-0613",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    })
}

/// An embeddings answer.
pub fn embeddings_answer(vectors: &[Vec<f32>]) -> Value {
    let data: Vec<Value> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| json!({"index": i, "object": "embedding", "embedding": v}))
        .collect();
    json!({"object": "list", "model": "stub-embed", "data": data,
           "usage": {"prompt_tokens": 1, "total_tokens": 1}})
}

/// An error answer in OpenAI's shape.
pub fn error_answer(message: &str) -> Value {
    json!({"error": {"message": message, "type": "server_error", "param": null, "code": null}})
}

pub const TOKEN: &str = "tok-alice";

/// Account and Alarm databases for user alice (logged in with [`TOKEN`]),
/// who has one alarm at 08:00.
pub fn write_databases(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let account = json!({"alice": {"username": "alice", "email": "alice@example.com",
        "phone": "555-000-1111", "name": "Alice", "password": "pw", "session_token": null}});
    let alarm = json!({"alice": {"aaaa-bbbb": {"alarm_id": "aaaa-bbbb", "time": "08:00:00"}}});
    std::fs::write(dir.join("Account.json"), account.to_string()).unwrap();
    std::fs::write(dir.join("Alarm.json"), alarm.to_string()).unwrap();
}

/// A conversation with alice: one user request, one assistant turn with
/// `gold` calls (requests only; the session token is added), `text`.
pub fn conversation(id: &str, request: &str, gold: &[(&str, Value)], answer: &str) -> Value {
    let apis: Vec<Value> = gold
        .iter()
        .map(|(name, params)| {
            let mut p = params.as_object().cloned().unwrap_or_default();
            p.insert("session_token".into(), json!(TOKEN));
            json!({"request": {"api_name": name, "parameters": p},
                   "response": null, "exception": null})
        })
        .collect();
    json!({
        "name": id, "conversation_id": id,
        "suites_used": ["Alarm"], "apis_used": gold.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        "user": {"username": "alice", "session_token": TOKEN},
        "metadata": {"location": "Springfield", "timestamp": "2024-05-13 09:00:00",
                     "username": "alice"},
        "conversation": [
            {"index": 0, "role": "user", "text": request},
            {"index": 1, "role": "assistant", "text": answer, "apis": apis},
        ],
    })
}

/// Write `value` as a file (with the simulator's responses filled in by
/// `talkforge fill`-equivalent replay).
pub fn write_conversation(path: &Path, value: &Value, databases: &Path) {
    let mut conversation: talkforge::dialogue::Conversation =
        serde_json::from_value(value.clone()).unwrap();
    let dbs = talkforge::sim::Databases::load(databases).unwrap();
    let replay = talkforge::verify::replay(
        &talkforge::suites::tooltalk::ToolTalk,
        &dbs,
        &conversation,
        &talkforge::suite::WorldOptions::default(),
    )
    .unwrap();
    for (t, c, executed) in replay.executions {
        let gold = &mut conversation.conversation[t].apis.as_mut().unwrap()[c];
        gold.response = executed.response.into_value();
        gold.exception = executed.exception;
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(&conversation).unwrap()).unwrap();
}

/// A headless Chromium, when one is installed.
pub fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|name| {
            std::process::Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// Open `page` in a headless Chromium (when one is installed), with the
/// check of `page-check.js` added to a copy of it: the check must say `ok`,
/// with at least `min_bars` bars drawn and no console error.
pub fn check_in_browser(page: &Path, min_bars: usize) {
    let Some(browser) = chromium() else {
        eprintln!("skipped the browser check: no chromium installed (apt-get install chromium)");
        return;
    };
    let text = std::fs::read_to_string(page).unwrap();
    let script = format!(
        "<script>\n{}</script>\n</head>",
        include_str!("page-check.js")
    );
    assert!(text.contains("</head>"), "no head in the page");
    let checked = page.with_extension("checked.html");
    std::fs::write(&checked, text.replacen("</head>", &script, 1)).unwrap();
    let page = checked.as_path();
    let run = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&run.stdout);
    let log = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{log}");
    assert!(
        dom.contains("data-check=\"ok\""),
        "the page's own check failed: {}\n{log}",
        dom.split("data-check=")
            .nth(1)
            .unwrap_or("(no verdict)")
            .lines()
            .next()
            .unwrap_or_default()
    );
    let bars: usize = dom
        .split("data-bars=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(bars >= min_bars, "{bars} bars drawn");
    let console_errors: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
        .collect();
    assert!(console_errors.is_empty(), "{console_errors:#?}");
}
