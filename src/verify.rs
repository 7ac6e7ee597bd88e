//! Replaying gold calls: execute every gold call of a conversation in order
//! from the initial state and compare what the simulator returns with what
//! the conversation recorded.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use crate::dataset::{read_conversation, to_python_json};
use crate::model::Conversation;
use crate::sim::world::{Databases, Execution, World};
use crate::{Error, Result};

/// One gold call whose recording differs from the simulator's result.
#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    pub file: String,
    /// 0-based position in the `conversation` array.
    pub turn: usize,
    /// 0-based position in the turn's `apis`.
    pub call: usize,
    pub api_name: String,
    /// A unified diff, recorded (-) against simulated (+).
    pub diff: String,
}

/// The replay of one conversation.
#[derive(Debug, Clone)]
pub struct Replay {
    pub calls: usize,
    /// Per gold call, in order: (turn, call, what the simulator did).
    pub executions: Vec<(usize, usize, Execution)>,
}

/// Execute every gold call of `conversation` in order.
pub fn replay(databases: &Databases, conversation: &Conversation) -> Result<Replay, String> {
    let mut world = World::for_conversation(databases, conversation)?;
    let mut executions = Vec::new();
    for (t, c, call) in conversation.gold_calls() {
        let execution = world.execute(&call.request.api_name, &call.request.parameters);
        executions.push((t, c, execution));
    }
    Ok(Replay {
        calls: executions.len(),
        executions,
    })
}

/// A recorded or simulated result, as the JSON a reader compares (borrowed:
/// responses can be large and are only printed).
#[derive(Serialize)]
struct Outcome<'a> {
    response: &'a Value,
    exception: &'a Option<String>,
}

/// Differences between the recording and the replay of one conversation.
pub fn differences(file: &str, conversation: &Conversation, replay: &Replay) -> Vec<Difference> {
    let mut out = Vec::new();
    for ((t, c, call), (_, _, executed)) in conversation.gold_calls().zip(&replay.executions) {
        if call.response == executed.response && call.exception == executed.exception {
            continue;
        }
        let recorded = to_python_json(&Outcome {
            response: &call.response,
            exception: &call.exception,
        });
        let simulated = to_python_json(&Outcome {
            response: &executed.response,
            exception: &executed.exception,
        });
        // The JSON text breaks lines only with '\n' (string contents are
        // escaped), so a plain split gives the lines similar's own (char by
        // char) tokenizer would.
        let old_lines: Vec<&str> = recorded.split_inclusive('\n').collect();
        let new_lines: Vec<&str> = simulated.split_inclusive('\n').collect();
        let diff = similar::TextDiff::configure()
            .newline_terminated(true)
            .diff_slices(&old_lines, &new_lines)
            .unified_diff()
            .context_radius(3)
            .header("recorded", "simulated")
            .to_string();
        out.push(Difference {
            file: file.to_string(),
            turn: t,
            call: c,
            api_name: call.request.api_name.clone(),
            diff,
        });
    }
    out
}

/// The result of verifying a set of files.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub conversations: usize,
    pub calls: usize,
    pub reproduced: usize,
    pub differs: Vec<Difference>,
    /// Files that could not be verified (unreadable, malformed, a bad
    /// timestamp), each message naming the file; the others are reported.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

/// What verifying a set of files found, less the differences themselves
/// (which [`verify_in_order`] hands on one by one).
#[derive(Debug, Clone, Default)]
pub struct Counts {
    pub conversations: usize,
    pub calls: usize,
    pub reproduced: usize,
    pub differs: usize,
    /// Files that could not be verified, each message naming the file.
    pub errors: Vec<String>,
}

impl Counts {
    /// The report these counts head, with `differs` to fill in.
    pub fn report(&self) -> Report {
        Report {
            conversations: self.conversations,
            calls: self.calls,
            reproduced: self.reproduced,
            differs: Vec::new(),
            errors: self.errors.clone(),
        }
    }
}

/// Verify every file in parallel; each difference is rendered by `render`
/// on the worker that found it and handed to `sink` in file order, so only
/// a batch of files' results is held at a time. A file that cannot be
/// verified is listed in the counts' `errors` and does not stop the others.
pub fn verify_in_order<R, F, S>(
    files: &[PathBuf],
    databases: &Databases,
    render: F,
    mut sink: S,
) -> Counts
where
    R: Send,
    F: Fn(&Difference) -> R + Sync,
    S: FnMut(R) + Send,
{
    let mut counts = Counts::default();
    crate::ordered::for_each_in_order(
        files,
        |_, path| {
            verify_file(path, databases)
                .map(|(calls, diffs)| (calls, diffs.iter().map(&render).collect::<Vec<R>>()))
        },
        |result| match result {
            Ok((calls, rendered)) => {
                counts.conversations += 1;
                counts.calls += calls;
                counts.reproduced += calls - rendered.len();
                counts.differs += rendered.len();
                rendered.into_iter().for_each(&mut sink);
            }
            Err(e) => counts.errors.push(e.to_string()),
        },
    );
    counts
}

/// Verify every file and gather the report (all differences in memory;
/// commands stream them with [`verify_in_order`]).
pub fn verify_files(files: &[PathBuf], databases: &Databases) -> Report {
    let mut differs = Vec::new();
    let counts = verify_in_order(files, databases, Difference::clone, |d| differs.push(d));
    Report {
        differs,
        ..counts.report()
    }
}

/// Each file's gold-call count and differences, or why it could not be
/// verified; in file order, computed in parallel.
pub fn verify_each(
    files: &[PathBuf],
    databases: &Databases,
) -> Vec<Result<(usize, Vec<Difference>)>> {
    files
        .par_iter()
        .map(|path| verify_file(path, databases))
        .collect()
}

fn verify_file(path: &Path, databases: &Databases) -> Result<(usize, Vec<Difference>)> {
    let conversation = read_conversation(path)?;
    let replay = replay(databases, &conversation).map_err(|m| Error::input(path, m))?;
    let file = path.display().to_string();
    Ok((replay.calls, differences(&file, &conversation, &replay)))
}
