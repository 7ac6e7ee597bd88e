//! The summary of a level's run (`--format json`, `summary.json`) and
//! `report.md`, with the paper's tables: API-call accuracy and ROUGE-L,
//! the error rate per API, and the causes of the wrong calls.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::run::SampleRecord;
use super::score::Cause;
use crate::report::Cell;
use crate::run::provenance::FileHash;
use crate::run::summary::{Figures, RunSummary};

/// One API's samples.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ApiTally {
    pub samples: usize,
    pub correct: usize,
    /// Wrong samples / samples.
    pub error_rate: f64,
}

/// A level's run: its figures in the one envelope.
pub type Summary = RunSummary<LevelFigures>;

/// A level's results over every dialogue evaluated (the first keys are
/// the command-line contract).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelFigures {
    pub suite: String,
    pub level: u8,
    /// Call samples.
    pub samples: usize,
    /// Which scoring `correct`, `accuracy` and the tables follow
    /// (`reference` or `lenient`).
    pub scoring: String,
    pub correct: usize,
    /// correct / samples (null without samples: no figure, not 0).
    pub accuracy: Option<f64>,
    /// Correct samples and accuracy under the reference scoring.
    pub correct_reference: usize,
    pub accuracy_reference: Option<f64>,
    /// Correct samples and accuracy under the lenient scoring.
    pub correct_lenient: usize,
    pub accuracy_lenient: Option<f64>,
    /// The mean ROUGE-L of the replies scored; null without any.
    pub rouge_l: Option<f64>,
    /// Reply samples scored with ROUGE-L.
    pub replies: usize,
    pub predictor: String,
    /// Dialogues given (those that could not be evaluated too).
    pub dialogues: usize,
    /// Per gold API, in name order.
    pub by_api: BTreeMap<String, ApiTally>,
    /// Wrong samples per cause, every cause listed, in the report's order.
    pub causes: IndexMap<String, usize>,
    /// Each dialogue given (those that could not be evaluated too) and the
    /// SHA-256 of its file (the dataset digest in `provenance` is over
    /// these).
    pub dialogue_hashes: Vec<FileHash>,
    pub per_sample: Vec<SampleRecord>,
}

impl Figures for LevelFigures {
    fn files_evaluated(&self, failed: usize) -> usize {
        self.dialogues - failed
    }
}

fn ratio(num: usize, den: usize) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// A cause's key, as a sample's `cause` names it ("no_api_call").
pub fn cause_key(cause: Cause) -> String {
    let key = serde_json::to_value(cause).unwrap_or_default();
    key.as_str().unwrap_or_default().to_string()
}

impl LevelFigures {
    /// The figures of `per_sample`, over `dialogues` dialogues given, with
    /// the run's `settings`.
    pub fn new(
        level: u8,
        dialogues: usize,
        settings: &Value,
        per_sample: Vec<SampleRecord>,
    ) -> Self {
        let samples = per_sample.len();
        let count =
            |verdict: fn(&SampleRecord) -> bool| per_sample.iter().filter(|s| verdict(s)).count();
        let correct = count(|s| s.correct);
        let correct_reference = count(|s| s.correct_reference);
        let correct_lenient = count(|s| s.correct_lenient);
        let scores: Vec<f64> = per_sample.iter().filter_map(|s| s.rouge_l).collect();
        let mut by_api: BTreeMap<String, ApiTally> = BTreeMap::new();
        let mut causes: IndexMap<String, usize> =
            Cause::ALL.iter().map(|c| (cause_key(*c), 0)).collect();
        for s in &per_sample {
            let tally = by_api.entry(s.api_name.clone()).or_default();
            tally.samples += 1;
            tally.correct += usize::from(s.correct);
            if let Some(cause) = s.cause {
                *causes.entry(cause_key(cause)).or_default() += 1;
            }
        }
        for tally in by_api.values_mut() {
            let wrong = tally.samples - tally.correct;
            tally.error_rate = ratio(wrong, tally.samples).unwrap_or_default();
        }
        LevelFigures {
            suite: "apibank".into(),
            level,
            samples,
            scoring: settings["scoring"].as_str().unwrap_or("reference").into(),
            correct,
            accuracy: ratio(correct, samples),
            correct_reference,
            accuracy_reference: ratio(correct_reference, samples),
            correct_lenient,
            accuracy_lenient: ratio(correct_lenient, samples),
            rouge_l: (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64),
            replies: scores.len(),
            predictor: settings["predictor"].as_str().unwrap_or_default().into(),
            dialogues,
            by_api,
            causes,
            dialogue_hashes: Vec::new(),
            per_sample,
        }
    }
}

impl Summary {
    /// What the command prints: the scores under both scorings, then every
    /// wrong sample and why (the first hundred; `report.md` and the JSON
    /// list them all).
    pub fn human(&self) -> String {
        const SHOWN: usize = 100;
        let count = crate::words::count;
        let (other, correct, accuracy) = match self.scoring.as_str() {
            "lenient" => ("reference", self.correct_reference, self.accuracy_reference),
            _ => ("lenient", self.correct_lenient, self.accuracy_lenient),
        };
        let mut out = format!(
            "API-Bank level {}, {}, predictor {}\nAPI-call accuracy {}% ({}/{}; {} scoring; {other} {}% ({correct}/{})), ROUGE-L {} over {}\n",
            self.level,
            count(self.dialogues, "dialogue"),
            self.predictor,
            Cell::Percent(self.accuracy).display(),
            self.correct,
            self.samples,
            self.scoring,
            Cell::Percent(accuracy).display(),
            self.samples,
            self.rouge_l.map_or("-".to_string(), |r| format!("{r:.4}")),
            count(self.replies, "reply"),
        );
        let wrong: Vec<&SampleRecord> = self.per_sample.iter().filter(|s| !s.correct).collect();
        if !wrong.is_empty() {
            out += &format!("{} wrong:\n", count(wrong.len(), "sample"));
        }
        for s in wrong.iter().take(SHOWN) {
            let place = super::samples::sample_place(s.turn, s.occurrence);
            let why = s.reason.as_deref().unwrap_or("wrong");
            let known = if s.known.is_some() { " (known)" } else { "" };
            out += &format!("  {} {place} {}: {why}{known}\n", s.file, s.api_name);
        }
        if wrong.len() > SHOWN {
            let more = wrong.len() - SHOWN;
            out += &format!("  ... and {more} more (report.md and --format json list them all)\n");
        }
        out + &self.human_footer("dialogue", "")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_without_samples_has_no_accuracy_rather_than_zero() {
        let settings = serde_json::json!({"scoring": "lenient", "predictor": "oracle"});
        let figures = LevelFigures::new(1, 0, &settings, Vec::new());
        assert_eq!(figures.samples, 0);
        assert_eq!(figures.accuracy, None);
        assert_eq!(figures.accuracy_lenient, None);
        let json = serde_json::to_value(&figures).unwrap();
        assert!(json["accuracy"].is_null() && json["accuracy_reference"].is_null());
    }
}
