//! Recording results: run every gold call against the simulated world and
//! write what it returned into the dialogue file, keeping everything else
//! (key order, unknown keys) as it was.
//!
//! Files are rewritten by their suite's format writer
//! ([`Suite::record_results`]) in the upstream style, only when a recorded
//! result changes: a fill that changes nothing touches no byte. A call the
//! world cannot reproduce offline ([`crate::suite::NotChecked`]) keeps what
//! its file records, when the file records anything. With `seed`, records
//! that recorded query results list but the databases lack are added first
//! (see [`Suite::seed_databases`]), so those recordings reproduce instead
//! of being overwritten.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::formats::{atomic_write, LoadedConversation};
use crate::sim::Databases;
use crate::suite::{Suite, WorldOptions};
use crate::verify::replay;
use crate::{Error, Result};

pub use crate::suite::SeededRecord;

/// A gold call whose recorded result was (or would be) replaced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FilledCall {
    pub file: String,
    /// The call's place in its file, as verify reports it: a
    /// conversation's turn position, an API-Bank dialogue's line.
    pub turn: usize,
    /// A conversation: the position in the turn's `apis`; an API-Bank
    /// dialogue: the index among its API lines.
    pub call: usize,
    pub api_name: String,
    /// Request arguments written besides the result: the argument the
    /// world supplies (ToolTalk's `session_token`) where the request
    /// lacked it or held another value.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<String>,
}

/// What filling one file changes, and its new text when it changes.
#[derive(Debug, Clone)]
pub struct FileFill {
    pub path: PathBuf,
    pub calls: usize,
    pub filled: Vec<FilledCall>,
    pub new_text: Option<String>,
}

/// Fill one loaded dialogue in memory.
pub fn fill_conversation(
    loaded: &LoadedConversation,
    suite: &dyn Suite,
    databases: &Databases,
    options: &WorldOptions,
) -> Result<FileFill> {
    let path = &loaded.path;
    let file = path.display().to_string();
    let replayed = replay(suite, databases, &loaded.conversation, options)
        .map_err(|m| Error::input(path, m))?;
    let mut results = Vec::new();
    let mut filled = Vec::new();
    for ((turn, call, gold), (_, _, executed)) in
        loaded.conversation.gold_calls().zip(&replayed.executions)
    {
        let recorded = !loaded.unrecorded.contains(&(turn, call));
        let arguments = supplied_arguments_to_write(suite, gold, executed);
        if recorded
            && arguments.is_empty()
            && (executed.not_checked.is_some() || suite.reproduces(gold, executed))
        {
            continue;
        }
        results.push((turn, call, executed));
        let place = gold.place(turn, call);
        filled.push(FilledCall {
            file: file.clone(),
            turn: place.turn,
            call: place.call,
            api_name: gold.request.api_name.clone(),
            arguments,
        });
    }
    let new_text = if results.is_empty() {
        None
    } else {
        Some(suite.record_results(loaded, &results)?)
    };
    Ok(FileFill {
        path: path.clone(),
        calls: replayed.executions.len(),
        filled,
        new_text,
    })
}

/// The arguments the world supplied to a call (the suite's injected
/// argument, put in for a tool that needs a logged-in user) that the gold
/// request lacks or gives another value: the request must say what the
/// call ran with, or comparing a prediction with it goes wrong.
fn supplied_arguments_to_write(
    suite: &dyn Suite,
    gold: &crate::dialogue::GoldCall,
    executed: &crate::suite::Execution,
) -> Vec<String> {
    let Some(name) = suite.injected_argument() else {
        return Vec::new();
    };
    match executed.request.parameters.get(name) {
        Some(value) if gold.request.parameters.get(name) != Some(value) => vec![name.to_owned()],
        _ => Vec::new(),
    }
}

/// The outcome of `talkforge fill`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FillReport {
    pub files: usize,
    pub calls: usize,
    /// Gold calls whose recorded result was (or, with `--check`, would be) replaced.
    pub filled: Vec<FilledCall>,
    /// Files that were (or would be) rewritten.
    pub changed_files: Vec<String>,
    /// Records added to the databases (`--seed`).
    pub seeded: Vec<SeededRecord>,
    /// Database files that were (or would be) rewritten (`--seed`).
    pub changed_databases: Vec<String>,
    /// False with `--check`: nothing was written.
    pub written: bool,
}

impl FillReport {
    pub fn changes_anything(&self) -> bool {
        !self.filled.is_empty() || !self.seeded.is_empty()
    }
}

/// Options of a fill run.
#[derive(Debug, Clone, Default)]
pub struct FillOptions {
    /// Write nothing; only report what would change.
    pub check: bool,
    /// Add records that recorded query results list but the databases lack.
    pub seed: bool,
    /// How the worlds are set up.
    pub world: WorldOptions,
}

/// Fill every file. Every file is read and filled in memory first; when any
/// cannot be read, every such file is named and nothing at all is written.
pub fn fill_files(
    files: &[PathBuf],
    suite: &dyn Suite,
    databases_dir: &Path,
    options: FillOptions,
) -> Result<FillReport> {
    let mut databases = suite.load_databases(databases_dir)?;
    let loaded = load_all(files, suite)?;
    let mut report = FillReport {
        files: loaded.len(),
        written: !options.check,
        ..FillReport::default()
    };
    let mut database_writes = Vec::new();
    if options.seed {
        let seeded = suite.seed_databases(&loaded, &databases)?;
        for name in seeded.changed_tables() {
            let path = databases_dir.join(format!("{name}.json"));
            let old = std::fs::read_to_string(&path).ok();
            let text = suite.database_text(&seeded.databases, &name, old.as_deref());
            report.changed_databases.push(path.display().to_string());
            database_writes.push((path, text));
        }
        report.seeded = seeded.records;
        databases = seeded.databases;
    }
    let fills: Vec<Result<FileFill>> = loaded
        .par_iter()
        .map(|l| fill_conversation(l, suite, &databases, &options.world))
        .collect();
    let fills = collect_all(fills)?;
    for fill in &fills {
        report.calls += fill.calls;
        report.filled.extend(fill.filled.iter().cloned());
        if fill.new_text.is_some() {
            report.changed_files.push(fill.path.display().to_string());
        }
    }
    if options.check {
        return Ok(report);
    }
    for (path, text) in database_writes {
        atomic_write(&path, text.as_bytes())?;
    }
    for fill in &fills {
        if let Some(text) = &fill.new_text {
            atomic_write(&fill.path, text.as_bytes())?;
        }
    }
    Ok(report)
}

fn load_all(files: &[PathBuf], suite: &dyn Suite) -> Result<Vec<LoadedConversation>> {
    collect_all(files.par_iter().map(|p| suite.load_dialogue(p)).collect())
}

/// All the values, or one error that lists every failure.
fn collect_all<T>(results: Vec<Result<T>>) -> Result<Vec<T>> {
    let mut ok = Vec::with_capacity(results.len());
    let mut failed = Vec::new();
    for result in results {
        match result {
            Ok(value) => ok.push(value),
            Err(err) => failed.push(err),
        }
    }
    match failed.len() {
        0 => Ok(ok),
        1 => Err(failed.remove(0)),
        n => Err(Error::Other(format!(
            "{n} files cannot be filled; nothing was written:\n{}",
            failed
                .iter()
                .map(|e| format!("  {e}"))
                .collect::<Vec<_>>()
                .join("\n")
        ))),
    }
}
