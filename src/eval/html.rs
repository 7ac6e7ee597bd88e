//! Failed conversations drawn for the HTML report: each as a dialogue,
//! the gold calls and text beside what the assistant did, the failing
//! turns outlined. The rest of the page is the report layer's.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::runs::Run;
use crate::report::html::escape as esc;

/// Failed conversations drawn per run, at most.
const DIALOGUES_PER_RUN: usize = 300;

/// The anchor of run `run`'s conversation at `index` in its summary.
pub fn anchor(run: usize, index: usize) -> String {
    format!("r{run}-c{index}")
}

/// Every run's failed conversations (at most [`DIALOGUES_PER_RUN`] a run)
/// whose output files are there, drawn (empty when none is), and the
/// anchors of those drawn.
pub fn failed_dialogues(runs: &[Run]) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut drawn = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        let outputs = OutputFiles::new(run);
        let failed = run
            .summary
            .per_conversation
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.metrics.success);
        for (c_index, c) in failed.take(DIALOGUES_PER_RUN) {
            if let Some(document) = outputs.document(&c.file) {
                let anchor = anchor(r + 1, c_index);
                let failing: Vec<usize> = c.why_failed.iter().map(|w| w.turn).collect();
                dialogue(&mut out, &anchor, &c.file, r + 1, &document, &failing);
                drawn.push(anchor);
            }
        }
    }
    if out.is_empty() {
        return (out, drawn);
    }
    let out = format!("<h3>Dialogues</h3>\n<p>Each failed conversation as evaluated: the gold calls (left) beside what the assistant did (right); turns with a failure are outlined.</p>\n{out}");
    (out, drawn)
}

/// Where a run's per-conversation output files are.
struct OutputFiles {
    /// The folder holding `conversations/` (a run of trials: the first trial's).
    base: PathBuf,
    /// The deepest folder holding every evaluated file.
    common: PathBuf,
}

impl OutputFiles {
    fn new(run: &Run) -> Self {
        let base = if run.summary.trials.is_some() {
            run.dir.join("trial-1")
        } else {
            run.dir.clone()
        };
        let files: Vec<PathBuf> = run
            .summary
            .per_conversation
            .iter()
            .map(|c| PathBuf::from(&c.file))
            .collect();
        OutputFiles {
            base,
            common: super::run::common_dir(&files),
        }
    }

    /// The output file of the conversation evaluated from `file`, parsed.
    fn document(&self, file: &str) -> Option<Value> {
        let path = self
            .base
            .join(super::run::CONVERSATIONS_DIR)
            .join(super::run::relative(Path::new(file), &self.common));
        let text = std::fs::read_to_string(path).ok()?;
        serde_json::from_str(&text).ok()
    }
}

/// One conversation as a dialogue: user turns, and for each assistant
/// turn the gold calls and text beside the predictions and answer.
fn dialogue(
    out: &mut String,
    anchor: &str,
    file: &str,
    run: usize,
    document: &Value,
    failing: &[usize],
) {
    let _ = writeln!(
        out,
        "<article class=dialogue id=\"{anchor}\"><h3>Run {run}: <code>{}</code></h3>",
        esc(file)
    );
    let turns = document
        .get("conversation")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (t, turn) in turns.iter().enumerate() {
        let text = turn.get("text").and_then(Value::as_str).unwrap_or_default();
        let role = turn.get("role").and_then(Value::as_str).unwrap_or_default();
        let class = if failing.contains(&t) {
            "turn failing"
        } else {
            "turn"
        };
        let _ = write!(out, "<div class=\"{class}\" id=\"{anchor}-t{t}\">");
        if role == "user" {
            let _ = write!(
                out,
                "<div class=user><b>User</b> (turn {t}): {}</div>",
                esc(text)
            );
        } else {
            out.push_str("<div class=assistant><div><b>Gold</b> (turn ");
            let _ = write!(out, "{t})");
            for call in turn
                .get("apis")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                call_html(out, call, false);
            }
            let _ = write!(out, "<p>{}</p></div><div><b>Assistant</b>", esc(text));
            for p in turn
                .get("predictions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if p.get("role").and_then(Value::as_str) == Some("api") {
                    call_html(out, p, true);
                } else {
                    let answer = p.get("text").and_then(Value::as_str).unwrap_or_default();
                    let _ = write!(out, "<p>{}</p>", esc(answer));
                }
            }
            if turn.get("stopped_by_call_bound") == Some(&Value::Bool(true)) {
                out.push_str("<p class=bad>stopped by the call bound</p>");
            }
            out.push_str("</div></div>");
        }
        out.push_str("</div>\n");
    }
    out.push_str("</article>\n");
}

fn call_html(out: &mut String, call: &Value, predicted: bool) {
    let name = call
        .pointer("/request/api_name")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let parameters = call
        .pointer("/request/parameters")
        .map(|p| p.to_string())
        .unwrap_or_else(|| "null".into());
    let matched = call.get("match").and_then(Value::as_bool).unwrap_or(false);
    let mut marks = vec![if matched {
        "<span class=ok>matched</span>".to_string()
    } else {
        "<span class=bad>not matched</span>".to_string()
    }];
    if predicted && call.get("bad_action") == Some(&Value::Bool(true)) {
        marks.push("<span class=bad>bad action</span>".into());
    }
    if let Some(exception) = call.get("exception").and_then(Value::as_str) {
        marks.push(format!("<span class=bad>raised: {}</span>", esc(exception)));
    }
    let _ = write!(
        out,
        "<div class=call>{}({}) {}</div>",
        esc(name),
        esc(&parameters),
        marks.join(" ")
    );
}
