//! `verify` over tau2 tasks files: every task's gold actions replayed, the
//! raises split into scripted lookups and defects, every task's final
//! hash, as JSON or text. Each `db.json` is read once per run.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::domain::Db;
use super::tasks;
use super::verify::{replay, FinalState, Raised};
use crate::Result;

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
    pub raised: Vec<Raised>,
    pub final_states: Vec<FinalState>,
}

impl Report {
    /// Whether a defect was found: a raise the task does not script.
    pub fn fails(&self) -> bool {
        self.raised.iter().any(|r| !r.scripted)
    }
}

/// Replay every task of `files`, each with the `db.json` of `databases`,
/// or, without it, the one beside the tasks file.
pub fn verify_files(files: &[PathBuf], databases: Option<&Path>) -> Result<Report> {
    let mut loaded: HashMap<PathBuf, Db> = HashMap::new();
    let mut report = Report {
        suite: "tau2",
        files: files.len(),
        calls: 0,
        reproduced: 0,
        differs: Vec::new(),
        not_checked: Vec::new(),
        raised: Vec::new(),
        final_states: Vec::new(),
    };
    for file in files {
        let folder = match databases {
            Some(dir) => dir.to_path_buf(),
            None => file.parent().map(Path::to_path_buf).unwrap_or_default(),
        };
        let db_path = folder.join("db.json");
        if !loaded.contains_key(&db_path) {
            loaded.insert(db_path.clone(), Db::load(&db_path)?);
        }
        let db = &loaded[&db_path];
        let name = file.display().to_string();
        for task in tasks::load(file)? {
            let replayed = replay(&name, &task, db);
            report.calls += replayed.steps.len();
            report.reproduced += replayed.steps.len() - replayed.raised.len();
            report.raised.extend(replayed.raised);
            report.final_states.push(replayed.final_state);
        }
    }
    Ok(report)
}

/// The report as text: the raises (defects first marked), then totals.
pub fn write_human(report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    for r in &report.raised {
        let kind = if r.scripted { "scripted" } else { "DEFECT" };
        writeln!(
            out,
            "{}: task {} action {} {}: {kind}: {}",
            r.file, r.task_id, r.action, r.api_name, r.exception
        )?;
    }
    let defects = report.raised.iter().filter(|r| !r.scripted).count();
    writeln!(
        out,
        "{} gold actions in {} tasks: {} ran, {} raised ({} scripted, {} defects)",
        report.calls,
        report.final_states.len(),
        report.reproduced,
        report.raised.len(),
        report.raised.len() - defects,
        defects
    )
}
