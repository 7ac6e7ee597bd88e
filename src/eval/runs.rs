//! Several evaluation folders side by side (`talkforge report`): each
//! run's `summary.json` read back, checked to be of one kind and over the
//! same dataset; runs of whole conversations put in one Table 1 (models,
//! documentation ablations, API modes), with Table 2's shares per run and
//! the conversations whose outcome differs between runs.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::level_runs::LevelRun;
use super::outcome::{ConversationResult, ToolTally};
use super::output::RunInfo;
use super::scenario_runs::ScenarioRun;
use super::summary::{Conversations, Rates};
use crate::report::runs::{
    check_datasets, check_version, mixed, series, unit_rows, Kind as ReportKind,
};
use crate::report::{sections, Cell, Chart, Scale, Section, Table};
use crate::run::summary::RunSummary;
use crate::{Error, Result};

/// A run of whole conversations, as `report` reads it.
pub type Run = crate::report::runs::Run<Conversations>;

/// The runs `report` compares, all of one kind.
pub enum Compared {
    /// Runs of whole conversations (ToolTalk's protocol).
    Conversations(Vec<Run>),
    /// Runs scored by samples, all at one level.
    Levels(Vec<LevelRun>),
    /// Runs of conversations with a user over scenarios (API-Bank's
    /// level 3).
    Scenarios(Vec<ScenarioRun>),
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
    check_version(path, &value)?;
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
            Kind::Levels(_) => levels.push(LevelRun::parse(dir, &path, &text)?),
            Kind::Scenarios(_) => scenarios.push(ScenarioRun::parse(dir, &path, &text)?),
        }
    }
    if !scenarios.is_empty() {
        check_datasets(scenarios.iter(), allow_different)?;
        return Ok(Compared::Scenarios(scenarios));
    }
    if !levels.is_empty() {
        // Levels 1 and 2 share a page (the paper's Table 3), each over
        // its own dialogues.
        for level in [1, 2] {
            let at = levels.iter().filter(|r| r.summary.level == level);
            check_datasets(at, allow_different)?;
        }
        return Ok(Compared::Levels(levels));
    }
    check_datasets(conversations.iter(), allow_different)?;
    Ok(Compared::Conversations(conversations))
}

/// The conversations (by file name) that succeeded in some runs and
/// failed in others, with each run's outcome (null where a run lacks it).
pub fn outcome_differs(runs: &[Run]) -> Vec<(String, Vec<Option<bool>>)> {
    let name = |c: &ConversationResult| {
        let name = Path::new(&c.file).file_name().unwrap_or_default();
        name.to_string_lossy().into_owned()
    };
    let rows = unit_rows(runs, |r| &r.summary.per_conversation, name);
    mixed(rows, |c| c.metrics.success)
        .into_iter()
        .map(|(file, row)| {
            (
                file,
                row.iter().map(|c| c.map(|c| c.metrics.success)).collect(),
            )
        })
        .collect()
}

impl ReportKind for Conversations {
    type Settings = RunInfo;
    const NAME: &'static str = "conversations";
    const UNIT: &'static str = "conversation";
    const FILE: &'static str = "conversation";

    /// The predictor and the settings that tell runs apart.
    fn label(s: &RunSummary<Self, RunInfo>) -> Vec<String> {
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
        if s.settings.similarity != "lexical" {
            parts.push(s.settings.similarity.clone());
        }
        parts
    }

    fn title(_: &[Run]) -> String {
        "Evaluation runs compared".to_string()
    }

    /// Settings, Tables 1 and 2 with charts, and the tools that fail most.
    fn tables(runs: &[Run]) -> Vec<Section> {
        vec![settings(runs), results(runs), errors(runs), tools(runs)]
    }

    /// The conversations whose worlds ended otherwise than the gold calls'.
    fn state_differs(
        runs: &[Run],
    ) -> std::result::Result<Vec<(usize, String, String)>, &'static str> {
        let mut rows = Vec::new();
        for (i, run) in runs.iter().enumerate() {
            for c in &run.summary.per_conversation {
                if let Some(check) = c.state_check.as_ref().filter(|c| !c.clean()) {
                    rows.push((i + 1, c.file.clone(), super::report::state_places(check)));
                }
            }
        }
        Ok(rows)
    }

    fn differs(runs: &[Run]) -> Section {
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
        sections::differs(
            "Conversations whose outcome differs between runs",
            "Conversation",
            runs.len(),
            differs,
            "None: every conversation succeeded or failed in every run alike.",
        )
    }

    fn failures(runs: &[Run]) -> Section {
        failures(runs)
    }

    fn run_document(r: &Run) -> Value {
        let s = &r.summary;
        json!({
            "predictor": s.predictor,
            "rates": s.rates,
            "by_subset": s.by_subset,
            "error_types": s.error_types,
            "failed": s.per_conversation.iter().filter(|c| !c.metrics.success).map(|c| &c.file).collect::<Vec<_>>(),
        })
    }

    fn document(runs: &[Run]) -> Value {
        json!({
            "outcome_differs": outcome_differs(runs)
                .into_iter()
                .map(|(file, outcomes)| json!({"file": file, "success": outcomes}))
                .collect::<Vec<_>>(),
        })
    }
}

/// Table 1 with its charts.
fn results(runs: &[Run]) -> Section {
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
            let rate = Cell::Percent;
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
    results
}

/// Table 2: each error type's share per run.
fn errors(runs: &[Run]) -> Section {
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
    Section::new("error-types", "Why conversations failed (Table 2)")
        .text("Each error type's share of the errors counted, in percent (count/errors).")
        .table(errors)
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

/// `report.md` of a run just made.
pub fn report_of_summary(summary: &super::summary::Summary, dir: &Path) -> Result<String> {
    crate::report::runs::report_md(summary, dir, "Evaluation report".to_string())
}

/// Tools shown in the per-tool charts, at most (the most called).
const CHART_TOOLS: usize = 40;

fn charts(runs: &[Run]) -> Vec<Chart> {
    // Subsets in the order first seen.
    let mut subsets: Vec<String> = Vec::new();
    for run in runs {
        for name in run.summary.by_subset.keys() {
            if !subsets.contains(name) {
                subsets.push(name.clone());
            }
        }
    }
    let per_subset = |title: &str, f: fn(&Rates) -> Option<f64>| Chart {
        title: title.to_string(),
        categories: subsets.clone(),
        series: series(runs, |run| {
            let of = |s: &String| run.summary.by_subset.get(s).map(|b| &b.rates);
            (
                subsets.iter().map(|s| of(s).and_then(f)).collect(),
                subsets
                    .iter()
                    .map(|s| of(s).map(|r| r.conversations))
                    .collect(),
            )
        }),
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
        series: series(runs, |run| {
            let of = |t: &String| run.summary.tools.get(t).map(f);
            (
                tool_names
                    .iter()
                    .map(|t| {
                        of(t)
                            .filter(|(_, n)| *n > 0)
                            .map(|(k, n)| k as f64 / n as f64)
                    })
                    .collect(),
                tool_names.iter().map(|t| of(t).map(|(_, n)| n)).collect(),
            )
        }),
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
        series: series(runs, |run| {
            let e = &run.summary.error_types;
            let counts = [
                e.premature_tool_call,
                e.faulty_planning,
                e.incorrect_invocation,
            ];
            (counts.iter().map(|n| Some(*n as f64)).collect(), Vec::new())
        }),
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
        let failed = conversations.iter().filter(|c| !c.metrics.success).count();
        counts.push(format!(
            "run {}: {failed} of {} failed",
            i + 1,
            conversations.len()
        ));
        for (c_index, c) in conversations
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.metrics.success)
        {
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
                Cell::Percent(Some(c.metrics.recall)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::report::tests::sample_summary;

    /// A run as `report` reads it back from what evaluate writes.
    fn run(dir: &str, model: &str) -> Run {
        let text = serde_json::to_string(&sample_summary(model)).unwrap();
        Run::parse(Path::new(dir), Path::new("summary.json"), &text).unwrap()
    }

    #[test]
    fn a_summary_reads_back_and_two_runs_compare_in_markdown() {
        let runs = [run("runs/x", "gpt-x"), run("runs/y", "gpt-y")];
        assert_eq!(runs[0].label, "openai:gpt-x");
        assert_eq!(runs[0].summary.per_conversation.len(), 2);
        assert_eq!(runs[0].summary.per_conversation[1].why_failed.len(), 2);
        assert!(Conversations::same_dataset(&runs));
        let report = crate::report::runs::report(&runs);
        insta::assert_snapshot!(crate::report::markdown::render(&report).unwrap());
    }
}
