//! Recording results: run every gold call against the simulated world and
//! write what it returned into the dialogue file, keeping everything else
//! (key order, unknown keys) as it was.
//!
//! Files are rewritten by their suite's format writer
//! (`FileFormat::results`) in the upstream style, only when a recorded
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
    /// The 1-based line of the file, for a call that stands at a line
    /// (API-Bank); absent for a conversation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// Request arguments written besides the result: the argument the
    /// world supplies (ToolTalk's `session_token`) where the request
    /// lacked it or held another value.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<String>,
    /// The exception the call raised, when it raised: what is recorded is
    /// then an error, often from a typo in the request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
    /// What lint finds in the call that raised (`rule: message`), when it
    /// finds anything: usually the typo itself.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
    /// For a tool search filled afresh: the tools it found, which the
    /// dialogue should go on to call.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub found: Vec<String>,
}

impl FilledCall {
    /// How a person reads its place (see [`crate::dialogue::place_words`]).
    pub fn place_words(&self) -> String {
        crate::dialogue::place_words(self.turn, self.call, self.line)
    }
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
    // A scenario records no results (verify checks its calls run).
    if !suite.records_results(path) {
        return Ok(FileFill {
            path: path.clone(),
            calls: loaded.conversation.gold_calls().count(),
            filled: Vec::new(),
            new_text: None,
        });
    }
    let replayed = replay(suite, databases, &loaded.conversation, options)
        .map_err(|m| Error::input(path, m))?;
    // A search the retriever could not answer would record its failure
    // as the result.
    for ((turn, call, gold), (_, _, executed)) in
        loaded.conversation.gold_calls().zip(&replayed.executions)
    {
        if let Some(crate::suite::Note::RetrieverFailed { error }) = &executed.note {
            let place = gold.place(turn, call);
            return Err(Error::input(
                path,
                format!(
                    "the tool search at {} could not run: {error}",
                    crate::dialogue::place_words(place.turn, place.call, gold.line())
                ),
            ));
        }
    }
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
            line: gold.line(),
            arguments,
            exception: executed.exception.clone(),
            findings: Vec::new(),
            found: match &executed.note {
                Some(crate::suite::Note::Found { tools }) => tools.clone(),
                _ => Vec::new(),
            },
        });
    }
    let new_text = if results.is_empty() {
        None
    } else {
        Some(crate::suite::record_results(suite, loaded, &results)?)
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

    /// The filled calls that raised.
    pub fn raised(&self) -> impl Iterator<Item = &FilledCall> {
        self.filled.iter().filter(|f| f.exception.is_some())
    }

    /// Put each lint finding at a filled call that raised beside it
    /// (findings of other calls are not fill's to show).
    pub fn attach_findings(&mut self, findings: &[crate::lint::Finding]) {
        for filled in self.filled.iter_mut().filter(|f| f.exception.is_some()) {
            filled.findings.extend(
                findings
                    .iter()
                    .filter(|f| {
                        f.file == filled.file
                            && f.turn == Some(filled.turn)
                            && f.call == Some(filled.call)
                    })
                    .map(|f| format!("{}: {}", f.rule, f.message)),
            );
        }
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

/// Fill every file. Every file is read and filled first, one at a time per
/// worker and keeping only what changes, so memory stays flat as the
/// dataset grows; when any cannot be read or filled, every such file is
/// named and nothing at all is written. Then the files that change are
/// filled again and written, one at a time. (`--seed` looks at every
/// dialogue at once, so it holds them all.)
pub fn fill_files(
    files: &[PathBuf],
    suite: &dyn Suite,
    databases_dir: &Path,
    options: FillOptions,
) -> Result<FillReport> {
    let mut databases = suite.load_databases(databases_dir)?;
    let mut report = FillReport {
        files: files.len(),
        written: !options.check,
        ..FillReport::default()
    };
    let mut database_writes = Vec::new();
    if options.seed {
        let loaded = collect_all(files.par_iter().map(|p| suite.load_dialogue(p)).collect())?;
        let seeded = suite.seed_databases(&loaded, &databases)?;
        for name in seeded.changed_tables() {
            let path = databases_dir.join(format!("{name}.json"));
            let old = std::fs::read_to_string(&path).ok();
            let text = (suite.database_format().text)(&seeded.databases, &name, old.as_deref());
            report.changed_databases.push(path.display().to_string());
            database_writes.push((path, text));
        }
        report.seeded = seeded.records;
        databases = seeded.databases;
    }
    let fill_one = |path: &PathBuf| -> Result<FileFill> {
        let loaded = suite.load_dialogue(path)?;
        fill_conversation(&loaded, suite, &databases, &options.world)
    };
    // The new texts are made again in the second pass, not kept.
    let outcomes: Vec<Result<(usize, Vec<FilledCall>, bool)>> = files
        .par_iter()
        .map(|path| fill_one(path).map(|f| (f.calls, f.filled, f.new_text.is_some())))
        .collect();
    let mut changed = Vec::new();
    for (path, (calls, filled, changes)) in files.iter().zip(collect_all(outcomes)?) {
        report.calls += calls;
        report.filled.extend(filled);
        if changes {
            report.changed_files.push(path.display().to_string());
            changed.push(path);
        }
    }
    if options.check {
        return Ok(report);
    }
    for (path, text) in database_writes {
        atomic_write(&path, text.as_bytes())?;
    }
    let written: Vec<Result<()>> = changed
        .par_iter()
        .map(|path| match fill_one(path)?.new_text {
            Some(text) => atomic_write(path, text.as_bytes()),
            None => Ok(()),
        })
        .collect();
    if let Some(err) =
        crate::error::every_failure(written.into_iter().filter_map(Result::err).collect(), |n| {
            format!("{n} files could not be written")
        })
    {
        return Err(err);
    }
    Ok(report)
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
    match crate::error::every_failure(failed, |n| {
        format!("{n} files cannot be filled; nothing was written")
    }) {
        Some(err) => Err(err),
        None => Ok(ok),
    }
}
