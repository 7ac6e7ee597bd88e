//! What a level-3 run keeps in `--out`: one transcript file a scenario
//! under `transcripts/` (its outcome, the settings it was made with and
//! the scenario text's hash), `summary.json` and `report.md`. A later run
//! into the same folder reuses a scenario's transcript when its settings
//! and the scenario's text are the same; a person's conversations are
//! never reused, and a run with a person refuses a folder that holds
//! transcripts unless `--reset` says to replace them.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::run::{ScenarioOutcome, Stop, Summary};
use crate::formats::{atomic_write, atomic_write_unsynced};
use crate::{Error, Result};

/// The folder of transcripts under `--out` (or under a trial's folder).
pub const TRANSCRIPTS_DIR: &str = "transcripts";

/// A scenario's transcript file.
#[derive(Debug, Serialize, Deserialize)]
struct TranscriptFile {
    /// The settings it was made with (the summary's `settings`).
    evaluation: Value,
    /// The scenario file, relative to the folder evaluated.
    file: String,
    scenario_sha256: String,
    outcome: ScenarioOutcome,
}

/// Where a scenario's transcript goes: its path relative to the folder
/// evaluated, under `transcripts/`, with `.json` added.
pub fn transcript_path(out: &Path, rel: &str) -> PathBuf {
    out.join(TRANSCRIPTS_DIR).join(format!("{rel}.json"))
}

/// Keep one scenario's outcome in `out`.
pub fn write_transcript(
    out: &Path,
    rel: &str,
    evaluation: &Value,
    sha256: &str,
    outcome: &ScenarioOutcome,
) -> Result<()> {
    let path = transcript_path(out, rel);
    if let Some(dir) = path.parent() {
        crate::formats::create_folder(dir)?;
    }
    let mut outcome = outcome.clone();
    outcome.resumed = false;
    let file = TranscriptFile {
        evaluation: evaluation.clone(),
        file: rel.to_string(),
        scenario_sha256: sha256.to_string(),
        outcome,
    };
    let text = serde_json::to_string_pretty(&file).expect("JSON serializes") + "\n";
    atomic_write_unsynced(&path, text.as_bytes())
}

/// The outcome `out` holds for a scenario, when an earlier run with the
/// same settings made it from the same scenario text and it ran to an end
/// (a conversation stopped by an error is run again).
pub fn resume(
    scenario: &Path,
    out: &Path,
    rel: &str,
    evaluation: &Value,
    sha256: &str,
) -> Option<ScenarioOutcome> {
    let path = transcript_path(out, rel);
    let text = std::fs::read_to_string(&path).ok()?;
    let stored: TranscriptFile = match serde_json::from_str(&text) {
        Ok(stored) => stored,
        Err(e) => {
            eprintln!(
                "warning: {}: {e}; running {} again",
                path.display(),
                scenario.display()
            );
            return None;
        }
    };
    if stored.evaluation != *evaluation || stored.scenario_sha256 != sha256 {
        eprintln!(
            "note: {} was made with other settings or from another version of the scenario; running {} again",
            path.display(),
            scenario.display()
        );
        return None;
    }
    if stored.outcome.stopped == Stop::Error {
        return None;
    }
    let mut outcome = stored.outcome;
    outcome.resumed = true;
    // The file as given this time.
    outcome.file = scenario.display().to_string();
    Some(outcome)
}

/// Whether `out` holds any transcript (a run with a person refuses to
/// replace them without `--reset`).
pub fn holds_transcripts(out: &Path) -> bool {
    fn any_file(dir: &Path) -> bool {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.filter_map(|e| e.ok()).any(|e| {
                let path = e.path();
                path.is_file() || (path.is_dir() && any_file(&path))
            })
        })
    }
    any_file(&out.join(TRANSCRIPTS_DIR))
}

/// `summary.json` and `report.md` in `dir`.
pub fn write_summary(dir: &Path, summary: &Summary) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::input(dir, format!("cannot create the folder: {e}")))?;
    let text = serde_json::to_string_pretty(summary).expect("JSON serializes") + "\n";
    atomic_write(&dir.join("summary.json"), text.as_bytes())?;
    let report = crate::eval::scenario_runs::report_of_summary(summary, dir)?;
    atomic_write(&dir.join("report.md"), report.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn outcome(stopped: Stop) -> ScenarioOutcome {
        ScenarioOutcome {
            file: "old/a.txt".into(),
            scenario: "a".into(),
            scene: "A".into(),
            completed: stopped == Stop::Completed,
            turns: (stopped == Stop::Completed).then_some(2),
            turns_taken: 2,
            stopped,
            ground_truth: 1,
            ground_truth_made: 1,
            made: Vec::new(),
            calls: 1,
            missing: Vec::new(),
            ground_truth_raising: Vec::new(),
            error: None,
            state_check: None,
            assistant_models: vec!["m-1".into()],
            user_models: Vec::new(),
            user_asked: false,
            resumed: false,
            transcript: Vec::new(),
        }
    }

    #[test]
    fn a_transcript_is_reused_only_with_the_same_settings_text_and_an_end() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        let settings = json!({"max_turns": 20});
        let scenario = Path::new("new/a.txt");
        assert!(!holds_transcripts(out));
        write_transcript(out, "a.txt", &settings, "abc", &outcome(Stop::Completed)).unwrap();
        assert!(holds_transcripts(out));
        let reused = resume(scenario, out, "a.txt", &settings, "abc").unwrap();
        assert!(reused.resumed);
        assert_eq!(reused.file, "new/a.txt");
        assert_eq!(reused.assistant_models, ["m-1"]);
        assert!(resume(scenario, out, "a.txt", &json!({"max_turns": 5}), "abc").is_none());
        assert!(resume(scenario, out, "a.txt", &settings, "abd").is_none());
        assert!(resume(scenario, out, "b.txt", &settings, "abc").is_none());
        write_transcript(out, "a.txt", &settings, "abc", &outcome(Stop::Error)).unwrap();
        assert!(resume(scenario, out, "a.txt", &settings, "abc").is_none());
        // A broken file is run again, not an error.
        std::fs::write(transcript_path(out, "a.txt"), "{").unwrap();
        assert!(resume(scenario, out, "a.txt", &settings, "abc").is_none());
    }
}

/// `report.md` of a level-3 run (written by the report layer).
#[cfg(test)]
mod report_tests {
    use crate::eval::passk::CompletionTrials;
    use crate::suite::state::{StateCheck, StateWrite, WriteKind};
    use crate::suites::apibank::level3::run::{summarise, CallAt};
    use crate::suites::apibank::level3::run::{ScenarioOutcome, Stop};

    fn outcome(name: &str, turns: Option<usize>, stopped: Stop) -> ScenarioOutcome {
        ScenarioOutcome {
            file: format!("lv3/{name}.txt"),
            scenario: name.into(),
            scene: name.into(),
            completed: turns.is_some(),
            turns,
            turns_taken: turns.unwrap_or(5),
            stopped,
            ground_truth: 2,
            ground_truth_made: if turns.is_some() { 2 } else { 1 },
            made: Vec::new(),
            calls: 3,
            missing: if turns.is_some() {
                Vec::new()
            } else {
                vec![CallAt {
                    line: 23,
                    api_name: "QueryBalance".into(),
                    exception: None,
                }]
            },
            ground_truth_raising: vec![CallAt {
                line: 23,
                api_name: "QueryBalance".into(),
                exception: Some("The token is incorrect.".into()),
            }],
            error: None,
            state_check: Some(if turns.is_some() {
                StateCheck::default()
            } else {
                StateCheck::new(vec![
                    StateWrite {
                        turn: 5,
                        kind: WriteKind::Collateral,
                        database: "Agenda".into(),
                        record: "4".into(),
                        item: None,
                    },
                    StateWrite {
                        turn: 5,
                        kind: WriteKind::Different,
                        database: "Reminder".into(),
                        record: "0".into(),
                        item: Some("time".into()),
                    },
                ])
            }),
            assistant_models: Vec::new(),
            user_models: Vec::new(),
            user_asked: false,
            resumed: false,
            transcript: Vec::new(),
        }
    }

    #[test]
    fn the_report_gives_table_4_pass_hat_and_why_scenarios_stopped() {
        let mut summary = summarise(
            vec![
                outcome("Alarm", Some(3), Stop::Completed),
                outcome("Shopping", None, Stop::MaxTurns),
                outcome("Reminder", None, Stop::UserLeft),
            ],
            5,
            "llm:m".into(),
            "llm:u".into(),
        );
        summary.trials = Some(CompletionTrials::new(&[
            vec![
                ("a".into(), "Alarm".into(), Some(3)),
                ("s".into(), "Shopping".into(), None),
                ("r".into(), "Reminder".into(), None),
            ],
            vec![
                ("a".into(), "Alarm".into(), Some(4)),
                ("s".into(), "Shopping".into(), Some(5)),
                ("r".into(), "Reminder".into(), None),
            ],
        ]));
        let report =
            crate::eval::scenario_runs::report_of_summary(&summary, std::path::Path::new("out"))
                .unwrap();
        assert!(report.contains("| 1 | 3 | 1 | 33.3 | 3.00 |"), "{report}");
        assert!(
            report.contains(
                "QueryBalance (line 23, which raises as written: The token is incorrect.)"
            ),
            "{report}"
        );
        insta::assert_snapshot!("level3_report", report);
    }
}
