//! Replaying gold calls: execute every gold call of a dialogue in order
//! from the initial state, in its suite's world, and compare what the
//! world returns with what the dialogue recorded.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use crate::dialogue::Conversation;
use crate::errata::{Entry, Errata, Known, Stale};
use crate::formats::to_python_json;
use crate::sim::{Databases, Reply};
use crate::suite::{Execution, NotChecked, Note, Suite, WorldOptions};
use crate::{Error, Result};

pub mod output;

/// One gold call whose recording differs from the simulator's result.
#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    pub file: String,
    /// The call's place in its file ([`crate::dialogue::Place`]): a
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
    /// A unified diff, recorded (-) against simulated (+).
    pub diff: String,
    /// The erratum that records this difference as known (absent when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known: Option<Known>,
}

/// How a person reads the places of verify's records (see
/// [`crate::dialogue::place_words`]).
macro_rules! place_words {
    ($($record:ty),*) => {$(
        impl $record {
            pub fn place_words(&self) -> String {
                crate::dialogue::place_words(self.turn, self.call, self.line)
            }
        }
    )*};
}
place_words!(Difference, Unchecked, RetrievalNote);

/// A gold call that cannot be reproduced offline by design, so it is
/// neither reproduced nor a difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unchecked {
    pub file: String,
    pub turn: usize,
    pub call: usize,
    pub api_name: String,
    pub reason: NotChecked,
    /// The 1-based line of the file, for a call that stands at a line
    /// (API-Bank); absent for a conversation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

/// A tool search whose recorded pick the configured retriever would not
/// have made (reported apart: the search answered for the recorded pick).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetrievalNote {
    pub file: String,
    pub turn: usize,
    pub call: usize,
    /// The tool the recording retrieved.
    pub recorded: String,
    /// The tool the configured retriever ranks first.
    pub retriever: String,
    /// The 1-based line of the file, for a call that stands at a line
    /// (API-Bank); absent for a conversation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

/// The replay of one dialogue.
#[derive(Debug, Clone)]
pub struct Replay {
    /// Per gold call, in order: (turn, call, what the world did), turn and
    /// call being the call's position in the model.
    pub executions: Vec<(usize, usize, Execution)>,
}

/// Execute every gold call of `conversation` in order, in `suite`'s world,
/// each with its recording at hand.
pub fn replay(
    suite: &dyn Suite,
    databases: &Databases,
    conversation: &Conversation,
    options: &WorldOptions,
) -> Result<Replay, String> {
    let mut world = suite.world(databases, conversation, options)?;
    let executions = conversation
        .gold_calls()
        .map(|(t, c, call)| {
            let execution = world.execute(
                &call.request.api_name,
                call.request.parameters.clone(),
                Some(call),
            );
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

/// What comparing the recording with the replay of one dialogue found.
#[derive(Debug, Clone, Default)]
pub struct Comparison {
    pub differs: Vec<Difference>,
    pub not_checked: Vec<Unchecked>,
    pub retrieval: Vec<RetrievalNote>,
    /// Why the configured retriever failed, once per tool search it
    /// failed on.
    pub retriever_failures: Vec<String>,
    /// Errata of the dialogue that no longer apply.
    pub stale: Vec<Stale>,
    /// The errata-file entries that name the dialogue (their indexes).
    pub matched_errata: Vec<usize>,
}

/// Compare the recording of one dialogue with its replay: differences
/// (each marked known when one of `errata` names it), calls that cannot be
/// checked, notes, and the errata that no longer apply.
pub fn compare(
    suite: &dyn Suite,
    file: &str,
    conversation: &Conversation,
    replay: &Replay,
    errata: &[Entry],
) -> Comparison {
    let mut out = Comparison {
        matched_errata: errata.iter().filter_map(|e| e.index).collect(),
        ..Comparison::default()
    };
    // What each erratum found at its place: nothing yet.
    let mut found: Vec<Option<String>> = vec![None; errata.len()];
    for ((t, c, call), (_, _, executed)) in conversation.gold_calls().zip(&replay.executions) {
        let place = call.place(t, c);
        let api_name = &call.request.api_name;
        let erratum = errata
            .iter()
            .position(|e| (e.erratum.turn, e.erratum.call) == (place.turn, place.call));
        // Whether the erratum at this place applies, or why not.
        let mut verdict = |why: Option<String>| {
            if let Some(i) = erratum {
                found[i] = Some(why.unwrap_or_default());
            }
        };
        if let Some(i) = erratum {
            if errata[i].erratum.api_name != *api_name {
                verdict(Some(format!(
                    "the call there is {api_name}, not {}",
                    errata[i].erratum.api_name
                )));
            }
        }
        if let Some(Note::RetrieverFailed { error }) = &executed.note {
            out.retriever_failures.push(error.clone());
        }
        if let Some(Note::Retrieval {
            recorded,
            retriever,
        }) = &executed.note
        {
            out.retrieval.push(RetrievalNote {
                file: file.to_string(),
                turn: place.turn,
                call: place.call,
                recorded: recorded.clone(),
                retriever: retriever.clone(),
                line: call.line(),
            });
        }
        if let Some(reason) = executed.not_checked {
            verdict(Some("the call cannot be checked offline".to_string()));
            out.not_checked.push(Unchecked {
                file: file.to_string(),
                turn: place.turn,
                call: place.call,
                api_name: api_name.clone(),
                reason,
                line: call.line(),
            });
            continue;
        }
        if suite.reproduces(call, executed) {
            verdict(Some("the call reproduces now".to_string()));
            continue;
        }
        let known = erratum
            .filter(|&i| errata[i].erratum.api_name == *api_name)
            .map(|i| errata[i].known());
        if known.is_some() {
            verdict(None);
        }
        out.differs.push(Difference {
            file: file.to_string(),
            turn: place.turn,
            call: place.call,
            api_name: api_name.clone(),
            line: call.line(),
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
            known,
        });
    }
    for (entry, found) in errata.iter().zip(found) {
        match found {
            // It applies.
            Some(why) if why.is_empty() => {}
            Some(why) => out.stale.push(entry.stale(file, why)),
            None => out
                .stale
                .push(entry.stale(file, "the dialogue has no gold call there")),
        }
    }
    out
}

/// What verifying one file found.
#[derive(Debug, Clone)]
pub struct Verified {
    pub calls: usize,
    pub found: Comparison,
}

/// The result of verifying a set of files.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    pub conversations: usize,
    pub calls: usize,
    pub reproduced: usize,
    /// Differences an erratum records as known (counted when there are any).
    #[serde(skip_serializing_if = "is_zero")]
    pub known: usize,
    pub differs: Vec<Difference>,
    /// Calls that cannot be reproduced offline by design (listed when
    /// there are any): `reproduced + differs + not_checked == calls`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_checked: Vec<Unchecked>,
    /// Tool searches the configured retriever would have answered with
    /// another tool (listed when there are any).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retrieval: Vec<RetrievalNote>,
    /// Files that could not be verified (unreadable, malformed, a bad
    /// timestamp), each message naming the file; the others are reported.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Errata that no longer apply (listed when there are any).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale_errata: Vec<Stale>,
    /// Each way the configured retriever failed (its server cannot be
    /// reached, say), once, with how many tool searches it failed: the run
    /// could not do what it was asked (exit 2).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retriever_failures: Vec<RetrieverFailure>,
    /// The errata-file entries that named a dialogue verified.
    #[serde(skip)]
    pub matched_errata: Vec<usize>,
}

/// One cause of the retriever's failures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RetrieverFailure {
    pub error: String,
    /// The tool searches it failed.
    pub searches: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Report {
    /// Add one file's result; its differences are handed back, for the
    /// caller to keep ([`verify_files`]) or to write out as they come
    /// (`talkforge verify`).
    pub fn add(&mut self, result: Result<Verified>) -> Vec<Difference> {
        match result {
            Ok(verified) => {
                let found = verified.found;
                self.conversations += 1;
                self.calls += verified.calls;
                self.reproduced += verified.calls - found.differs.len() - found.not_checked.len();
                self.not_checked.extend(found.not_checked);
                self.retrieval.extend(found.retrieval);
                self.stale_errata.extend(found.stale);
                for error in found.retriever_failures {
                    match self
                        .retriever_failures
                        .iter_mut()
                        .find(|f| f.error == error)
                    {
                        Some(known) => known.searches += 1,
                        None => self
                            .retriever_failures
                            .push(RetrieverFailure { error, searches: 1 }),
                    }
                }
                self.matched_errata.extend(found.matched_errata);
                self.known += found.differs.iter().filter(|d| d.known.is_some()).count();
                found.differs
            }
            Err(e) => {
                self.errors.push(e.to_string());
                Vec::new()
            }
        }
    }

    /// How many calls differ, whether or not `differs` holds them.
    pub fn differing(&self) -> usize {
        self.calls - self.reproduced - self.not_checked.len()
    }

    /// Whether something fails: a difference no erratum records, or an
    /// erratum that no longer applies.
    pub fn fails(&self) -> bool {
        self.differing() > self.known || !self.stale_errata.is_empty()
    }
}

/// Files verified at a time: enough to keep every worker busy, few enough
/// that what they found is a small part of what a run holds.
const WINDOW: usize = 256;

/// Verify every file, a window of files at a time in parallel, and hand
/// each file's result to `each` in file order; a file that cannot be
/// verified gives its error without stopping the others. Only one
/// window's results are held at a time, so memory does not grow with the
/// dataset.
pub fn verify_each(
    files: &[PathBuf],
    suite: &dyn Suite,
    databases: &Databases,
    options: &WorldOptions,
    errata: &Errata,
    mut each: impl FnMut(Result<Verified>),
) {
    for window in files.chunks(WINDOW) {
        let results: Vec<Result<Verified>> = window
            .par_iter()
            .map(|path| verify_file(path, suite, databases, options, errata))
            .collect();
        results.into_iter().for_each(&mut each);
    }
}

/// Verify every file and gather the whole report, differences included.
pub fn verify_files(
    files: &[PathBuf],
    suite: &dyn Suite,
    databases: &Databases,
    options: &WorldOptions,
) -> Report {
    verify_files_with_errata(files, suite, databases, options, &Errata::none())
}

/// [`verify_files`], with the errata of errata files besides the
/// dialogues' own.
pub fn verify_files_with_errata(
    files: &[PathBuf],
    suite: &dyn Suite,
    databases: &Databases,
    options: &WorldOptions,
    errata: &Errata,
) -> Report {
    let mut report = Report::default();
    verify_each(files, suite, databases, options, errata, |result| {
        let differs = report.add(result);
        report.differs.extend(differs);
    });
    report
}

fn verify_file(
    path: &Path,
    suite: &dyn Suite,
    databases: &Databases,
    options: &WorldOptions,
    errata: &Errata,
) -> Result<Verified> {
    let conversation = suite.read_dialogue(path)?;
    let replay =
        replay(suite, databases, &conversation, options).map_err(|m| Error::input(path, m))?;
    let errata = errata.for_dialogue(path, &conversation.errata);
    let found = compare(
        suite,
        &path.display().to_string(),
        &conversation,
        &replay,
        &errata,
    );
    Ok(Verified {
        calls: replay.executions.len(),
        found,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tooltalk() -> &'static dyn Suite {
        crate::suites::registry().by_name("tooltalk").unwrap()
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
        let report = verify_files(&files, tooltalk(), &databases, &WorldOptions::default());
        assert_eq!(report.conversations, files.len());
        assert!(report.errors.is_empty());
        assert!(report.differs.len() > 30);
        assert_eq!(report.reproduced + report.differs.len(), report.calls);
    }

    #[test]
    fn a_bad_file_is_reported_and_the_others_are_verified() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let databases = tooltalk().load_databases(&repo.join("databases")).unwrap();
        // The ToolTalk part of the dataset (the API-Bank part has `.lv3.json`
        // scenarios, which this discovery by ending would take too).
        let tooltalk_part = [
            repo.join("conversations/easy"),
            repo.join("conversations/hard"),
        ];
        let mut files = crate::formats::discover(&tooltalk_part, &["json"]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, "{\"name\": 1}").unwrap();
        files.insert(1, bad);
        let report = verify_files(&files, tooltalk(), &databases, &WorldOptions::default());
        assert_eq!(report.conversations, files.len() - 1);
        assert_eq!(report.errors.len(), 1);
        assert!(
            report.errors[0].contains("bad.json"),
            "{}",
            report.errors[0]
        );
    }
}
