//! Runs scored by samples at a level (API-Bank's levels 1 and 2) side by
//! side, for `talkforge report`: each run's `summary.json` read back, put
//! in one table of accuracy and ROUGE-L, accuracy per API, the error
//! causes as shares of the wrong samples, pass^k where the runs have it,
//! and the samples whose verdict differs between runs.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::markdown as md;
use super::passk::SampleTrials;
use super::provenance::Provenance;
use crate::{Error, Result};

/// What `report` reads of a level run's `summary.json`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct LevelSummary {
    pub suite: String,
    pub level: u8,
    /// Call samples.
    pub samples: usize,
    pub correct: usize,
    pub accuracy: f64,
    pub rouge_l: Option<f64>,
    #[serde(default)]
    pub replies: usize,
    #[serde(default)]
    pub predictor: String,
    /// The run's settings (`evaluation` in summaries before provenance).
    #[serde(default, alias = "evaluation")]
    pub settings: Value,
    #[serde(default)]
    pub dialogues: usize,
    #[serde(default)]
    pub by_api: BTreeMap<String, ApiLine>,
    /// Wrong samples per cause.
    #[serde(default)]
    pub causes: IndexMap<String, usize>,
    #[serde(default)]
    pub trials: Option<SampleTrials>,
    #[serde(default)]
    pub provenance: Option<Provenance>,
    pub per_sample: Vec<SampleLine>,
}

/// One API's samples.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ApiLine {
    pub samples: usize,
    pub correct: usize,
}

/// What `report` reads of a `per_sample` entry.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct SampleLine {
    pub file: String,
    pub turn: usize,
    #[serde(default)]
    pub occurrence: u8,
    pub api_name: String,
    pub correct: bool,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub cause: Option<String>,
    /// The gold call's recorded result is a known erratum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<crate::errata::Known>,
}

impl SampleLine {
    /// How the reports name the sample.
    pub fn place(&self) -> String {
        let second = if self.occurrence > 0 {
            " (second sample)"
        } else {
            ""
        };
        format!("{} line {}{second}", self.file, self.turn)
    }
}

/// One level run's folder.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelRunDir {
    /// The folder as given.
    pub dir: PathBuf,
    /// What sets it apart, in words.
    pub label: String,
    pub summary: LevelSummary,
}

impl super::runs::RunDir for LevelRunDir {
    fn dir(&self) -> &Path {
        &self.dir
    }
    fn label(&self) -> &str {
        &self.label
    }
    fn provenance(&self) -> Option<&super::provenance::Provenance> {
        self.summary.provenance.as_ref()
    }
    fn models(&self) -> Option<String> {
        self.model()
    }
}

impl LevelRunDir {
    /// Parse `text`, the `summary.json` at `path` in `dir`.
    pub fn parse(dir: &Path, path: &Path, text: &str) -> Result<Self> {
        let summary: LevelSummary =
            serde_json::from_str(text).map_err(|e| crate::formats::read::json_error(path, &e))?;
        Ok(LevelRunDir {
            dir: dir.to_path_buf(),
            label: label(&summary),
            summary,
        })
    }

    /// The models the server reported, or the model asked for.
    pub fn model(&self) -> Option<String> {
        let p = self.summary.provenance.as_ref()?;
        if !p.models_reported.is_empty() {
            return Some(p.models_reported.join(", "));
        }
        p.model_requested.clone()
    }

    /// Where the per-dialogue output files are (a run of trials: the
    /// first trial's).
    pub fn samples_dir(&self) -> PathBuf {
        let base = if self.summary.trials.is_some() {
            self.dir.join("trial-1")
        } else {
            self.dir.clone()
        };
        base.join(crate::suite::levels::SAMPLES_DIR)
    }
}

/// The predictor and the settings that tell level runs apart.
fn label(s: &LevelSummary) -> String {
    let run = &s.settings;
    let p = &run["settings"];
    let mut parts = vec![match p["predictions"].as_str() {
        Some(file) => format!(
            "{}:{}",
            s.predictor,
            Path::new(file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        ),
        None => s.predictor.clone(),
    }];
    if p["api_mode"] == "functions" {
        parts.push("api functions".into());
    }
    if p["no_docs"] == true {
        parts.push("no docs".into());
    }
    if let Some(t) = p["temperature"].as_f64() {
        // The f32 the run recorded, shown as typed.
        parts.push(format!("T={}", t as f32));
    }
    if let Some(templates) = s.provenance.as_ref().map(|p| &p.prompt_templates) {
        for name in templates.keys().filter(|n| !n.starts_with("prompts/")) {
            parts.push(format!("template {name}"));
        }
    }
    if run["state"].as_str().is_some_and(|st| st != "fresh") {
        parts.push(format!(
            "state {}",
            run["state"].as_str().unwrap_or_default()
        ));
    }
    if let Some(retriever) = run["retriever"].as_str().filter(|r| *r != "lexical") {
        parts.push(format!("retriever {retriever}"));
    }
    if let Some(t) = &s.trials {
        parts.push(format!("{} trials", t.trials));
    }
    parts.join(", ")
}

/// Refuse level runs at different levels: their samples and scores are
/// not comparable in one table.
pub fn check_levels(runs: &[LevelRunDir]) -> Result<()> {
    let first = &runs[0];
    if let Some(other) = runs.iter().find(|r| r.summary.level != first.summary.level) {
        return Err(Error::Usage(format!(
            "{} is a run at level {} and {} one at level {}: runs at different levels are scored on different samples and cannot share a table; report each level apart",
            first.dir.display(),
            first.summary.level,
            other.dir.display(),
            other.summary.level
        )));
    }
    Ok(())
}

pub use super::runs::{markdown_start, same_dataset, RunDir};

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

/// A cause's key in words ("no_api_call": "no API call").
pub fn cause_label(key: &str) -> String {
    key.split('_')
        .map(|w| if w == "api" { "API" } else { w })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The causes the runs count, in the order first seen.
pub fn causes(runs: &[LevelRunDir]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for run in runs {
        for key in run.summary.causes.keys() {
            if !keys.contains(key) {
                keys.push(key.clone());
            }
        }
    }
    keys
}

/// `run`'s wrong samples with `cause`, as a share of its wrong samples.
pub fn cause_share(run: &LevelRunDir, cause: &str) -> Option<f64> {
    let wrong = run.summary.samples - run.summary.correct;
    let n = run.summary.causes.get(cause).copied().unwrap_or(0);
    (wrong > 0).then(|| n as f64 / wrong as f64)
}

/// The APIs the runs have samples of, most samples first.
pub fn apis(runs: &[LevelRunDir]) -> Vec<String> {
    let mut counts: IndexMap<&str, usize> = IndexMap::new();
    for run in runs {
        for (name, tally) in &run.summary.by_api {
            let n = counts.entry(name).or_default();
            *n = (*n).max(tally.samples);
        }
    }
    let mut apis: Vec<(&str, usize)> = counts.into_iter().collect();
    apis.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    apis.into_iter().map(|(n, _)| n.to_string()).collect()
}

/// A sample's identity across runs: file, line, occurrence.
type SampleKey = (String, usize, u8);

/// The samples right in some runs and wrong in others: each with its API
/// and each run's line (None where a run lacks it).
pub fn verdict_differs(runs: &[LevelRunDir]) -> Vec<(SampleKey, String, Vec<Option<&SampleLine>>)> {
    let mut order: Vec<(SampleKey, String)> = Vec::new();
    let mut lines: BTreeMap<SampleKey, Vec<Option<&SampleLine>>> = BTreeMap::new();
    for (i, run) in runs.iter().enumerate() {
        for s in &run.summary.per_sample {
            let key = (s.file.clone(), s.turn, s.occurrence);
            let row = lines.entry(key.clone()).or_insert_with(|| {
                order.push((key, s.api_name.clone()));
                vec![None; runs.len()]
            });
            row[i] = Some(s);
        }
    }
    order
        .into_iter()
        .filter_map(|(key, api)| {
            let row = lines.remove(&key)?;
            let known: Vec<bool> = row.iter().flatten().map(|s| s.correct).collect();
            (known.iter().any(|c| *c) && known.iter().any(|c| !*c)).then_some((key, api, row))
        })
        .collect()
}

/// A sample's verdict in a cell: "right", or "wrong (cause)".
pub fn verdict(line: Option<&SampleLine>) -> String {
    match line {
        None => "-".into(),
        Some(s) if s.correct => "right".into(),
        Some(s) => match &s.cause {
            Some(cause) => format!("wrong ({})", cause_label(cause)),
            None => "wrong".into(),
        },
    }
}

/// The comparison as JSON.
pub fn json(runs: &[LevelRunDir]) -> Value {
    let list: Vec<Value> = runs
        .iter()
        .map(|r| {
            let s = &r.summary;
            let shares: IndexMap<&String, Option<f64>> =
                s.causes.keys().map(|c| (c, cause_share(r, c))).collect();
            serde_json::json!({
                "dir": r.dir.display().to_string(),
                "label": r.label,
                "suite": s.suite,
                "level": s.level,
                "predictor": s.predictor,
                "model": r.model(),
                "settings": s.settings,
                "dataset_sha256": r.dataset(),
                "dialogues": s.dialogues,
                "samples": s.samples,
                "correct": s.correct,
                "accuracy": s.accuracy,
                "replies": s.replies,
                "rouge_l": s.rouge_l,
                "by_api": s.by_api,
                "causes": s.causes,
                "cause_shares": shares,
                "pass_hat": s.trials.as_ref().map(|t| &t.all.pass_hat),
                "wrong": s.per_sample.iter().filter(|x| !x.correct).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({
        "kind": "levels",
        "level": runs[0].summary.level,
        "runs": list,
        "same_dataset": same_dataset(runs),
        "verdict_differs": verdict_differs(runs)
            .into_iter()
            .map(|((file, turn, occurrence), api, row)| serde_json::json!({
                "file": file, "turn": turn, "occurrence": occurrence, "api_name": api,
                "correct": row.iter().map(|s| s.map(|s| s.correct)).collect::<Vec<_>>(),
            }))
            .collect::<Vec<_>>(),
    })
}

/// The comparison as Markdown.
pub fn markdown(runs: &[LevelRunDir]) -> String {
    let level = runs[0].summary.level;
    let mut out = markdown_start(&format!("Runs at level {level} compared"), runs);
    let _ = writeln!(out, "\n## Results by run\n");
    out.push_str("API-call accuracy is correct call samples / call samples, in percent; ROUGE-L is the mean over the reply samples.\n\n");
    out.push_str("| Run | Suite | Level | Dialogues | Call samples | Correct | API-call accuracy | Replies | ROUGE-L |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (i, run) in runs.iter().enumerate() {
        let s = &run.summary;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            i + 1,
            md::text(&s.suite),
            s.level,
            s.dialogues,
            s.samples,
            s.correct,
            pct(s.accuracy),
            s.replies,
            s.rouge_l.map_or("-".to_string(), |r| format!("{r:.4}"))
        );
    }
    let causes = causes(runs);
    let _ = writeln!(
        out,
        "\n## Error causes by run (shares of the wrong samples, percent)\n"
    );
    let heads: Vec<String> = causes.iter().map(|c| md::text(&cause_label(c))).collect();
    let _ = writeln!(
        out,
        "| Run | Wrong | {} |\n|---|---:|{}",
        heads.join(" | "),
        "---:|".repeat(causes.len())
    );
    for (i, run) in runs.iter().enumerate() {
        let cells: Vec<String> = causes
            .iter()
            .map(|c| cause_share(run, c).map_or("-".to_string(), pct))
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            i + 1,
            run.summary.samples - run.summary.correct,
            cells.join(" | ")
        );
    }
    let _ = writeln!(
        out,
        "\n## API-call accuracy per API (percent, correct/samples)\n"
    );
    let heads: Vec<String> = (1..=runs.len()).map(|i| format!("Run {i}")).collect();
    let _ = writeln!(
        out,
        "| API | {} |\n|---|{}",
        heads.join(" | "),
        "---:|".repeat(runs.len())
    );
    for api in apis(runs) {
        let cells: Vec<String> = runs
            .iter()
            .map(|r| match r.summary.by_api.get(&api) {
                Some(t) if t.samples > 0 => format!(
                    "{} ({}/{})",
                    pct(t.correct as f64 / t.samples as f64),
                    t.correct,
                    t.samples
                ),
                _ => "-".to_string(),
            })
            .collect();
        let _ = writeln!(out, "| {} | {} |", md::text(&api), cells.join(" | "));
    }
    if runs.iter().any(|r| r.summary.trials.is_some()) {
        let _ = writeln!(
            out,
            "\n## Reliability (pass^k over call samples, percent)\n"
        );
        for (i, run) in runs.iter().enumerate() {
            if let Some(t) = &run.summary.trials {
                let _ = writeln!(
                    out,
                    "- run {}: {}",
                    i + 1,
                    super::passk::pass_hat_words(&t.all.pass_hat)
                );
            }
        }
    }
    let differs = verdict_differs(runs);
    let _ = writeln!(out, "\n## Samples whose verdict differs between runs\n");
    if differs.is_empty() {
        out.push_str("None: every sample was right or wrong in every run alike.\n");
    } else {
        let _ = writeln!(
            out,
            "| File | Line | Sample | API | {} |\n|---|---:|---:|---|{}",
            heads.join(" | "),
            "---|".repeat(runs.len())
        );
        for ((file, turn, occurrence), api, row) in differs {
            let cells: Vec<String> = row.iter().map(|s| verdict(*s)).collect();
            let _ = writeln!(
                out,
                "| {} | {turn} | {} | {} | {} |",
                md::code(&file),
                occurrence + 1,
                md::text(&api),
                cells.join(" | ")
            );
        }
    }
    let _ = writeln!(out, "\n## Wrong samples\n");
    for (i, run) in runs.iter().enumerate() {
        let wrong: Vec<&SampleLine> = run
            .summary
            .per_sample
            .iter()
            .filter(|s| !s.correct)
            .collect();
        let _ = writeln!(
            out,
            "### Run {}: {} of {} wrong\n",
            i + 1,
            wrong.len(),
            run.summary.samples
        );
        if wrong.is_empty() {
            out.push_str("None.\n\n");
            continue;
        }
        for s in wrong {
            let known = s
                .known
                .as_ref()
                .map(|k| format!(" *known*: {}", md::text(&k.reason)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "- {} {}: {} ({}){known}",
                md::code(&s.place()),
                md::text(&s.api_name),
                md::text(s.reason.as_deref().unwrap_or("wrong")),
                md::text(&s.cause.as_deref().map_or("-".to_string(), cause_label))
            );
        }
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(file: &str, turn: usize, api: &str, cause: Option<&str>) -> Value {
        serde_json::json!({"file": file, "turn": turn, "occurrence": 0, "api_name": api,
            "correct": cause.is_none(), "reason": cause.map(|c| format!("because {c}")),
            "rouge_l": null, "cause": cause})
    }

    /// A level-1 summary as evaluate writes it (the keys report reads).
    fn run(dir: &str, predictor: &str, wrong: bool) -> LevelRunDir {
        let causes = if wrong {
            serde_json::json!({"no_api_call": 0, "unknown_api": 0, "wrong_api": 1, "wrong_arguments": 0, "exception": 1, "parse_failure": 0})
        } else {
            serde_json::json!({"no_api_call": 0, "unknown_api": 0, "wrong_api": 0, "wrong_arguments": 0, "exception": 1, "parse_failure": 0})
        };
        let second = if wrong { Some("wrong_api") } else { None };
        let text = serde_json::json!({
            "suite": "apibank", "level": 1, "samples": 3, "correct": if wrong {1} else {2},
            "accuracy": if wrong {1.0/3.0} else {2.0/3.0}, "rouge_l": 0.5, "replies": 2,
            "predictor": predictor,
            "settings": {"level": 1, "state": "fresh", "retriever": "lexical", "settings": {}},
            "dialogues": 2,
            "by_api": {"AddAlarm": {"samples": 2, "correct": if wrong {1} else {2}, "error_rate": 0.0},
                       "Translate": {"samples": 1, "correct": 0, "error_rate": 1.0}},
            "causes": causes,
            "per_sample": [sample("a.jsonl", 1, "AddAlarm", None), sample("a.jsonl", 3, "AddAlarm", second),
                           sample("t.jsonl", 2, "Translate", Some("exception"))],
        })
        .to_string();
        LevelRunDir::parse(Path::new(dir), Path::new("summary.json"), &text).unwrap()
    }

    #[test]
    fn two_level_runs_compare_with_shares_and_differing_samples() {
        let runs = [
            run("runs/oracle", "oracle", false),
            run("runs/replay", "replay", true),
        ];
        let differs = verdict_differs(&runs);
        assert_eq!(differs.len(), 1);
        assert_eq!(differs[0].0, ("a.jsonl".to_string(), 3, 0));
        assert_eq!(verdict(differs[0].2[1]), "wrong (wrong API)");
        assert_eq!(cause_share(&runs[1], "wrong_api"), Some(0.5));
        assert_eq!(cause_label("no_api_call"), "no API call");
        let doc = json(&runs);
        assert_eq!(doc["kind"], "levels");
        assert_eq!(doc["runs"][1]["cause_shares"]["exception"], 0.5);
        assert_eq!(
            doc["verdict_differs"][0]["correct"],
            serde_json::json!([true, false])
        );
        assert_eq!(doc["runs"][1]["wrong"].as_array().unwrap().len(), 2);
        insta::assert_snapshot!(markdown(&runs));
    }

    #[test]
    fn runs_at_different_levels_are_refused() {
        let mut other = run("runs/l2", "oracle", false);
        other.summary.level = 2;
        let err = check_levels(&[run("runs/l1", "oracle", false), other]).unwrap_err();
        assert!(matches!(err, Error::Usage(_)));
        assert!(err.to_string().contains("level 1") && err.to_string().contains("level 2"));
    }
}
