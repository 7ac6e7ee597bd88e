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

use super::outcome::{ConversationResult, Identity};
use super::output::{annotate, read_stored, turn_outcomes, RunInfo};
use super::predict::{PredictedCall, Predictor};
use super::score::score;
use super::simulate::{simulate, SimulateError, Simulation};
use super::summary::{Summary, Tally};
use crate::dialogue::{Conversation, GoldCall};
use crate::formats::read::{json_error, read_text};
use crate::formats::{atomic_write, atomic_write_unsynced, atomic_write_with, to_python_json};
use crate::json::stream::ArraySpool;
use crate::llm::endpoint::sha256_hex;
use crate::sim::Databases;
use crate::suite::TextSimilarity;
use crate::{Error, Result};

/// A text similarity the run can name and ask about failures.
pub trait Similarity: TextSimilarity {
    fn name(&self) -> String;
    /// An error that made a comparison impossible (a failing endpoint).
    fn failure(&self) -> Option<String> {
        None
    }
    /// Whether comparing texts waits on an endpoint.
    fn waits(&self) -> bool {
        false
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
    fn waits(&self) -> bool {
        true
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
/// [`crate::json::stream`]), so a run holds tallies, not results.
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

/// Evaluate every file on the pool, a group of files at a time (see
/// [`evaluate_group`]), handing each result (and what `render` made of it
/// on the worker) to `sink` in file order. After the first failure no
/// further conversation is started; the failure is returned once the pool
/// is done.
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
    let workers = options.threads.unwrap_or_else(rayon::current_num_threads);
    let group = group_size(
        files.len(),
        workers,
        predictor.waits() || similarity.waits(),
        options.out.is_some(),
    );
    let groups = match options.out {
        Some(_) => groups_by_folder(files, group),
        None => files.chunks(group).collect(),
    };
    let mut job = || {
        crate::ordered::for_each_in_order_within(
            &groups,
            crate::ordered::group_window(group, workers),
            |_, group| {
                let outs: Vec<Option<PathBuf>> = group
                    .iter()
                    .map(|path| {
                        options
                            .out
                            .as_ref()
                            .zip(base.as_deref())
                            .map(|(dir, base)| {
                                dir.join(CONVERSATIONS_DIR).join(relative(path, base))
                            })
                    })
                    .collect();
                let results =
                    evaluate_group(group, &outs, predictor, similarity, options, info, &failed);
                results
                    .into_iter()
                    .map(|result| {
                        let result = result?;
                        // A hidden bar still takes its lock on every tick.
                        if options.progress {
                            bar.inc(1);
                        }
                        Some(result.map(|r| {
                            let rendered = render(&r);
                            (r, rendered)
                        }))
                    })
                    .collect::<Vec<_>>()
            },
            |group| {
                for result in group {
                    match result {
                        Some(Ok((r, rendered))) if first_error.is_none() => sink(r, rendered),
                        Some(Err(e)) if first_error.is_none() => first_error = Some(e),
                        _ => {}
                    }
                }
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
        subset: crate::formats::folder_name(path).unwrap_or_default(),
        name,
        conversation_id,
    }
}

/// Files one worker evaluates together. Evaluation runs a group phase by
/// phase (read and parse every file, then simulate every conversation,
/// then score them) rather than file by file: each phase's code then stays
/// in the instruction cache for the whole group, where one file at a time
/// cycles through more code than the cache holds and reloads the parser,
/// the simulated tools and the scorer for every file.
const GROUP: usize = 16;

/// Files a worker takes at once when it writes an output file for each:
/// as many as a folder of a dataset usually holds (see [`groups_by_folder`]).
const FOLDER_GROUP: usize = 64;

/// How many files a worker takes at a time: one when evaluation waits on
/// an endpoint (each worker then stands for a request in flight, as
/// `--concurrency` says), else up to [`GROUP`], or [`FOLDER_GROUP`] with an
/// output folder (see [`crate::ordered::group_len`]).
fn group_size(files: usize, workers: usize, waits: bool, writes: bool) -> usize {
    if waits {
        return 1;
    }
    let most = if writes { FOLDER_GROUP } else { GROUP };
    crate::ordered::group_len(files, workers, most)
}

/// `files` in runs of at most `size` that never span two folders.
///
/// Files created in one folder at the same moment wait for each other (the
/// folder is locked while each one is created): with an output folder,
/// workers on different folders write side by side where workers on
/// neighbouring files of one folder queue (measured on upstream x100 with
/// `--out`: 1.7 s with workers on files far apart, 2.2-2.6 s on
/// neighbouring ones).
fn groups_by_folder(files: &[PathBuf], size: usize) -> Vec<&[PathBuf]> {
    let mut groups = Vec::with_capacity(files.len() / size.max(1) + 1);
    let mut start = 0;
    for i in 1..=files.len() {
        let ends = i == files.len()
            || i - start == size.max(1)
            || files[i].parent() != files[start].parent();
        if ends {
            groups.push(&files[start..i]);
            start = i;
        }
    }
    groups
}

/// A conversation file read and parsed, or already settled: resumed from
/// an earlier run's output, or failed.
enum Loaded {
    Settled(Result<ConversationResult>),
    Parsed {
        text: String,
        /// Only with an output folder: it ties the output file to its source.
        sha256: Option<String>,
        conversation: Conversation,
    },
}

/// Evaluate `paths` (their output files at `outs`) phase by phase, with
/// the outcome a file-by-file run would have: a file is started only
/// while no failure is known (`failed`, set here on the first one), and
/// nothing after a file that failed is evaluated. `None` for a file not
/// evaluated.
fn evaluate_group(
    paths: &[PathBuf],
    outs: &[Option<PathBuf>],
    predictor: &dyn Predictor,
    similarity: &dyn Similarity,
    options: &RunOptions<'_>,
    info: &RunInfo,
    failed: &AtomicBool,
) -> Vec<Option<Result<ConversationResult>>> {
    let mut results: Vec<Option<Result<ConversationResult>>> =
        std::iter::repeat_with(|| None).take(paths.len()).collect();
    // Files from `end` on are not evaluated: not started, or after a failure.
    let mut end = paths.len();
    let stop_after = |end: &mut usize, i: usize| {
        failed.store(true, Ordering::Relaxed);
        *end = (*end).min(i + 1);
    };

    let mut parsed = Vec::with_capacity(paths.len());
    for (i, (path, out)) in paths.iter().zip(outs).enumerate() {
        if failed.load(Ordering::Relaxed) {
            end = i;
            break;
        }
        match load(path, out.as_deref(), options, info) {
            Loaded::Parsed {
                text,
                sha256,
                conversation,
            } => parsed.push((i, text, sha256, conversation)),
            Loaded::Settled(result) => {
                if result.is_err() {
                    stop_after(&mut end, i);
                }
                results[i] = Some(result);
            }
        }
    }

    let databases = options.databases.clone();
    let mut simulated = Vec::with_capacity(parsed.len());
    for (i, text, sha256, conversation) in &parsed {
        if *i >= end {
            break;
        }
        let path = &paths[*i];
        match simulate(
            &databases,
            conversation,
            predictor,
            options.max_calls_per_turn,
        ) {
            Ok(simulation) => simulated.push((*i, text, sha256, conversation, simulation)),
            Err(e) => {
                results[*i] = Some(Err(match e {
                    SimulateError::Setup(m) => Error::input(path, m),
                    SimulateError::Predict(p) => Error::Other(format!("{}: {p}", path.display())),
                }));
                stop_after(&mut end, *i);
            }
        }
    }

    // Scored while the simulations borrow the conversations; their names
    // are moved into the results afterwards.
    let mut scored = Vec::with_capacity(simulated.len());
    for (i, text, sha256, conversation, simulation) in simulated {
        if i >= end {
            break;
        }
        let path = &paths[i];
        let out = outs[i].as_deref().zip(sha256.as_deref());
        match score_one(path, out, text, conversation, simulation, similarity, info) {
            Ok(result) => scored.push((i, result)),
            Err(e) => {
                results[i] = Some(Err(e));
                stop_after(&mut end, i);
            }
        }
    }
    let mut conversations = parsed
        .into_iter()
        .map(|(i, _, _, conversation)| (i, conversation));
    for (i, mut result) in scored.into_iter().filter(|(i, _)| *i < end) {
        let Some((_, conversation)) = conversations.find(|(at, _)| *at == i) else {
            unreachable!("every scored conversation was parsed");
        };
        let Identity {
            file,
            subset,
            name,
            conversation_id,
        } = identity(&paths[i], conversation.name, conversation.conversation_id);
        (
            result.file,
            result.subset,
            result.name,
            result.conversation_id,
        ) = (file, subset, name, conversation_id);
        results[i] = Some(Ok(result));
    }
    results.truncate(end);
    results.resize_with(paths.len(), || None);
    results
}

/// Read and parse `path`, or take its result from `out` when an earlier
/// run left a usable one there.
fn load(path: &Path, out: Option<&Path>, options: &RunOptions<'_>, info: &RunInfo) -> Loaded {
    let text = match read_text(path) {
        Ok(text) => text,
        Err(e) => return Loaded::Settled(Err(e)),
    };
    // The hash only ties an output file to its source: no output, no hash.
    let sha256 = out.map(|_| sha256_hex(text.as_bytes()));
    if let (Some(out), Some(sha256), false) = (out, &sha256, options.reset) {
        match resume(path, out, info, sha256) {
            Ok(Some(result)) => return Loaded::Settled(Ok(result)),
            Ok(None) => {}
            Err(e) => return Loaded::Settled(Err(e)),
        }
    }
    match serde_json::from_str(&text) {
        Ok(conversation) => Loaded::Parsed {
            text,
            sha256,
            conversation,
        },
        Err(e) => Loaded::Settled(Err(json_error(path, &e))),
    }
}

/// Score a simulated conversation, write its output file (`out`, with the
/// source's hash) and make its result, less the identity (file, subset,
/// names) that the caller fills in.
fn score_one(
    path: &Path,
    out: Option<(&Path, &str)>,
    text: &str,
    conversation: &Conversation,
    simulation: Simulation<'_>,
    similarity: &dyn Similarity,
    info: &RunInfo,
) -> Result<ConversationResult> {
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
    let turns = turn_outcomes(conversation, &simulation, &scoring);
    if let Some((out, sha256)) = out {
        let mut document: Value = serde_json::from_str(text).map_err(|e| json_error(path, &e))?;
        annotate(&mut document, &simulation, &scoring, info, sha256);
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::input(dir, format!("cannot create the folder: {e}")))?;
        }
        atomic_write_unsynced(out, to_python_json(&document).as_bytes())?;
    }
    Ok(ConversationResult::new(
        Identity::default(),
        scoring.metrics,
        &turns,
        false,
    ))
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
    fn groups_are_folder_sized_when_writing_and_vanish_for_endpoints() {
        assert_eq!(group_size(7800, 2, false, false), GROUP);
        assert_eq!(group_size(7800, 2, false, true), FOLDER_GROUP);
        assert_eq!(group_size(78, 2, false, false), 4);
        assert_eq!(group_size(7800, 4, true, false), 1);
        assert_eq!(group_size(7800, 4, true, true), 1);
    }

    #[test]
    fn folder_groups_end_at_their_size_and_at_every_new_folder() {
        let files: Vec<PathBuf> = ["a/1", "a/2", "a/3", "b/1", "c/1", "c/2"]
            .iter()
            .map(PathBuf::from)
            .collect();
        let sizes = |size| -> Vec<usize> {
            groups_by_folder(&files, size)
                .iter()
                .map(|g| g.len())
                .collect()
        };
        assert_eq!(sizes(2), [2, 1, 1, 2]);
        assert_eq!(sizes(16), [3, 1, 2]);
        assert_eq!(sizes(1), [1; 6]);
        assert_eq!(sizes(0), [1; 6]);
        assert!(groups_by_folder(&[], 16).is_empty());
        let flat: Vec<&PathBuf> = groups_by_folder(&files, 2).into_iter().flatten().collect();
        assert_eq!(flat, files.iter().collect::<Vec<_>>());
    }

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
