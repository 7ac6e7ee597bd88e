//! What a level-3 run keeps in `--out`: one transcript file a scenario
//! under `transcripts/` (its outcome, the settings it was made with and
//! the scenario text's hash), `summary.json` and `report.md`. A later run
//! into the same folder reuses a scenario's transcript when its settings
//! and the scenario's text are the same; a person's conversations are
//! never reused, and a run with a person refuses a folder that holds
//! transcripts unless `--reset` says to replace them.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::outcome::{ScenarioOutcome, Stop};
use super::summary::Summary;
use crate::Result;

/// The folder of transcripts under `--out` (or under a trial's folder).
pub const TRANSCRIPTS_DIR: &str = "transcripts";

/// A scenario's transcript file.
#[derive(Debug, Serialize, Deserialize)]
struct TranscriptFile {
    /// The settings it was made with (the summary's `settings`) and the
    /// scenario text's hash.
    evaluation: Value,
    /// The scenario file, relative to the folder evaluated.
    file: String,
    outcome: ScenarioOutcome,
}

/// Write one scenario's transcript file.
pub fn write_transcript(
    out: &mut dyn std::io::Write,
    rel: &str,
    evaluation: &Value,
    outcome: &ScenarioOutcome,
) -> std::io::Result<()> {
    let mut outcome = outcome.clone();
    outcome.resumed = false;
    let file = TranscriptFile {
        evaluation: evaluation.clone(),
        file: rel.to_string(),
        outcome,
    };
    serde_json::to_writer_pretty(&mut *out, &file)?;
    out.write_all(b"\n")
}

/// The outcome a transcript file holds, when it ran to an end (a
/// conversation stopped by an error is run again).
pub fn resume(scenario: &Path, stored: Value) -> Option<ScenarioOutcome> {
    let stored: TranscriptFile = match serde_json::from_value(stored) {
        Ok(stored) => stored,
        Err(e) => {
            eprintln!(
                "warning: a transcript of {}: {e}; running it again",
                scenario.display()
            );
            return None;
        }
    };
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

/// `summary.json` and `report.md` in `dir`, of `family` (the suite in words).
pub fn write_summary(dir: &Path, summary: &Summary, family: &str) -> Result<()> {
    let title = super::runs::title(summary, family);
    crate::report::runs::write_run(dir, summary, title)
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
    fn a_transcript_is_reused_only_when_it_ran_to_an_end() {
        let settings = json!({"max_turns": 20, "scenario_sha256": "abc"});
        let scenario = Path::new("new/a.txt");
        let stored = |stopped| {
            let mut text = Vec::new();
            write_transcript(&mut text, "a.txt", &settings, &outcome(stopped)).unwrap();
            serde_json::from_slice::<Value>(&text).unwrap()
        };
        let written = stored(Stop::Completed);
        assert_eq!(written["evaluation"], settings);
        let reused = resume(scenario, written).unwrap();
        assert!(reused.resumed);
        assert_eq!(reused.file, "new/a.txt");
        assert_eq!(reused.assistant_models, ["m-1"]);
        assert!(resume(scenario, stored(Stop::Error)).is_none());
        // A broken file is run again, not an error.
        assert!(resume(scenario, json!({"outcome": 1})).is_none());
    }
}

/// `report.md` of a level-3 run (written by the report layer).
#[cfg(test)]
mod report_tests {
    use crate::run::trials::{Trials, UnitOutcome};
    use crate::run::with_user::outcome::CallAt;
    use crate::run::with_user::outcome::{ScenarioOutcome, Stop};
    use crate::run::with_user::summary::summarise;
    use crate::suite::state::{StateCheck, StateWrite, WriteKind};

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
            "apibank",
            3,
            vec![
                outcome("Alarm", Some(3), Stop::Completed),
                outcome("Shopping", None, Stop::MaxTurns),
                outcome("Reminder", None, Stop::UserLeft),
            ],
            5,
            serde_json::Value::Null,
            Default::default(),
        );
        summary.figures.assistant = "llm:m".into();
        summary.figures.user = "llm:u".into();
        let unit = |file: &str, name: &str, completed| {
            UnitOutcome::file(file, Some(name.into()), completed)
        };
        summary.trials = Some(Trials::new(
            &[
                vec![
                    unit("a", "Alarm", true),
                    unit("s", "Shopping", false),
                    unit("r", "Reminder", false),
                ],
                vec![
                    unit("a", "Alarm", true),
                    unit("s", "Shopping", true),
                    unit("r", "Reminder", false),
                ],
            ],
            Some("scenario"),
        ));
        let title = crate::run::with_user::runs::title(&summary, "API-Bank");
        let report = crate::report::runs::report_md(&summary, "out".as_ref(), title).unwrap();
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
