//! Several evaluation folders side by side (`talkforge report`): each
//! run's `summary.json` read back, checked to be over the same dataset,
//! and put in one Table 1 (models, documentation ablations, API modes),
//! with Table 2's shares per run and the conversations whose outcome
//! differs between runs.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::failure::FailureReason;
use super::level_runs::LevelRunDir;
use super::markdown as md;
use super::outcome::{ErrorTypes, ToolTally};
use super::output::RunInfo;
use super::passk::Trials;
use super::provenance::Provenance;
use super::scenario_runs::ScenarioRunDir;
use super::summary::{Rates, StateTotals, SubsetSummary};
use crate::suite::state::StateCheck;
use crate::{Error, Result};

/// What `report` reads of a `summary.json` (the keys evaluate writes).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RunSummary {
    #[serde(flatten)]
    pub rates: Rates,
    pub predictions: usize,
    pub ground_truths: usize,
    pub matches: usize,
    pub actions: usize,
    pub bad_actions: usize,
    pub successes: usize,
    pub predictor: String,
    pub settings: RunInfo,
    #[serde(default)]
    pub provenance: Option<Provenance>,
    pub error_types: ErrorTypes,
    #[serde(default)]
    pub state_check: Option<StateTotals>,
    #[serde(default)]
    pub trials: Option<Trials>,
    pub by_subset: IndexMap<String, SubsetSummary>,
    pub tools: BTreeMap<String, ToolTally>,
    pub per_conversation: Vec<ConversationLine>,
}

/// What `report` reads of a `per_conversation` entry.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ConversationLine {
    pub file: String,
    pub subset: String,
    pub name: String,
    #[serde(default)]
    pub conversation_id: String,
    pub success: bool,
    pub recall: f64,
    #[serde(default)]
    pub why_failed: Vec<FailureReason>,
    #[serde(default)]
    pub state_check: Option<StateCheck>,
}

/// One evaluation folder.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Run {
    /// The folder as given.
    pub dir: PathBuf,
    /// What sets it apart, in words: the predictor and its settings.
    pub label: String,
    pub summary: RunSummary,
}

impl Run {
    /// Parse `text`, the `summary.json` at `path` in `dir`.
    pub fn parse(dir: &Path, path: &Path, text: &str) -> Result<Run> {
        let summary: RunSummary =
            serde_json::from_str(text).map_err(|e| crate::formats::read::json_error(path, &e))?;
        Ok(Run {
            dir: dir.to_path_buf(),
            label: label(&summary),
            summary,
        })
    }
}

/// The predictor and the settings that tell runs apart.
fn label(s: &RunSummary) -> String {
    let p = &s.settings.settings;
    let mut parts = vec![s.predictor.clone()];
    if let Some(mode) = &p.api_mode {
        parts.push(format!("api {mode}"));
    }
    if p.no_docs == Some(true) {
        parts.push("no docs".into());
    }
    if let Some(t) = p.temperature {
        parts.push(format!("T={t}"));
    }
    if let Some(t) = &s.trials {
        parts.push(format!("{} trials", t.trials));
    }
    if s.settings.similarity != "lexical" {
        parts.push(s.settings.similarity.clone());
    }
    parts.join(", ")
}

/// The runs `report` compares, all of one kind.
pub enum Compared {
    /// Runs of whole conversations (ToolTalk's protocol).
    Conversations(Vec<Run>),
    /// Runs scored by samples, all at one level.
    Levels(Vec<LevelRunDir>),
    /// Runs of conversations with a user over scenarios (API-Bank's
    /// level 3).
    Scenarios(Vec<ScenarioRunDir>),
}

/// What a `summary.json` is the summary of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Conversations,
    Levels(u8),
    /// Conversations with a user over scenarios, at a level.
    Scenarios(u8),
}

impl Kind {
    fn words(self) -> String {
        match self {
            Kind::Conversations => "a run of whole conversations".to_string(),
            Kind::Levels(level) => format!("a run scored by samples at level {level}"),
            Kind::Scenarios(level) => {
                format!("a run of conversations with a user at level {level}")
            }
        }
    }

    /// Runs of one family share a table (levels are checked apart).
    fn family(self) -> u8 {
        match self {
            Kind::Conversations => 0,
            Kind::Levels(_) => 1,
            Kind::Scenarios(_) => 2,
        }
    }
}

/// Tell a summary's kind by its keys.
fn kind_of(path: &Path, text: &str) -> Result<Kind> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| crate::formats::read::json_error(path, &e))?;
    if value.get("per_conversation").is_some() {
        return Ok(Kind::Conversations);
    }
    let level = value
        .get("level")
        .and_then(|l| l.as_u64())
        .map(|l| u8::try_from(l).unwrap_or(u8::MAX));
    if let Some(level) = level {
        if value.get("per_sample").is_some() {
            return Ok(Kind::Levels(level));
        }
        if value.get("per_scenario").is_some() {
            return Ok(Kind::Scenarios(level));
        }
    }
    Err(Error::input(
        path,
        "neither a run of whole conversations (`per_conversation`), a run scored by samples at a level (`level` and `per_sample`) nor a run of conversations with a user (`level` and `per_scenario`): report compares the summaries `talkforge evaluate --out DIR` writes for those",
    ))
}

/// Read every folder's `summary.json`; refuse runs of different kinds, runs
/// at different levels, and runs over different datasets (or whose dataset
/// is unknown) unless `allow_different` says so.
pub fn load(dirs: &[PathBuf], allow_different: bool) -> Result<Compared> {
    let mut conversations = Vec::new();
    let mut levels = Vec::new();
    let mut scenarios = Vec::new();
    let mut first: Option<(&Path, Kind)> = None;
    for dir in dirs {
        let path = dir.join("summary.json");
        if !path.is_file() {
            return Err(Error::input(
                dir,
                "no summary.json here (an evaluation folder is what `talkforge evaluate --out DIR` writes)",
            ));
        }
        let text = crate::formats::read::read_text(&path)?;
        let kind = kind_of(&path, &text)?;
        match first {
            None => first = Some((dir, kind)),
            Some((first_dir, first_kind))
                if first_kind.family() != kind.family()
                    || (matches!(kind, Kind::Scenarios(_)) && first_kind != kind) =>
            {
                return Err(Error::Usage(format!(
                    "{} is {} and {} {}: they are scored differently and cannot share a table; report them apart",
                    first_dir.display(),
                    first_kind.words(),
                    dir.display(),
                    kind.words()
                )));
            }
            Some(_) => {}
        }
        match kind {
            Kind::Conversations => conversations.push(Run::parse(dir, &path, &text)?),
            Kind::Levels(_) => levels.push(LevelRunDir::parse(dir, &path, &text)?),
            Kind::Scenarios(_) => scenarios.push(ScenarioRunDir::parse(dir, &path, &text)?),
        }
    }
    if !scenarios.is_empty() {
        let datasets: Vec<(&Path, Option<&str>)> = scenarios
            .iter()
            .map(|r| (r.dir.as_path(), r.dataset()))
            .collect();
        check_datasets(&datasets, allow_different)?;
        return Ok(Compared::Scenarios(scenarios));
    }
    if !levels.is_empty() {
        super::level_runs::check_levels(&levels)?;
        let datasets: Vec<(&Path, Option<&str>)> = levels
            .iter()
            .map(|r| (r.dir.as_path(), r.dataset()))
            .collect();
        check_datasets(&datasets, allow_different)?;
        return Ok(Compared::Levels(levels));
    }
    let datasets: Vec<(&Path, Option<&str>)> = conversations
        .iter()
        .map(|r| (r.dir.as_path(), r.dataset()))
        .collect();
    check_datasets(&datasets, allow_different)?;
    Ok(Compared::Conversations(conversations))
}

/// Refuse runs (folder, dataset digest) over different datasets, or whose
/// dataset is unknown, unless `allow_different`.
fn check_datasets(runs: &[(&Path, Option<&str>)], allow_different: bool) -> Result<()> {
    if allow_different || runs.is_empty() {
        return Ok(());
    }
    if let Some((dir, _)) = runs.iter().find(|(_, d)| d.is_none()) {
        return Err(Error::input(
            dir.join("summary.json"),
            "no provenance: the dataset it ran on is unknown (rerun it with this talkforge, or pass --allow-different-datasets)",
        ));
    }
    let (first_dir, first) = runs[0];
    if let Some((other_dir, other)) = runs.iter().find(|(_, d)| *d != first) {
        return Err(Error::Usage(format!(
            "{} and {} evaluated different datasets (dataset SHA-256 {} and {}); pass --allow-different-datasets to compare them anyway",
            first_dir.display(),
            other_dir.display(),
            first.unwrap_or_default(),
            other.unwrap_or_default()
        )));
    }
    Ok(())
}

/// What every kind of evaluation folder tells a report about itself.
pub trait RunDir {
    /// The folder as given.
    fn dir(&self) -> &Path;
    /// What sets it apart, in words.
    fn label(&self) -> &str;
    fn provenance(&self) -> Option<&super::provenance::Provenance>;
    /// The models, in words, for the list of runs (None: the provenance's
    /// model asked for, reported as the server said).
    fn models(&self) -> Option<String> {
        None
    }

    /// The dataset digest its provenance records.
    fn dataset(&self) -> Option<&str> {
        self.provenance().map(|p| p.dataset.sha256.as_str())
    }
}

impl RunDir for Run {
    fn dir(&self) -> &Path {
        &self.dir
    }
    fn label(&self) -> &str {
        &self.label
    }
    fn provenance(&self) -> Option<&super::provenance::Provenance> {
        self.summary.provenance.as_ref()
    }
}

/// A Markdown report up to its first section: the heading, a warning when
/// the runs did not all evaluate the same dataset, and the list of runs.
pub fn markdown_start(heading: &str, runs: &[impl RunDir]) -> String {
    let mut out = format!("# {heading}\n\n");
    if !same_dataset(runs) {
        out.push_str("**These runs did not all evaluate the same dataset** (compared on request): their figures are not directly comparable.\n\n");
    }
    for (i, run) in runs.iter().enumerate() {
        let models = run
            .models()
            .map(|m| format!(" (models: {})", md::text(&m)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{}. {}: {}{models}",
            i + 1,
            md::code(&run.dir().display().to_string()),
            md::text(run.label())
        );
    }
    out
}

/// Whether every run evaluated the same dataset (as far as provenance says).
pub fn same_dataset(runs: &[impl RunDir]) -> bool {
    runs.iter()
        .all(|r| r.dataset().is_some() && r.dataset() == runs[0].dataset())
}

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

/// The comparison as JSON.
pub fn json(runs: &[Run]) -> serde_json::Value {
    let list: Vec<serde_json::Value> = runs
        .iter()
        .map(|r| {
            let s = &r.summary;
            serde_json::json!({
                "dir": r.dir.display().to_string(),
                "label": r.label,
                "predictor": s.predictor,
                "settings": s.settings,
                "dataset_sha256": r.dataset(),
                "rates": s.rates,
                "by_subset": s.by_subset,
                "error_types": s.error_types,
                "state_check": s.state_check,
                "pass_hat": s.trials.as_ref().map(|t| &t.all.pass_hat),
                "failed": s.per_conversation.iter().filter(|c| !c.success).map(|c| &c.file).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({
        "kind": "conversations",
        "runs": list,
        "same_dataset": same_dataset(runs),
        "outcome_differs": outcome_differs(runs)
            .into_iter()
            .map(|(file, outcomes)| serde_json::json!({"file": file, "success": outcomes}))
            .collect::<Vec<_>>(),
    })
}

/// The conversations (by file name) that succeeded in some runs and
/// failed in others, with each run's outcome (null where a run lacks it).
pub fn outcome_differs(runs: &[Run]) -> Vec<(String, Vec<Option<bool>>)> {
    let key = |file: &str| {
        Path::new(file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut order: Vec<String> = Vec::new();
    let mut outcomes: BTreeMap<String, Vec<Option<bool>>> = BTreeMap::new();
    for (i, run) in runs.iter().enumerate() {
        for c in &run.summary.per_conversation {
            let k = key(&c.file);
            let row = outcomes.entry(k.clone()).or_insert_with(|| {
                order.push(k.clone());
                vec![None; runs.len()]
            });
            row[i] = Some(c.success);
        }
    }
    order
        .into_iter()
        .filter_map(|k| {
            let row = outcomes.remove(&k)?;
            let known: Vec<bool> = row.iter().flatten().copied().collect();
            (known.iter().any(|s| *s) && known.iter().any(|s| !*s)).then_some((k, row))
        })
        .collect()
}

/// The comparison as Markdown.
pub fn markdown(runs: &[Run]) -> String {
    let mut out = markdown_start("Evaluation runs compared", runs);
    let _ = writeln!(out, "\n## Results by run and subset (Table 1)\n");
    out.push_str("Rates in percent, pooled as `talkforge evaluate` pools them.\n\n");
    let _ = writeln!(
        out,
        "| Run | Subset {}\n|---{}",
        super::report::TABLE1_HEADER,
        super::report::TABLE1_RULE
    );
    for (i, run) in runs.iter().enumerate() {
        let s = &run.summary;
        let mut rows: Vec<(String, &Rates)> = s
            .by_subset
            .iter()
            .map(|(n, b)| (md::text(n), &b.rates))
            .collect();
        if s.by_subset.len() != 1 {
            rows.push(("**all**".into(), &s.rates));
        }
        for (subset, r) in rows {
            let _ = writeln!(
                out,
                "| {} | {subset} | {} | {} | {} | {} | {} | {} | {} |",
                i + 1,
                r.conversations,
                pct(r.success_rate),
                pct(r.soft_success_rate),
                pct(r.precision),
                pct(r.recall),
                pct(r.action_precision),
                pct(r.incorrect_action_rate)
            );
        }
    }
    let _ = writeln!(
        out,
        "\n## Why conversations failed, by run (Table 2, shares in percent)\n"
    );
    out.push_str("| Run | Failed | Premature tool call | Faulty planning | Incorrect invocation |\n|---|---:|---:|---:|---:|\n");
    for (i, run) in runs.iter().enumerate() {
        let s = &run.summary;
        let e = &s.error_types;
        let total = e.premature_tool_call + e.faulty_planning + e.incorrect_invocation;
        let share = |n: usize| {
            if total == 0 {
                "-".to_string()
            } else {
                pct(n as f64 / total as f64)
            }
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            i + 1,
            s.rates.conversations - s.successes,
            share(e.premature_tool_call),
            share(e.faulty_planning),
            share(e.incorrect_invocation)
        );
    }
    if runs.iter().any(|r| r.summary.trials.is_some()) {
        let _ = writeln!(out, "\n## Reliability (pass^k, percent)\n");
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
    if runs.iter().any(|r| r.summary.state_check.is_some()) {
        let _ = writeln!(out, "\n## State check\n");
        out.push_str("| Run | Checked | Clean | With collateral damage | Collateral | Missing | Different |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (i, run) in runs.iter().enumerate() {
            if let Some(t) = &run.summary.state_check {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} |",
                    i + 1,
                    t.conversations_checked,
                    t.conversations_clean,
                    t.conversations_with_collateral,
                    t.collateral,
                    t.missing,
                    t.different
                );
            }
        }
    }
    let differs = outcome_differs(runs);
    let _ = writeln!(
        out,
        "\n## Conversations whose outcome differs between runs\n"
    );
    if differs.is_empty() {
        out.push_str("None: every conversation succeeded or failed in every run alike.\n");
    } else {
        let heads: Vec<String> = (1..=runs.len()).map(|i| format!("Run {i}")).collect();
        let _ = writeln!(
            out,
            "| Conversation | {} |\n|---|{}",
            heads.join(" | "),
            ":---:|".repeat(runs.len())
        );
        for (file, row) in differs {
            let cells: Vec<&str> = row
                .iter()
                .map(|o| match o {
                    Some(true) => "pass",
                    Some(false) => "fail",
                    None => "-",
                })
                .collect();
            let _ = writeln!(out, "| {} | {} |", md::code(&file), cells.join(" | "));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::report::tests::sample_summary;

    /// A run as `report` reads it back from what evaluate writes.
    fn run(dir: &str, model: &str) -> Run {
        let text = serde_json::to_string(&sample_summary(model)).unwrap();
        let summary: RunSummary = serde_json::from_str(&text).unwrap();
        Run {
            dir: PathBuf::from(dir),
            label: label(&summary),
            summary,
        }
    }

    #[test]
    fn a_summary_reads_back_and_two_runs_compare_in_markdown() {
        let runs = [run("runs/x", "gpt-x"), run("runs/y", "gpt-y")];
        assert_eq!(runs[0].label, "openai:gpt-x");
        assert_eq!(runs[0].summary.per_conversation.len(), 2);
        assert_eq!(runs[0].summary.per_conversation[1].why_failed.len(), 2);
        assert!(same_dataset(&runs));
        insta::assert_snapshot!(markdown(&runs));
    }
}
