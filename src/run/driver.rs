//! The one driver every kind of evaluation runs on: the files of a run
//! are evaluated in parallel a window at a time, each one's output file
//! written to the run folder as it finishes (or its earlier result taken
//! back from there when it was made with the same settings from the same
//! text), a progress bar counts them, and the results reach the kind in
//! file order, a file that could not be evaluated as a [`Failure`] that
//! stops nothing else. Several trials run one after another, each in its
//! own folder ([`super::folder::trial_dir`]).
//!
//! Results are handed on one at a time and never all held, so memory stays
//! flat as the dataset grows.

use std::io::Write;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::folder;
use crate::formats::read::read_text;
use crate::llm::cache::sha256_hex;
use crate::{Error, Result};

/// One input file of a run, as the kind is handed it.
pub struct Input<'a> {
    pub path: &'a Path,
    /// The path below the deepest folder holding every file of the run,
    /// which the output files mirror.
    pub rel: &'a str,
    pub text: &'a str,
    /// SHA-256 of `text`: ties an output file to its source, and the
    /// summary to its dataset. None when the run writes no folder: nothing
    /// is resumed from it and `report` reads only run folders, so the files
    /// are not hashed.
    pub sha256: Option<&'a str>,
}

/// A kind of evaluation: what one file gives, what its output file holds,
/// and how that file is read back.
pub trait Kind: Sync {
    /// What the run keeps of one file (the summary is made from these).
    type Outcome: Send;
    /// What only the output file needs (dropped once it is written).
    type Detail: Send;

    /// What a file is to this kind ("conversation", "dialogue", "scenario").
    const UNIT: &'static str;

    /// The folder of the run folder that holds the output files.
    const FOLDER: &'static str;

    /// The settings an output file is reused under: any difference (the
    /// keys of [`INFORMATIVE`] aside) evaluates the file again.
    fn settings(&self) -> &Value;

    /// Whether an earlier run's output file may stand for this run's (a
    /// person's conversations never do).
    fn resumes(&self) -> bool {
        true
    }

    /// Evaluate one file.
    fn evaluate(&self, input: &Input<'_>) -> Result<(Self::Outcome, Self::Detail)>;

    /// Write the output file of an evaluated file; `stamp` (the settings
    /// with the file's hash) goes in it under `evaluation`. The detail is
    /// handed over: nothing else needs it.
    fn write_output(
        &self,
        input: &Input<'_>,
        stamp: &Value,
        outcome: &Self::Outcome,
        detail: Self::Detail,
        out: &mut dyn Write,
    ) -> std::io::Result<()>;

    /// The outcome an output file holds, once its `evaluation` has been
    /// found to match this run's; None (with a note on stderr) evaluates
    /// the file again.
    fn resume(&self, input: &Input<'_>, stored: Value) -> Option<Self::Outcome>;
}

/// Keys of `evaluation` that are recorded but do not decide a resume (the
/// predictions file's path: its hash decides).
pub const INFORMATIVE: &[&str] = &["predictions"];

/// A file of the run that could not be evaluated, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub file: String,
    pub error: String,
}

/// What became of one file, handed to the kind in file order.
pub enum Done<O> {
    Evaluated { outcome: O, resumed: bool },
    Failed(Failure),
}

/// Files evaluated at a time: enough to keep every worker busy, few enough
/// that their results are a small fraction of what a run holds.
const WINDOW: usize = 256;

/// What a pass over the files gathered besides the outcomes.
#[derive(Debug, Clone, Default)]
pub struct Pass {
    /// Every file given, in order, with its SHA-256 (those that failed
    /// too: a partial run compares with a complete one over the same files);
    /// no hashes when the run writes no folder (see [`Input::sha256`]).
    pub dataset: Vec<(String, Option<String>)>,
    pub failures: Vec<Failure>,
    pub resumed: usize,
}

/// Evaluate `files` with `kind` into `out` (a trial's folder or the run
/// folder), as `setup` says (`reset`, `threads`, `progress`), handing each
/// file's result to `done` in file order.
pub fn evaluate<K: Kind>(
    kind: &K,
    files: &[PathBuf],
    setup: &super::Setup,
    out: Option<&Path>,
    mut done: impl FnMut(Done<K::Outcome>) + Send,
) -> Result<Pass> {
    let base = folder::common_dir(files);
    let bar = progress_bar(files.len() as u64, setup.progress, K::UNIT);
    let mut pass = Pass::default();
    let mut job = || -> Result<()> {
        for window in files.chunks(WINDOW) {
            let results: Vec<OneFile<K::Outcome>> = window
                .par_iter()
                .map(|path| {
                    let rel = folder::relative(path, &base).to_string_lossy().into_owned();
                    let result = one(kind, path, &rel, setup, out);
                    bar.inc(1);
                    result
                })
                .collect();
            for (path, (sha256, result)) in window.iter().zip(results) {
                pass.dataset.push((path.display().to_string(), sha256));
                match result {
                    Ok((outcome, resumed)) => {
                        pass.resumed += usize::from(resumed);
                        done(Done::Evaluated { outcome, resumed });
                    }
                    Err(e) => {
                        let failure = Failure {
                            file: path.display().to_string(),
                            error: e.to_string(),
                        };
                        pass.failures.push(failure.clone());
                        done(Done::Failed(failure));
                    }
                }
            }
        }
        Ok(())
    };
    let run = match setup.threads {
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
    Ok(pass)
}

/// A file's SHA-256 (when hashed), and its outcome with whether it was
/// resumed.
type OneFile<O> = (Option<String>, Result<(O, bool)>);

/// One file: its SHA-256 (of the bytes, when the text cannot be read),
/// when the run writes a folder, and its outcome, taken from `out` or
/// evaluated and written there.
fn one<K: Kind>(
    kind: &K,
    path: &Path,
    rel: &str,
    setup: &super::Setup,
    out: Option<&Path>,
) -> OneFile<K::Outcome> {
    let text = match read_text(path) {
        Ok(text) => text,
        Err(e) => {
            let bytes = || std::fs::read(path).unwrap_or_default();
            return (out.map(|_| sha256_hex(&bytes())), Err(e));
        }
    };
    let sha256 = out.map(|_| sha256_hex(text.as_bytes()));
    let input = Input {
        path,
        rel,
        text: &text,
        sha256: sha256.as_deref(),
    };
    let (Some(out), Some(hash)) = (out, input.sha256) else {
        return (None, kind.evaluate(&input).map(|(o, _)| (o, false)));
    };
    let output = folder::output_path(out, K::FOLDER, rel);
    let result = (|| {
        let stamp = stamp(kind, hash);
        if !setup.reset && kind.resumes() {
            if let Some(outcome) = resume(kind, &input, &output, &stamp) {
                return Ok((outcome, true));
            }
        }
        let (outcome, detail) = kind.evaluate(&input)?;
        if let Some(dir) = output.parent() {
            crate::formats::create_folder(dir)?;
        }
        crate::formats::atomic_write_unsynced_with(&output, |w| {
            kind.write_output(&input, &stamp, &outcome, detail, w)
        })?;
        Ok((outcome, false))
    })();
    (sha256, result)
}

/// The `evaluation` an output file of `kind` holds: its settings and the
/// hash of the file evaluated, under `<unit>_sha256`.
pub fn stamp<K: Kind>(kind: &K, sha256: &str) -> Value {
    let mut stamp = kind.settings().clone();
    if let Value::Object(map) = &mut stamp {
        map.insert(format!("{}_sha256", K::UNIT), Value::from(sha256));
    }
    stamp
}

/// The outcome in `output`, when it was made with `stamp`.
fn resume<K: Kind>(
    kind: &K,
    input: &Input<'_>,
    output: &Path,
    stamp: &Value,
) -> Option<K::Outcome> {
    let again = format!("evaluating {} again", input.path.display());
    let stored = stored_if_made_with(output, stamp, &again)?;
    kind.resume(input, stored)
}

/// The output file at `output` when its `evaluation` matches `stamp`;
/// None when there is none, and (with a note on stderr ending in `again`)
/// when it cannot be read or was made otherwise.
pub fn stored_if_made_with(output: &Path, stamp: &Value, again: &str) -> Option<Value> {
    if !output.is_file() {
        return None;
    }
    let stored: Value = match crate::formats::read_json(output) {
        Ok((_, stored)) => stored,
        Err(e) => {
            eprintln!("warning: {e}; {again}");
            return None;
        }
    };
    let recorded = stored.get("evaluation").cloned().unwrap_or(Value::Null);
    let differences = differences(&recorded, stamp);
    if !differences.is_empty() {
        let what: Vec<String> = differences
            .iter()
            .map(|key| match recorded.get(key) {
                Some(v) => format!("{key} was {v}"),
                None => format!("{key} was not recorded"),
            })
            .collect();
        eprintln!(
            "note: {} was made with other settings or inputs ({}); {again}",
            output.display(),
            what.join(", "),
        );
        return None;
    }
    Some(stored)
}

/// The keys of `want` whose value in `stored` differs (missing ones
/// included), in `want`'s order; empty when `stored` can stand for it.
pub fn differences(stored: &Value, want: &Value) -> Vec<String> {
    let Some(want) = want.as_object() else {
        return Vec::new();
    };
    want.iter()
        .filter(|(key, _)| !INFORMATIVE.contains(&key.as_str()))
        .filter(|(key, want)| !same(stored.get(key.as_str()), want))
        .map(|(key, _)| key.clone())
        .collect()
}

/// Equal JSON values, numbers compared as numbers (a stored `0.7` equals
/// this run's `0.7` whatever the float width that wrote it).
fn same(stored: Option<&Value>, want: &Value) -> bool {
    match (stored, want) {
        (Some(Value::Number(a)), Value::Number(b)) if a != b => {
            a.is_f64() && b.is_f64() && a.as_f64().map(|x| x as f32) == b.as_f64().map(|y| y as f32)
        }
        // At any depth, keys of INFORMATIVE decide nothing.
        (Some(Value::Object(a)), Value::Object(b)) => b
            .iter()
            .filter(|(key, _)| !INFORMATIVE.contains(&key.as_str()))
            .all(|(key, v)| same(a.get(key), v)),
        (Some(a), b) => a == b,
        (None, _) => false,
    }
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

fn progress_bar(len: u64, show: bool, unit: &str) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let template = format!("{{bar:40}} {{pos}}/{{len}} {unit}s {{elapsed}}");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_as_numbers_and_the_predictions_path_is_informative() {
        let want = json!({"temperature": 0.7, "predictions": "b.jsonl", "x_sha256": "1",
            "settings": {"predictions": "b.jsonl", "model": "m"}});
        let stored = json!({"temperature": 0.699999988079071, "predictions": "a.jsonl", "x_sha256": "1",
            "settings": {"predictions": "a.jsonl", "model": "m"}});
        assert!(differences(&stored, &want).is_empty());
        let other = json!({"temperature": 0.5, "x_sha256": "2"});
        assert_eq!(
            differences(&other, &want),
            vec!["temperature", "x_sha256", "settings"]
        );
    }
}
