//! `verify` over tau2 tasks files: every task's gold actions replayed, the
//! raises split into scripted lookups and defects, every task's final
//! hash, as JSON or text. Each `db.json` is read once per run.
//!
//! An errata file marks a defect as known: an entry names the tasks file,
//! the task by its 0-based position in the file (`turn`) and the action by
//! its index (`call`). A task's own `issues` are shown beside its raises,
//! never taken as an excuse.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::domain::{Db, Initial};
use super::suite::DATABASE_FILE;
use super::tasks;
use super::verify::{replay, FinalState, Raised};
use crate::errata::{self, Errata, Known, Stale};
use crate::Result;

/// A gold action that raised, with what the errata and the task say of it.
#[derive(Debug, Clone, Serialize)]
pub struct RaisedAction {
    #[serde(flatten)]
    pub raised: Raised,
    /// The erratum that marks this defect as known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known: Option<Known>,
    /// The task's own `issues` entries, as the file has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issues: Option<serde_json::Value>,
}

impl RaisedAction {
    /// A raise the task does not script and no erratum knows.
    pub fn is_unknown_defect(&self) -> bool {
        !self.raised.scripted && self.known.is_none()
    }
}

/// What `verify --suite tau2` reports (the keys of issue 34).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub suite: &'static str,
    pub files: usize,
    /// Gold actions run.
    pub calls: usize,
    /// Gold actions that ran without raising.
    pub reproduced: usize,
    /// Always empty: tau2 tasks record no results to compare.
    pub differs: Vec<serde_json::Value>,
    /// Always empty: every tool runs offline.
    pub not_checked: Vec<serde_json::Value>,
    pub raised: Vec<RaisedAction>,
    /// Errata that name no raising action of the files verified.
    pub stale_errata: Vec<Stale>,
    pub final_states: Vec<FinalState>,
}

impl Report {
    /// Whether verify fails: a defect no erratum knows, or a stale erratum.
    pub fn fails(&self) -> bool {
        self.raised.iter().any(RaisedAction::is_unknown_defect) || !self.stale_errata.is_empty()
    }
}

/// Replay every task of `files`, each with the `db.json` of `databases`,
/// or, without it, the one beside the tasks file. Each tasks file is read
/// before its database, so a malformed one is named first.
pub fn verify_files(
    files: &[PathBuf],
    databases: Option<&Path>,
    errata: &Errata,
) -> Result<Report> {
    let mut loaded: HashMap<PathBuf, Initial> = HashMap::new();
    let mut report = Report {
        suite: "tau2",
        files: files.len(),
        calls: 0,
        reproduced: 0,
        differs: Vec::new(),
        not_checked: Vec::new(),
        raised: Vec::new(),
        stale_errata: Vec::new(),
        final_states: Vec::new(),
    };
    let mut matched: Vec<usize> = Vec::new();
    for file in files {
        let tasks = tasks::load(file)?;
        let folder = match databases {
            Some(dir) => dir.to_path_buf(),
            None => file.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        let db_path = folder.join(DATABASE_FILE);
        if !loaded.contains_key(&db_path) {
            loaded.insert(db_path.clone(), Initial::new(Db::load(&db_path)?));
        }
        let db = &loaded[&db_path];
        let name = file.display().to_string();
        let entries = errata.for_dialogue(file, &[]);
        let mut used = vec![false; entries.len()];
        for (position, task) in tasks.iter().enumerate() {
            let replayed = replay(&name, task, db);
            report.calls += replayed.steps.len();
            report.reproduced += replayed.steps.len() - replayed.raised.len();
            for raised in replayed.raised {
                let entry = errata::at(&entries, position, raised.action)
                    .filter(|e| e.erratum.api_name == raised.api_name);
                if let Some(entry) = entry {
                    used[entries.iter().position(|e| e == entry).expect("listed")] = true;
                }
                report.raised.push(RaisedAction {
                    known: entry.map(errata::Entry::known),
                    issues: task.issues.clone(),
                    raised,
                });
            }
            report.final_states.push(replayed.final_state);
        }
        for (entry, _) in entries.iter().zip(&used).filter(|(_, used)| !**used) {
            let why = match tasks.get(entry.erratum.turn) {
                None => format!("the file has no task at position {}", entry.erratum.turn),
                Some(task) => format!(
                    "action {} of task {} does not raise as {}",
                    entry.erratum.call, task.id, entry.erratum.api_name
                ),
            };
            report.stale_errata.push(entry.stale(&name, why));
        }
        matched.extend(entries.iter().filter_map(|e| e.index));
    }
    report.stale_errata.extend(errata.unmatched(&matched));
    Ok(report)
}

/// The report as text: each raise (defects marked), the errata that no
/// longer apply, then the totals.
pub fn human(report: &Report) -> String {
    let mut out = String::new();
    for r in &report.raised {
        let a = &r.raised;
        let kind = match (&r.known, a.scripted) {
            (_, true) => "scripted".to_string(),
            (Some(known), false) => format!("known defect ({})", known.reason),
            (None, false) => "DEFECT".to_string(),
        };
        let _ = writeln!(
            out,
            "{}: task {} action {} {}: {kind}: {}",
            a.file, a.task_id, a.action, a.api_name, a.exception
        );
        for title in issue_titles(r.issues.as_ref()) {
            let _ = writeln!(out, "  the task's own issue: {title}");
        }
    }
    for stale in &report.stale_errata {
        let _ = writeln!(
            out,
            "{}: stale erratum (from {}): {}",
            stale.file, stale.source, stale.why
        );
    }
    let defects = report.raised.iter().filter(|r| !r.raised.scripted).count();
    let known = report
        .raised
        .iter()
        .filter(|r| !r.raised.scripted && r.known.is_some())
        .count();
    let _ = writeln!(
        out,
        "{} gold actions in {}: {} ran, {} raised ({} scripted, {} defects, {known} of them known)",
        report.calls,
        crate::words::count(report.final_states.len(), "task"),
        report.reproduced,
        report.raised.len(),
        report.raised.len() - defects,
        defects
    );
    out
}

/// The titles of a task's `issues` entries.
fn issue_titles(issues: Option<&serde_json::Value>) -> Vec<String> {
    let Some(serde_json::Value::Array(items)) = issues else {
        return Vec::new();
    };
    items
        .iter()
        .map(|item| match item.get("title").and_then(|t| t.as_str()) {
            Some(title) => title.to_string(),
            None => item.to_string(),
        })
        .collect()
}
