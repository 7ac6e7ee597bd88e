//! Evaluating a set of conversation files: simulate and score each one
//! with the suite's protocol (in parallel), write its output file, resume
//! from an earlier run's files, and gather the summary in file order.
//!
//! Files are evaluated a window at a time and each result is kept only as
//! its small per-conversation entry, so memory stays flat as the dataset
//! grows.

use std::path::{Component, Path, PathBuf};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde_json::Value;

use super::embeddings::Embeddings;
use super::failure::Context;
use super::outcome::{models_in, ConversationResult, Identity};
use super::output::{annotate, read_stored, turn_outcomes, RunInfo};
use super::passk::Trials;
use super::provenance::{self, DatabasesRecord, Dataset, Provenance};
use super::summary::{Failure, Summary, Tally};
use crate::errata::{Errata, Erratum};
use crate::formats::read::{json_error, read_text};
use crate::formats::{
    atomic_write, atomic_write_unsynced_with, atomic_write_with, write_python_json,
};
use crate::llm::sha256_hex;
use crate::sim::Databases;
use crate::suite::predict::Predictor;
use crate::suite::protocol::SimulateError;
use crate::suite::state::StateCheck;
use crate::suite::{Suite, TextSimilarity};
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

impl Similarity for crate::suite::similarity::ExactText {
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

/// How to run.
#[derive(Clone)]
pub struct RunOptions<'a> {
    /// The suite whose protocol evaluates the files.
    pub suite: &'a dyn Suite,
    pub databases: &'a Databases,
    /// The fingerprint of the databases folder
    /// ([`crate::sim::databases::folder_sha256`]), recorded so that a
    /// resumed run evaluates again what ran on other databases.
    pub databases_sha256: String,
    pub max_calls_per_turn: usize,
    /// Where output files go; `None` writes nothing.
    pub out: Option<PathBuf>,
    /// Evaluate again what `out` already holds.
    pub reset: bool,
    /// Worker threads; `None` uses every core.
    pub threads: Option<usize>,
    pub progress: bool,
    /// Errata files' entries (a dialogue's own come with it): a failure on
    /// a gold call they name is shown as known.
    pub errata: &'a Errata,
    /// What the summary's provenance records of the inputs.
    pub provenance: provenance::Inputs,
    /// Where the models asked count their tokens (`usage` in the summary).
    pub meter: crate::llm::usage::Meter,
}

/// Subfolder of `--out` holding the per-conversation files.
pub const CONVERSATIONS_DIR: &str = "conversations";

/// Files evaluated at a time: enough to keep every worker busy, few enough
/// that their results are a small fraction of what a run holds.
const WINDOW: usize = 256;

/// Evaluate `files` and summarise them; with `options.out`, also write
/// each conversation's file, `summary.json` and `report.md` there. A
/// conversation that cannot be evaluated does not stop the others: the
/// summary (and `summary.json`) is over those evaluated and lists the
/// failures (see [`failures_error`]).
pub fn evaluate_files(
    files: &[PathBuf],
    predictor: &dyn Predictor,
    similarity: &dyn Similarity,
    options: &RunOptions<'_>,
) -> Result<Summary> {
    let info = RunInfo {
        predictor: predictor.name(),
        settings: predictor.settings(),
        similarity: similarity.name(),
        max_calls_per_turn: options.max_calls_per_turn,
        databases_sha256: options.databases_sha256.clone(),
        talkforge_version: env!("CARGO_PKG_VERSION").to_string(),
    };
    let started = options.meter.reading();
    // Only an output folder mirrors the dataset's folders.
    let base = options.out.as_ref().map(|_| common_dir(files));
    let bar = progress_bar(files.len() as u64, options.progress);
    let mut failures = Vec::new();
    // Every file given, in order, with its SHA-256.
    let mut dataset: Vec<(String, String)> = Vec::with_capacity(files.len());
    let mut tally = Tally::default();
    let mut per_conversation = Vec::with_capacity(files.len());
    let mut job = || -> Result<()> {
        for window in files.chunks(WINDOW) {
            let results: Vec<Result<ConversationResult>> = window
                .par_iter()
                .map(|path| {
                    let out = options
                        .out
                        .as_ref()
                        .zip(base.as_deref())
                        .map(|(dir, base)| dir.join(CONVERSATIONS_DIR).join(relative(path, base)));
                    let result =
                        evaluate_one(path, out.as_deref(), predictor, similarity, options, &info);
                    bar.inc(1);
                    result
                })
                .collect();
            for (path, result) in window.iter().zip(results) {
                let mut result = match result {
                    Ok(result) => result,
                    Err(e) => {
                        // Still a file of the dataset: its bytes enter the
                        // digest, so that a partial run compares with a
                        // complete one over the same files.
                        let bytes = std::fs::read(path).unwrap_or_default();
                        dataset.push((path.display().to_string(), sha256_hex(&bytes)));
                        failures.push(Failure {
                            file: path.display().to_string(),
                            error: e.to_string(),
                        });
                        continue;
                    }
                };
                dataset.push((
                    result.file.clone(),
                    result.conversation_sha256.clone().unwrap_or_default(),
                ));
                tally.add(&result);
                // The summary's per-tool table has them now.
                result.tools = Default::default();
                per_conversation.push(result);
            }
        }
        Ok(())
    };
    let run = match options.threads {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build()
            .map_err(|e| Error::Other(format!("cannot start {n} worker threads: {e}")))?
            .install(job),
        // On a worker of the pool, so that the windows are handed on
        // without this thread sleeping and waking for each of them.
        None => rayon::scope(|_| job()),
    };
    bar.finish_and_clear();
    run?;
    let mut summary = tally.summary(info, per_conversation);
    summary.failures = failures;
    summary.provenance = Some(provenance_of(&summary, &dataset, predictor, options));
    summary.usage = options.meter.since(&started);
    if let Some(dir) = &options.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::input(dir, format!("cannot create the folder: {e}")))?;
        atomic_write_with(&dir.join("summary.json"), |w| write_json(&summary, w))?;
        atomic_write(
            &dir.join("report.md"),
            super::runs::report_of_summary(&summary, dir)?.as_bytes(),
        )?;
    }
    Ok(summary)
}

/// The error naming every file of a run over `files` files that could not
/// be evaluated (the summary lists them beside the results of the
/// others, in `out` when there is one); None when there are none.
pub fn failures_error(
    failures: &[Failure],
    files: usize,
    unit: &str,
    out: Option<&Path>,
) -> Option<Error> {
    if failures.is_empty() {
        return None;
    }
    let lines: Vec<String> = failures.iter().map(|f| format!("  {}", f.error)).collect();
    let written = match out {
        Some(dir) => format!(
            "; {} lists them beside the results of the others",
            dir.join("summary.json").display()
        ),
        None => String::new(),
    };
    Some(Error::Other(format!(
        "{} of {} could not be evaluated{written}:\n{}",
        failures.len(),
        crate::words::count(files, unit),
        lines.join("\n")
    )))
}

fn provenance_of(
    summary: &Summary,
    dataset: &[(String, String)],
    predictor: &dyn Predictor,
    options: &RunOptions<'_>,
) -> Provenance {
    let mut models_reported: Vec<String> = Vec::new();
    for model in summary
        .per_conversation
        .iter()
        .flat_map(|c| &c.models_reported)
    {
        if !models_reported.contains(model) {
            models_reported.push(model.clone());
        }
    }
    let inputs = &options.provenance;
    Provenance {
        talkforge_version: env!("CARGO_PKG_VERSION").to_string(),
        date: provenance::now(),
        suite: options.suite.name().to_string(),
        dataset: Dataset::of(dataset.iter().map(|(f, h)| (f.as_str(), h.as_str()))),
        databases: DatabasesRecord {
            folder: inputs.databases_folder.clone(),
            sha256: options.databases_sha256.clone(),
            files: inputs.databases_files.clone(),
        },
        errata: inputs.errata_files.clone(),
        predictor: predictor.name(),
        model_requested: summary.settings.settings.model.clone(),
        models_reported,
        user_model_requested: None,
        user_models_reported: Vec::new(),
        prompt_templates: predictor.prompt_templates(),
    }
}

/// Evaluate `files` in `n` trials, each with the predictor `predictor(t)`
/// makes for trial `t` (1-based), each trial's output in `out/trial-t`,
/// and summarise: the first trial's figures with pass^1 .. pass^n over all
/// the trials (`trials`), also written to `out`'s `summary.json` and
/// `report.md`.
pub fn evaluate_trials(
    files: &[PathBuf],
    n: usize,
    predictor: &dyn Fn(usize) -> Result<Box<dyn Predictor>>,
    similarity: &dyn Similarity,
    options: &RunOptions<'_>,
) -> Result<Summary> {
    let started = options.meter.reading();
    let mut outcomes = Vec::with_capacity(n);
    let mut first: Option<Summary> = None;
    for trial in 1..=n {
        let mut trial_options = options.clone();
        trial_options.out = options
            .out
            .as_ref()
            .map(|dir| dir.join(format!("trial-{trial}")));
        let predictor = predictor(trial)?;
        let summary = evaluate_files(files, predictor.as_ref(), similarity, &trial_options)?;
        let out = trial_options.out.as_deref();
        if let Some(e) = failures_error(&summary.failures, files.len(), "conversation", out) {
            return Err(e);
        }
        outcomes.push(
            summary
                .per_conversation
                .iter()
                .map(|c| (c.file.clone(), c.subset.clone(), c.metrics.success))
                .collect::<Vec<_>>(),
        );
        first.get_or_insert(summary);
    }
    let mut summary = first.ok_or_else(|| Error::Usage("--trials must be at least 1".into()))?;
    summary.trials = Some(Trials::new(&outcomes));
    summary.usage = options.meter.since(&started);
    if let Some(dir) = &options.out {
        atomic_write_with(&dir.join("summary.json"), |w| write_json(&summary, w))?;
        atomic_write(
            &dir.join("report.md"),
            super::runs::report_of_summary(&summary, dir)?.as_bytes(),
        )?;
    }
    Ok(summary)
}

/// The JSON summary (`--format json`, `summary.json`).
pub fn write_json(summary: &Summary, out: impl std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(out, summary).map_err(std::io::Error::other)
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
        file: path.to_string_lossy().into_owned(),
        subset: crate::formats::folder_name(path).unwrap_or_default(),
        name,
        conversation_id,
    }
}

/// Evaluate one file (its output file at `out`), or take its result from
/// `out` when an earlier run left a usable one there.
fn evaluate_one(
    path: &Path,
    out: Option<&Path>,
    predictor: &dyn Predictor,
    similarity: &dyn Similarity,
    options: &RunOptions<'_>,
    info: &RunInfo,
) -> Result<ConversationResult> {
    let text = read_text(path)?;
    // Ties an output file to its source, and the summary to its dataset.
    let sha256 = sha256_hex(text.as_bytes());
    if let (Some(out), false) = (out, options.reset) {
        if let Some(mut result) = resume(path, out, options, info, &sha256)? {
            result.conversation_sha256 = Some(sha256);
            return Ok(result);
        }
    }
    let conversation = options.suite.parse_dialogue(path, &text)?;
    let crate::suite::Evaluation::Conversations(protocol) = options.suite.evaluation() else {
        return Err(Error::Usage(format!(
            "the {} suite is evaluated by samples at levels, not by conversations",
            options.suite.name()
        )));
    };
    let simulation = protocol
        .simulate(
            options.suite,
            options.databases,
            &conversation,
            predictor,
            options.max_calls_per_turn,
        )
        .map_err(|e| match e {
            SimulateError::Setup(m) => Error::input(path, m),
            SimulateError::Predict(p) => Error::Other(format!("{}: {p}", path.display())),
        })?;
    let scoring = protocol.score(options.suite, &simulation, similarity);
    if let Some(failure) = similarity.failure() {
        return Err(Error::Other(format!(
            "{}: text similarity failed: {failure}",
            path.display()
        )));
    }
    if let Some(out) = out {
        let mut document: Value = serde_json::from_str(&text).map_err(|e| json_error(path, &e))?;
        annotate(&mut document, &simulation, &scoring, info, &sha256);
        if let Some(dir) = out.parent() {
            crate::formats::create_folder(dir)?;
        }
        atomic_write_unsynced_with(out, |w| write_python_json(&document, w))?;
    }
    let turns = turn_outcomes(&conversation, &simulation, &scoring);
    let id = identity(
        path,
        conversation.name.clone(),
        conversation.conversation_id.clone(),
    );
    let errata = options.errata.for_dialogue(path, &conversation.errata);
    let context = Context {
        injected: options.suite.injected_argument(),
        errata: &errata,
    };
    let mut result = ConversationResult::new(id, scoring.metrics, &turns, false, &context);
    result.conversation_sha256 = Some(sha256);
    result.state_check = simulation.state.clone().map(StateCheck::new);
    result.models_reported = models_in(simulation.turns.iter().flat_map(|t| {
        t.calls
            .iter()
            .map(|c| c.metadata.as_ref())
            .chain(t.answer.as_ref().map(|a| a.metadata.as_ref()))
    }));
    Ok(result)
}

/// The result stored in `out` by an earlier run, when there is a usable
/// one: made with this run's settings from the same conversation file (and
/// the same predictions file, for replay). Anything else is evaluated
/// again, with a note on stderr saying why.
fn resume(
    path: &Path,
    out: &Path,
    options: &RunOptions<'_>,
    info: &RunInfo,
    conversation_sha256: &str,
) -> Result<Option<ConversationResult>> {
    if !out.is_file() {
        return Ok(None);
    }
    let document = match crate::formats::read_json(out) {
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
    // The output file is the conversation as read: its own errata with it.
    let own: Vec<Erratum> = document
        .get("errata")
        .and_then(|e| serde_json::from_value(e.clone()).ok())
        .unwrap_or_default();
    let errata = options.errata.for_dialogue(path, &own);
    let context = Context {
        injected: options.suite.injected_argument(),
        errata: &errata,
    };
    let mut result = ConversationResult::new(id, stored.metrics, &stored.turns, true, &context);
    result.state_check = stored.state_check;
    result.models_reported = models_in(
        document
            .get("conversation")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|turn| turn.get("predictions").and_then(Value::as_array))
            .flatten()
            .map(|p| p.get("metadata")),
    );
    Ok(Some(result))
}

/// The deepest folder holding every file.
pub fn common_dir(files: &[PathBuf]) -> PathBuf {
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
pub fn relative(path: &Path, base: &Path) -> PathBuf {
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
