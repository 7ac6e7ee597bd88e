//! Failed conversations drawn for the HTML report (the template
//! `dialogues.html.j2`): each as a dialogue, the gold calls and text
//! beside what the assistant did, the failing turns outlined.

use std::path::PathBuf;

use minijinja::{context, Environment};
use serde_json::Value;

use super::runs::Run;
use crate::report::runs::anchor;

/// Failed conversations drawn per run, at most.
const DIALOGUES_PER_RUN: usize = 300;

const TEMPLATE: &str = include_str!("../report/templates/dialogues.html.j2");

/// Every run's failed conversations (at most [`DIALOGUES_PER_RUN`] a run)
/// whose output files are there, drawn (empty when none is), and the
/// anchors of those drawn.
pub fn failed_dialogues(runs: &[Run]) -> (String, Vec<String>) {
    let mut dialogues = Vec::new();
    let mut anchors = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        // A conversation's output file sits where its file does under the
        // deepest folder holding every file evaluated.
        let conversations = run.summary.per_conversation.iter();
        let files: Vec<PathBuf> = conversations.map(|c| PathBuf::from(&c.file)).collect();
        let common = crate::run::folder::common_dir(&files);
        let outputs = run.output_dir().join(super::run::CONVERSATIONS_DIR);
        let output = |file: &str| -> Option<Value> {
            let path = outputs.join(crate::run::folder::relative(file.as_ref(), &common));
            serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
        };
        let conversations = run.summary.per_conversation.iter().enumerate();
        let failed = conversations.filter(|(_, c)| !c.metrics.success);
        for (index, c) in failed.take(DIALOGUES_PER_RUN) {
            let Some(document) = output(&c.file) else {
                continue;
            };
            let failing: Vec<usize> = c.why_failed.iter().map(|w| w.turn).collect();
            let anchor = anchor(r, index);
            dialogues.push(context! { anchor, run => r + 1, file => &c.file, document, failing });
            anchors.push(anchor);
        }
    }
    if dialogues.is_empty() {
        return Default::default();
    }
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.add_filter("json", |v: minijinja::Value| {
        serde_json::to_string(&v).unwrap_or_default()
    });
    // The name ends in .html: minijinja escapes every value put in.
    let drawn = env
        .template_from_named_str("dialogues.html", TEMPLATE)
        .and_then(|t| t.render(context! { dialogues }))
        .unwrap_or_else(|e| {
            let e = minijinja::HtmlEscape(&e.to_string()).to_string();
            format!("<p class=bad>The dialogues could not be drawn: {e}</p>")
        });
    (drawn, anchors)
}
