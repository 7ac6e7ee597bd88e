//! Several evaluation folders side by side (`talkforge report`): each
//! run's `summary.json` read back, checked to be over the same dataset,
//! and put in one Table 1 (models, documentation ablations, API modes),
//! with Table 2's shares per run and the conversations whose outcome
//! differs between runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::failure::FailureReason;
use super::level_runs::LevelRunDir;
use super::outcome::{ErrorTypes, ToolTally};
use super::output::RunInfo;
use super::provenance::Provenance;
use super::scenario_runs::ScenarioRunDir;
use super::summary::{Rates, StateTotals, SubsetSummary, FORMAT_VERSION};
use crate::report::sections::{self, NotEvaluated};
use crate::report::{Cell, Chart, Report, RunHeader, Scale, Section, Series, Table};
use crate::run::trials::Trials;
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
    /// The tokens each model used (absent: no model was asked).
    #[serde(default)]
    pub usage: Vec<crate::llm::usage::ModelUsage>,
    pub by_subset: IndexMap<String, SubsetSummary>,
    pub tools: BTreeMap<String, ToolTally>,
    pub per_conversation: Vec<ConversationLine>,
    #[serde(default)]
    pub assistant_turns: usize,
    #[serde(default)]
    pub turns_stopped_by_bound: usize,
    #[serde(default)]
    pub resumed: usize,
    /// Conversations that could not be evaluated.
    #[serde(default)]
    pub failures: Vec<NotEvaluated>,
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
    let version = value.get("format_version").and_then(|v| v.as_u64());
    if let Some(version) = version.filter(|v| *v > u64::from(FORMAT_VERSION)) {
        return Err(Error::input(
            path,
            format!("written by a newer talkforge (summary format {version}; this one reads formats up to {FORMAT_VERSION}): report it with that talkforge or a newer one"),
        ));
    }
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
        let parsed = match kind {
            Kind::Conversations => Run::parse(dir, &path, &text).map(|r| conversations.push(r)),
            Kind::Levels(_) => LevelRunDir::parse(dir, &path, &text).map(|r| levels.push(r)),
            Kind::Scenarios(_) => {
                ScenarioRunDir::parse(dir, &path, &text).map(|r| scenarios.push(r))
            }
        };
        parsed.map_err(|e| older_format(&path, &text, e))?;
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
        // Levels 1 and 2 share a page (the paper's Table 3), each over
        // its own dialogues.
        for level in [1, 2] {
            let datasets: Vec<(&Path, Option<&str>)> = levels
                .iter()
                .filter(|r| r.summary.level == level)
                .map(|r| (r.dir.as_path(), r.dataset()))
                .collect();
            check_datasets(&datasets, allow_different)?;
        }
        return Ok(Compared::Levels(levels));
    }
    let datasets: Vec<(&Path, Option<&str>)> = conversations
        .iter()
        .map(|r| (r.dir.as_path(), r.dataset()))
        .collect();
    check_datasets(&datasets, allow_different)?;
    Ok(Compared::Conversations(conversations))
}

/// A summary that cannot be read: said to come from an older format when
/// it has no `format_version`.
fn older_format(path: &Path, text: &str, error: Error) -> Error {
    let versioned = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .is_some_and(|v| v.get("format_version").is_some());
    if versioned {
        return error;
    }
    Error::input(
        path,
        format!("comes from an older summary format (written before `format_version`) that this talkforge cannot read: evaluate again to write it anew ({error})"),
    )
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
    /// What a unit of evaluation is, in words ("conversation").
    fn unit(&self) -> &'static str;
    /// Units evaluated.
    fn evaluated(&self) -> usize;
    /// Units that could not be evaluated, and why.
    fn not_evaluated(&self) -> &[NotEvaluated];
}

/// The runs as a report introduces them.
pub fn headers(runs: &[impl RunDir]) -> Vec<RunHeader> {
    runs.iter()
        .enumerate()
        .map(|(i, run)| RunHeader {
            number: i + 1,
            label: run.label().to_string(),
            dir: run.dir().display().to_string(),
            models: run.models().or_else(|| {
                let p = run.provenance()?;
                let asked = p.model_requested.as_ref()?;
                Some(if p.models_reported.is_empty() {
                    asked.clone()
                } else {
                    format!("{asked} (answered as {})", p.models_reported.join(", "))
                })
            }),
            dataset: run.dataset().map(str::to_string),
            evaluated: run.evaluated(),
            not_evaluated: run.not_evaluated().len(),
            unit: run.unit().to_string(),
        })
        .collect()
}

/// What a report says before anything else about `runs`.
pub fn warnings(runs: &[impl RunDir], same_dataset: bool) -> Vec<String> {
    let mut warnings = Vec::new();
    if !same_dataset {
        warnings.push("These runs did not all evaluate the same dataset (compared on request): their figures are not directly comparable.".to_string());
    }
    for (i, run) in runs.iter().enumerate() {
        let missing = run.not_evaluated().len();
        if missing > 0 {
            warnings.push(format!(
                "Run {} could not evaluate {} of {}: its figures are over the others (see \"Not evaluated\").",
                i + 1,
                crate::words::count(missing, run.unit()),
                run.evaluated() + missing
            ));
        }
    }
    warnings
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
    fn unit(&self) -> &'static str {
        "conversation"
    }
    fn evaluated(&self) -> usize {
        self.summary.rates.conversations
    }
    fn not_evaluated(&self) -> &[NotEvaluated] {
        &self.summary.failures
    }
}

/// Whether every run evaluated the same dataset (as far as provenance says).
pub fn same_dataset(runs: &[impl RunDir]) -> bool {
    runs.len() <= 1
        || runs
            .iter()
            .all(|r| r.dataset().is_some() && r.dataset() == runs[0].dataset())
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

/// The comparison: Tables 1 and 2, charts, and the shared sections.
pub fn report(runs: &[Run]) -> Report {
    let mut results = Section::new("results", "Results by run and subset (Table 1)")
        .text("Rates in percent, pooled as `talkforge evaluate` pools them.");
    let mut table = Table::new(
        "Run",
        &[
            "Conversations",
            "Success rate",
            "Soft success rate",
            "Precision",
            "Recall",
            "Action precision",
            "Incorrect-action rate",
        ],
    );
    table
        .columns
        .insert(1, crate::report::Column::text("Subset"));
    for (i, run) in runs.iter().enumerate() {
        let s = &run.summary;
        let mut rows: Vec<(&str, &Rates)> = s
            .by_subset
            .iter()
            .map(|(n, b)| (n.as_str(), &b.rates))
            .collect();
        if s.by_subset.len() != 1 {
            rows.push(("all", &s.rates));
        }
        for (subset, r) in rows {
            let rate = |x: f64| Cell::Percent((r.conversations > 0).then_some(x));
            table.row(vec![
                Cell::Text((i + 1).to_string()),
                Cell::Text(subset.to_string()),
                Cell::Count(r.conversations),
                rate(r.success_rate),
                rate(r.soft_success_rate),
                rate(r.precision),
                rate(r.recall),
                rate(r.action_precision),
                rate(r.incorrect_action_rate),
            ]);
        }
    }
    results = results.table(table);
    for chart in charts(runs) {
        results = results.chart(chart);
    }
    let mut errors = Table::new(
        "Run",
        &[
            "Failed conversations",
            "Premature tool call",
            "Faulty planning",
            "Incorrect invocation",
        ],
    );
    for (i, run) in runs.iter().enumerate() {
        let s = &run.summary;
        let e = &s.error_types;
        let total = e.premature_tool_call + e.faulty_planning + e.incorrect_invocation;
        errors.row(vec![
            Cell::Text((i + 1).to_string()),
            Cell::Count(s.rates.conversations - s.successes),
            Cell::Fraction(e.premature_tool_call, total),
            Cell::Fraction(e.faulty_planning, total),
            Cell::Fraction(e.incorrect_invocation, total),
        ]);
    }
    let errors = Section::new("error-types", "Why conversations failed (Table 2)")
        .text("Each error type's share of the errors counted, in percent (count/errors).")
        .table(errors);
    let mut pass_hat = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let Some(trials) = &run.summary.trials else {
            continue;
        };
        let groups = trials.groups.iter().map(|(n, p)| (n.clone(), p));
        let all = (trials.groups.len() != 1).then(|| ("all".to_string(), &trials.all));
        for (group, p) in groups.chain(all) {
            pass_hat.push(sections::PassHatRow {
                run: i + 1,
                group,
                units: p.units,
                pass_hat: &p.pass_hat,
            });
        }
    }
    let state: Vec<Option<&super::summary::StateTotals>> = runs
        .iter()
        .map(|r| r.summary.state_check.as_ref())
        .collect();
    let differs = outcome_differs(runs)
        .into_iter()
        .map(|(file, outcomes)| {
            let outcomes = outcomes
                .into_iter()
                .map(|o| o.map(|ok| if ok { "pass" } else { "fail" }.to_string()))
                .collect();
            (file, outcomes)
        })
        .collect();
    let not_evaluated: Vec<&[NotEvaluated]> =
        runs.iter().map(|r| r.summary.failures.as_slice()).collect();
    let provenance: Vec<_> = runs.iter().map(|r| r.summary.provenance.as_ref()).collect();
    let usage: Vec<_> = runs.iter().map(|r| r.summary.usage.as_slice()).collect();
    Report {
        title: "Evaluation runs compared".to_string(),
        runs: headers(runs),
        warnings: warnings(runs, same_dataset(runs)),
        sections: vec![
            settings(runs),
            results,
            errors,
            tools(runs),
            sections::pass_hat(&pass_hat, "conversation"),
            sections::state_check(&state, state_differs(runs), "conversation", None),
            sections::differs(
                "Conversations whose outcome differs between runs",
                "Conversation",
                runs.len(),
                differs,
                "None: every conversation succeeded or failed in every run alike.",
            ),
            failures(runs),
            sections::not_evaluated(&not_evaluated, "conversation"),
            sections::provenance(&provenance),
        ]
        .into_iter()
        .chain(sections::usage(&usage))
        .collect(),
    }
}

/// What each run was made with.
fn settings(runs: &[Run]) -> Section {
    let mut table = Table {
        columns: [
            "Run",
            "Predictor",
            "Model",
            "API mode",
            "Tool docs",
            "Temperature",
            "Predictions",
            "Similarity",
        ]
        .iter()
        .map(|c| crate::report::Column::text(c))
        .collect(),
        rows: Vec::new(),
    };
    table.columns.extend(
        ["Calls per turn at most", "Turns stopped there", "Resumed"]
            .iter()
            .map(|c| crate::report::Column::number(c)),
    );
    let or_dash = |v: Option<String>| Cell::Text(v.unwrap_or_else(|| "-".into()));
    for (i, run) in runs.iter().enumerate() {
        let s = &run.summary;
        let p = &s.settings.settings;
        table.row(vec![
            Cell::Text((i + 1).to_string()),
            Cell::Code(s.predictor.clone()),
            or_dash(p.model.clone()),
            or_dash(p.api_mode.clone()),
            or_dash(
                p.no_docs
                    .map(|blank| if blank { "blanked" } else { "sent" }.into()),
            ),
            match (&p.model, p.temperature) {
                (_, Some(t)) => Cell::Text(t.to_string()),
                (Some(_), None) => Cell::Text("server default".into()),
                (None, None) => Cell::Text("-".into()),
            },
            or_dash(p.predictions.clone()),
            Cell::Text(s.settings.similarity.clone()),
            Cell::Count(s.settings.max_calls_per_turn),
            Cell::Text(format!(
                "{} of {}",
                s.turns_stopped_by_bound, s.assistant_turns
            )),
            Cell::Count(s.resumed),
        ]);
    }
    Section::new("settings", "Settings")
        .text("A resumed conversation was taken from an earlier run with the same settings and inputs.")
        .table(table)
}

/// Tools listed per run, at most, where they fail most.
const WORST_TOOLS: usize = 15;

/// Each run's tools that fail most: missed gold calls and bad actions.
fn tools(runs: &[Run]) -> Section {
    let mut table = Table::new(
        "Run",
        &[
            "Gold calls",
            "Missed",
            "Predicted",
            "Unmatched predictions",
            "Bad actions",
        ],
    );
    table.columns.insert(1, crate::report::Column::text("Tool"));
    for (i, run) in runs.iter().enumerate() {
        let mut tools: Vec<_> = run
            .summary
            .tools
            .iter()
            .filter(|(_, t)| t.missed + t.bad_actions + t.unmatched_predictions > 0)
            .collect();
        tools.sort_by(|a, b| {
            let key = |t: &ToolTally| t.missed + t.bad_actions;
            key(b.1)
                .cmp(&key(a.1))
                .then(b.1.unmatched_predictions.cmp(&a.1.unmatched_predictions))
                .then(a.0.cmp(b.0))
        });
        for (name, t) in tools.into_iter().take(WORST_TOOLS) {
            table.row(vec![
                Cell::Text((i + 1).to_string()),
                Cell::Text(name.clone()),
                Cell::Count(t.gold_calls),
                Cell::Count(t.missed),
                Cell::Count(t.predicted),
                Cell::Count(t.unmatched_predictions),
                Cell::Count(t.bad_actions),
            ]);
        }
    }
    let section = Section::new("tools", "Tools that fail most");
    if table.rows.is_empty() {
        return section.text("No tool failed.");
    }
    section.table(table)
}

/// `report.md` of a run just made: the report over that one run, read
/// back from its summary as `report` reads it.
pub fn report_of_summary(summary: &super::summary::Summary, dir: &Path) -> Result<String> {
    let value = serde_json::to_value(summary).map_err(|e| Error::Other(e.to_string()))?;
    let summary: RunSummary =
        serde_json::from_value(value).map_err(|e| Error::Other(e.to_string()))?;
    let run = Run {
        dir: dir.to_path_buf(),
        label: label(&summary),
        summary,
    };
    let mut report = report(std::slice::from_ref(&run));
    // report.md sits in the run's folder.
    for header in &mut report.runs {
        header.dir = ".".to_string();
    }
    report.title = "Evaluation report".to_string();
    crate::report::markdown::render(&report)
}

/// The conversations whose worlds ended otherwise than the gold calls'.
fn state_differs(runs: &[Run]) -> Vec<(usize, String, String)> {
    let mut rows = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        for c in &run.summary.per_conversation {
            if let Some(check) = c.state_check.as_ref().filter(|c| !c.clean()) {
                rows.push((i + 1, c.file.clone(), super::report::state_places(check)));
            }
        }
    }
    rows
}

/// Tools shown in the per-tool charts, at most (the most called).
const CHART_TOOLS: usize = 40;

fn charts(runs: &[Run]) -> Vec<Chart> {
    let run_name = |i: usize| format!("run {}: {}", i + 1, runs[i].label);
    // Subsets in the order first seen.
    let mut subsets: Vec<String> = Vec::new();
    for run in runs {
        for name in run.summary.by_subset.keys() {
            if !subsets.contains(name) {
                subsets.push(name.clone());
            }
        }
    }
    let per_subset = |title: &str, f: fn(&Rates) -> f64| Chart {
        title: title.to_string(),
        categories: subsets.clone(),
        series: runs
            .iter()
            .enumerate()
            .map(|(i, run)| {
                let of = |s: &String| run.summary.by_subset.get(s).map(|b| &b.rates);
                Series {
                    name: run_name(i),
                    values: subsets
                        .iter()
                        .map(|s| of(s).filter(|r| r.conversations > 0).map(f))
                        .collect(),
                    counts: subsets
                        .iter()
                        .map(|s| of(s).map(|r| r.conversations))
                        .collect(),
                }
            })
            .collect(),
        scale: Scale::Percent,
    };
    let mut charts = vec![
        per_subset("Success rate by subset", |r| r.success_rate),
        per_subset("Incorrect-action rate by subset", |r| {
            r.incorrect_action_rate
        }),
    ];
    // The tools called or expected most, across the runs.
    let mut tools: Vec<(String, usize)> = Vec::new();
    for run in runs {
        for (name, t) in &run.summary.tools {
            match tools.iter_mut().find(|(n, _)| n == name) {
                Some((_, n)) => *n += t.gold_calls + t.predicted,
                None => tools.push((name.clone(), t.gold_calls + t.predicted)),
            }
        }
    }
    tools.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    tools.truncate(CHART_TOOLS);
    let tool_names: Vec<String> = tools.into_iter().map(|(n, _)| n).collect();
    let per_tool = |title: &str, f: fn(&ToolTally) -> (usize, usize)| Chart {
        title: title.to_string(),
        categories: tool_names.clone(),
        series: runs
            .iter()
            .enumerate()
            .map(|(i, run)| {
                let of = |t: &String| run.summary.tools.get(t).map(f);
                Series {
                    name: run_name(i),
                    values: tool_names
                        .iter()
                        .map(|t| {
                            of(t)
                                .filter(|(_, n)| *n > 0)
                                .map(|(k, n)| k as f64 / n as f64)
                        })
                        .collect(),
                    counts: tool_names.iter().map(|t| of(t).map(|(_, n)| n)).collect(),
                }
            })
            .collect(),
        scale: Scale::Percent,
    };
    if !tool_names.is_empty() {
        charts.push(per_tool("Gold calls matched, by tool", |t| {
            (t.gold_calls - t.missed, t.gold_calls)
        }));
        charts.push(per_tool("Bad actions per call made, by tool", |t| {
            (t.bad_actions, t.predicted)
        }));
    }
    charts.push(Chart {
        title: "Error types per run (Table 2)".to_string(),
        categories: vec![
            "Premature tool call".to_string(),
            "Faulty planning".to_string(),
            "Incorrect invocation".to_string(),
        ],
        series: runs
            .iter()
            .enumerate()
            .map(|(i, run)| {
                let e = &run.summary.error_types;
                Series {
                    name: run_name(i),
                    values: [
                        e.premature_tool_call,
                        e.faulty_planning,
                        e.incorrect_invocation,
                    ]
                    .iter()
                    .map(|n| Some(*n as f64))
                    .collect(),
                    counts: Vec::new(),
                }
            })
            .collect(),
        scale: Scale::Plain,
    });
    charts
}

/// Each run's failed conversations with their reasons (and, on a page,
/// each drawn as a dialogue).
fn failures(runs: &[Run]) -> Section {
    let mut section = Section::new("failures", "Failed conversations");
    let mut table = Table {
        columns: vec![
            crate::report::Column::text("Run"),
            crate::report::Column::text("Conversation"),
            crate::report::Column::text("Subset"),
            crate::report::Column::number("Recall"),
            crate::report::Column::text("Why"),
        ],
        rows: Vec::new(),
    };
    let (drawn, anchors) = super::html::failed_dialogues(runs);
    let mut counts = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let conversations = &run.summary.per_conversation;
        let failed = conversations.iter().filter(|c| !c.success).count();
        counts.push(format!(
            "run {}: {failed} of {} failed",
            i + 1,
            conversations.len()
        ));
        for (c_index, c) in conversations.iter().enumerate().filter(|(_, c)| !c.success) {
            let why: Vec<String> = c
                .why_failed
                .iter()
                .map(|w| {
                    let known = if w.known.is_some() {
                        " (known erratum)"
                    } else {
                        ""
                    };
                    format!("{}{known}", w.message)
                })
                .collect();
            let anchor = super::html::anchor(i + 1, c_index);
            let name = if anchors.contains(&anchor) {
                Cell::CodeLink(c.file.clone(), anchor)
            } else {
                Cell::Code(c.file.clone())
            };
            table.row(vec![
                Cell::Text((i + 1).to_string()),
                name,
                Cell::Text(c.subset.clone()),
                Cell::Percent(Some(c.recall)),
                Cell::Text(why.join("; ")),
            ]);
        }
    }
    section = section.list(counts);
    if !table.rows.is_empty() {
        section = section.table(table);
    }
    if !drawn.is_empty() {
        section
            .blocks
            .push(crate::report::Block::Html { html: drawn });
    }
    section
}

/// The kind's own JSON document (the keys `report --format json` writes).
pub fn document(runs: &[Run]) -> serde_json::Value {
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
                "not_evaluated_files": &s.failures,
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
        insta::assert_snapshot!(crate::report::markdown::render(&report(&runs)).unwrap());
    }
}
