//! Replaying gold calls: execute every gold call of a dialogue in order
//! from the initial state, in its suite's world, and compare what the
//! world returns with what the dialogue recorded.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use crate::dialogue::Conversation;
use crate::formats::to_python_json;
use crate::sim::{Databases, Reply};
use crate::suite::{Execution, Suite};
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

/// The replay of one dialogue.
#[derive(Debug, Clone)]
pub struct Replay {
    /// Per gold call, in order: (turn, call, what the world did).
    pub executions: Vec<(usize, usize, Execution)>,
}

/// Execute every gold call of `conversation` in order, in `suite`'s world.
pub fn replay(
    suite: &dyn Suite,
    databases: &Databases,
    conversation: &Conversation,
) -> Result<Replay, String> {
    let mut world = suite.world(databases, conversation)?;
    let executions = conversation
        .gold_calls()
        .map(|(t, c, call)| {
            let execution = world.execute(&call.request.api_name, call.request.parameters.clone());
            (t, c, execution)
        })
        .collect();
    Ok(Replay { executions })
}

/// A recorded or simulated result, as the JSON a reader compares (borrowed:
/// responses can be large and are only printed).
#[derive(Serialize)]
struct Outcome<'a, R> {
    response: &'a R,
    exception: &'a Option<String>,
}

/// The difference between a recorded and a simulated result, as a unified
/// diff of their JSON in the upstream style (recorded -, simulated +).
fn unified_diff(recorded: &Outcome<'_, Value>, simulated: &Outcome<'_, Reply>) -> String {
    let recorded = to_python_json(recorded);
    let simulated = to_python_json(simulated);
    similar::TextDiff::from_lines(&recorded, &simulated)
        .unified_diff()
        .context_radius(3)
        .header("recorded", "simulated")
        .to_string()
}

/// Differences between the recording and the replay of one dialogue.
pub fn differences(file: &str, conversation: &Conversation, replay: &Replay) -> Vec<Difference> {
    let mut out = Vec::new();
    for ((t, c, call), (_, _, executed)) in conversation.gold_calls().zip(&replay.executions) {
        if executed.response == call.response && call.exception == executed.exception {
            continue;
        }
        out.push(Difference {
            file: file.to_string(),
            turn: t,
            call: c,
            api_name: call.request.api_name.clone(),
            diff: unified_diff(
                &Outcome {
                    response: &call.response,
                    exception: &call.exception,
                },
                &Outcome {
                    response: &executed.response,
                    exception: &executed.exception,
                },
            ),
        });
    }
    out
}

/// What verifying one file found.
#[derive(Debug, Clone)]
pub struct Verified {
    pub calls: usize,
    pub differs: Vec<Difference>,
}

/// The result of verifying a set of files.
#[derive(Debug, Clone, Default, Serialize)]
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

impl Report {
    /// The report of files verified one by one, in their order.
    pub fn gather(results: Vec<Result<Verified>>) -> Report {
        let mut report = Report::default();
        for result in results {
            match result {
                Ok(verified) => {
                    report.conversations += 1;
                    report.calls += verified.calls;
                    report.reproduced += verified.calls - verified.differs.len();
                    report.differs.extend(verified.differs);
                }
                Err(e) => report.errors.push(e.to_string()),
            }
        }
        report
    }
}

/// Verify every file, in parallel, and gather the report in file order; a
/// file that cannot be verified gives its error without stopping the others.
pub fn verify_files(files: &[PathBuf], suite: &dyn Suite, databases: &Databases) -> Report {
    Report::gather(
        files
            .par_iter()
            .map(|path| verify_file(path, suite, databases))
            .collect(),
    )
}

fn verify_file(path: &Path, suite: &dyn Suite, databases: &Databases) -> Result<Verified> {
    let conversation = suite.read_dialogue(path)?;
    let replay = replay(suite, databases, &conversation).map_err(|m| Error::input(path, m))?;
    let differs = differences(&path.display().to_string(), &conversation, &replay);
    Ok(Verified {
        calls: replay.executions.len(),
        differs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tooltalk() -> &'static dyn Suite {
        crate::suites::by_name("tooltalk").unwrap()
    }

    /// The diff verify prints: three lines of context, and similar's note
    /// on the last line (`}`), which has no line break.
    #[test]
    fn a_diff_marks_the_unterminated_last_line() {
        let (none, boom) = (None, Some("boom".to_string()));
        let diff = unified_diff(
            &Outcome {
                response: &Value::Null,
                exception: &none,
            },
            &Outcome {
                response: &Reply::default(),
                exception: &boom,
            },
        );
        assert_eq!(
            diff,
            "--- recorded\n+++ simulated\n@@ -1,4 +1,4 @@\n {\n     \"response\": null,\n\
             -    \"exception\": null\n+    \"exception\": \"boom\"\n }\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn upstream_differences_are_few_and_every_file_is_verified() {
        let Some(upstream) = crate::test_support::upstream("tooltalk") else {
            return;
        };
        let databases = tooltalk()
            .load_databases(&upstream.join("databases"))
            .unwrap();
        let files = crate::formats::discover(
            &[upstream.join("easy"), upstream.join("tooltalk")],
            &["json"],
        )
        .unwrap();
        let report = verify_files(&files, tooltalk(), &databases);
        assert_eq!(report.conversations, files.len());
        assert!(report.errors.is_empty());
        assert!(report.differs.len() > 30);
        assert_eq!(report.reproduced + report.differs.len(), report.calls);
    }

    #[test]
    fn a_bad_file_is_reported_and_the_others_are_verified() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let databases = tooltalk().load_databases(&repo.join("databases")).unwrap();
        let mut files = crate::formats::discover(&[repo.join("conversations")], &["json"]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, "{\"name\": 1}").unwrap();
        files.insert(1, bad);
        let report = verify_files(&files, tooltalk(), &databases);
        assert_eq!(report.conversations, files.len() - 1);
        assert_eq!(report.errors.len(), 1);
        assert!(
            report.errors[0].contains("bad.json"),
            "{}",
            report.errors[0]
        );
    }
}
