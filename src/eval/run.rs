//! Evaluating a set of conversation files: simulate and score each one (in
//! parallel, in file order), write its output file, resume from an earlier
//! run's files, and gather the summary.
//!
//! Nothing per conversation is kept: each is tallied, its entry rendered
//! and spooled (memory up to a block, then a temporary file) and dropped,
//! so memory stays flat as the dataset grows.

use std::path::{Component, Path, PathBuf};

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::Value;

use super::endpoint::sha256_hex;
use super::outcome::{ConversationResult, Identity};
use super::output::{annotate, read_stored, turn_outcomes, RunInfo};
use super::predict::{PredictedCall, Predictor};
use super::score::score;
use super::simulate::{simulate, SimulateError};
use super::summary::{Summary, Tally};
use crate::dataset::read::{json_error, read_text};
use crate::dataset::{atomic_write, atomic_write_unsynced, atomic_write_with, to_python_json};
use crate::json_stream::ArraySpool;
use crate::model::{Conversation, GoldCall};
use crate::sim::{Databases, TextSimilarity};
use crate::{Error, Result};

/// A text similarity the run can name and ask about failures.
pub trait Similarity: TextSimilarity {
    fn name(&self) -> String;
    /// An error that made a comparison impossible (a failing endpoint).
    fn failure(&self) -> Option<String> {
        None
    }
}

impl Similarity for super::lexical::Lexical {
    fn name(&self) -> String {
        "lexical".to_string()
    }
}

impl Similarity for crate::sim::similarity::ExactText {
    fn name(&self) -> String {
        "exact".to_string()
    }
}

impl Similarity for super::embeddings::Embeddings {
    fn name(&self) -> String {
        Embeddings::name(self)
    }
    fn failure(&self) -> Option<String> {
        Embeddings::failure(self)
    }
}

use super::embeddings::Embeddings;

/// How to run.
pub struct RunOptions<'a> {
    pub databases: &'a Databases,
    pub max_calls_per_turn: usize,
    /// Where output files go; `None` writes nothing.
    pub out: Option<PathBuf>,
    /// Evaluate again what `out` already holds.
    pub reset: bool,
    /// Worker threads; `None` uses every core.
    pub threads: Option<usize>,
    pub progress: bool,
}

/// Subfolder of `--out` holding the per-conversation files.
pub const CONVERSATIONS_DIR: &str = "conversations";

/// A finished run: its summary (`per_conversation` left empty) and every
/// conversation's entry, rendered where it was evaluated and spooled (see
/// [`crate::json_stream`]), so a run holds tallies, not results.
pub struct Evaluation {
    pub summary: Summary,
    per_conversation: ArraySpool,
}

impl Evaluation {
    /// The JSON summary (`--format json`, `summary.json`) with every
    /// conversation's entry as `per_conversation`.
    pub fn write_json(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        self.per_conversation
            .write_document(&self.summary, "per_conversation", out)
    }
}

/// Evaluate `files` and summarise them; with `options.out`, also write
/// each conversation's file, `summary.json` and `report.md` there.
pub fn evaluate_files(
    files: &[PathBuf],
    predictor: &dyn Predictor,
    similarity: &dyn Similarity,
    options: &RunOptions<'_>,
) -> Result<Evaluation> {
    let info = RunInfo {
        predictor: predictor.name(),
        settings: predictor.settings(),
        similarity: similarity.name(),
        max_calls_per_turn: options.max_calls_per_turn,
    };
    let mut tally = Tally::default();
    let mut spool = ArraySpool::new();
    let mut spool_error = None;
    evaluate_in_order(
        files,
        predictor,
        similarity,
        options,
        &info,
        ConversationResult::render_entry,
        |result, entry| {
            tally.add(&result);
            if spool_error.is_none() {
                spool_error = spool.push(&entry).err();
            }
        },
    )?;
    if let Some(e) = spool_error {
        return Err(Error::Other(format!(
            "cannot keep the per-conversation results in a temporary file: {e}"
        )));
    }
    let mut evaluation = Evaluation {
        summary: tally.summary(info, Vec::new()),
        per_conversation: spool,
    };
    if let Some(dir) = &options.out {
        atomic_write_with(&dir.join("summary.json"), |w| evaluation.write_json(w))?;
        atomic_write(
            &dir.join("report.md"),
            super::report::render(&evaluation.summary).as_bytes(),
        )?;
    }
    Ok(evaluation)
}

/// Evaluate every file on the pool, handing each result (and what `render`
/// made of it on the worker) to `sink` in file order. After the first failure no further conversation is started; the
/// failure is returned once the pool is done.
fn evaluate_in_order<R, F, S>(
    files: &[PathBuf],
    predictor: &dyn Predictor,
    similarity: &dyn Similarity,
    options: &RunOptions<'_>,
    info: &RunInfo,
    render: F,
    mut sink: S,
) -> Result<()>
where
    R: Send,
    F: Fn(&ConversationResult) -> R + Sync,
    S: FnMut(ConversationResult, R) + Send,
{
    // Only an output folder mirrors the dataset's folders.
    let base = options.out.as_ref().map(|_| common_dir(files));
    let bar = progress_bar(files.len() as u64, options.progress);
    let failed = AtomicBool::new(false);
    let mut first_error = None;
    let mut job = || {
        crate::ordered::for_each_in_order(
            files,
            |_, path| {
                if failed.load(Ordering::Relaxed) {
                    return None;
                }
                let out = options
                    .out
                    .as_ref()
                    .zip(base.as_deref())
                    .map(|(dir, base)| dir.join(CONVERSATIONS_DIR).join(relative(path, base)));
                let result =
                    evaluate_one(path, out.as_deref(), predictor, similarity, options, info);
                // A hidden bar still takes its lock on every tick.
                if options.progress {
                    bar.inc(1);
                }
                if result.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                Some(result.map(|r| {
                    let rendered = render(&r);
                    (r, rendered)
                }))
            },
            |result| match result {
                Some(Ok((r, rendered))) if first_error.is_none() => sink(r, rendered),
                Some(Err(e)) if first_error.is_none() => first_error = Some(e),
                _ => {}
            },
        )
    };
    match options.threads {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build()
            .map_err(|e| Error::Other(format!("cannot start {n} worker threads: {e}")))?
            .install(job),
        None => job(),
    };
    bar.finish_and_clear();
    first_error.map_or(Ok(()), Err)
}

fn progress_bar(len: u64, show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} conversations {elapsed}")
    {
        bar.set_style(style);
    }
    bar
}

fn identity(path: &Path, name: String, conversation_id: String) -> Identity {
    Identity {
        // What `path.display()` writes, without the formatting machinery.
        file: path.to_string_lossy().into_owned(),
        subset: crate::dataset::folder_name(path).unwrap_or_default(),
        name,
        conversation_id,
    }
}

fn evaluate_one(
    path: &Path,
    out: Option<&Path>,
    predictor: &dyn Predictor,
    similarity: &dyn Similarity,
    options: &RunOptions<'_>,
    info: &RunInfo,
) -> Result<ConversationResult> {
    let text = read_text(path)?;
    // The hash only ties an output file to its source: no output, no hash.
    let conversation_sha256 = out.map(|_| sha256_hex(text.as_bytes()));
    if let (Some(out), Some(sha256), false) = (out, &conversation_sha256, options.reset) {
        if let Some(result) = resume(path, out, info, sha256)? {
            return Ok(result);
        }
    }
    let conversation: Conversation =
        serde_json::from_str(&text).map_err(|e| json_error(path, &e))?;
    let simulation = simulate(
        options.databases,
        &conversation,
        predictor,
        options.max_calls_per_turn,
    )
    .map_err(|e| match e {
        SimulateError::Setup(m) => Error::input(path, m),
        SimulateError::Predict(p) => Error::Other(format!("{}: {p}", path.display())),
    })?;
    let gold: Vec<&GoldCall> = simulation.gold.iter().map(|g| g.gold.as_ref()).collect();
    let predictions = simulation
        .turns
        .iter()
        .flat_map(|t| t.calls.iter().map(PredictedCall::as_call));
    let scoring = score(predictions, &gold, similarity);
    if let Some(failure) = similarity.failure() {
        return Err(Error::Other(format!(
            "{}: text similarity failed: {failure}",
            path.display()
        )));
    }
    let turns = turn_outcomes(&conversation, &simulation, &scoring);
    if let (Some(out), Some(sha256)) = (out, &conversation_sha256) {
        let mut document: Value = serde_json::from_str(&text).map_err(|e| json_error(path, &e))?;
        annotate(&mut document, &simulation, &scoring, info, sha256);
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::input(dir, format!("cannot create the folder: {e}")))?;
        }
        atomic_write_unsynced(out, to_python_json(&document).as_bytes())?;
    }
    // The outcomes borrow the conversation's names; its strings are
    // moved into the result once they are done with.
    let mut result = ConversationResult::new(Identity::default(), scoring.metrics, &turns, false);
    drop(turns);
    drop(simulation);
    let Identity {
        file,
        subset,
        name,
        conversation_id,
    } = identity(path, conversation.name, conversation.conversation_id);
    (
        result.file,
        result.subset,
        result.name,
        result.conversation_id,
    ) = (file, subset, name, conversation_id);
    Ok(result)
}

/// The result stored in `out` by an earlier run, when there is a usable
/// one: made with this run's settings from the same conversation file (and
/// the same predictions file, for replay). Anything else is evaluated
/// again, with a note on stderr saying why.
fn resume(
    path: &Path,
    out: &Path,
    info: &RunInfo,
    conversation_sha256: &str,
) -> Result<Option<ConversationResult>> {
    if !out.is_file() {
        return Ok(None);
    }
    let document = match crate::dataset::read_json(out) {
        Ok((_, document)) => document,
        Err(e) => {
            eprintln!("warning: {e}; evaluating {} again", path.display());
            return Ok(None);
        }
    };
    let stored = match read_stored(&document) {
        Ok(stored) => stored,
        Err(e) => {
            eprintln!(
                "warning: {}: {e}; evaluating {} again",
                out.display(),
                path.display()
            );
            return Ok(None);
        }
    };
    let differences = info.differences(&stored.evaluation, conversation_sha256);
    if !differences.is_empty() {
        let what: Vec<String> = differences
            .iter()
            .map(|key| match stored.evaluation.get(key) {
                Some(v) => format!("{key} was {v}"),
                None => format!("{key} was not recorded"),
            })
            .collect();
        eprintln!(
            "note: {} was made with other settings or inputs ({}); evaluating {} again",
            out.display(),
            what.join(", "),
            path.display()
        );
        return Ok(None);
    }
    let id = identity(path, stored.name, stored.conversation_id);
    Ok(Some(ConversationResult::new(
        id,
        stored.metrics,
        &stored.turns,
        true,
    )))
}

/// The deepest folder holding every file.
fn common_dir(files: &[PathBuf]) -> PathBuf {
    let mut common: Option<Vec<Component<'_>>> = None;
    for file in files {
        let parent: Vec<Component<'_>> = file
            .parent()
            .map(|p| p.components().collect())
            .unwrap_or_default();
        common = Some(match common {
            None => parent,
            Some(c) => c
                .into_iter()
                .zip(parent)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    common.unwrap_or_default().into_iter().collect()
}

/// `path` below `base`, for mirroring the dataset's folders in `--out`.
fn relative(path: &Path, base: &Path) -> PathBuf {
    match path.strip_prefix(base) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
        _ => PathBuf::from(path.file_name().unwrap_or(path.as_os_str())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_mirror_the_folders_below_the_common_one() {
        let files = vec![
            PathBuf::from("data/easy/a.json"),
            PathBuf::from("data/hard/b.json"),
        ];
        let base = common_dir(&files);
        assert_eq!(base, PathBuf::from("data"));
        assert_eq!(relative(&files[0], &base), PathBuf::from("easy/a.json"));
        let one = vec![PathBuf::from("data/easy/a.json")];
        assert_eq!(
            relative(&one[0], &common_dir(&one)),
            PathBuf::from("a.json")
        );
    }
}
