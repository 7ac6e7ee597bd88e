//! Runs of conversations with a user (API-Bank's level 3) side by side,
//! for `talkforge report`: each run's `summary.json` read back, one table
//! of completion rate and mean turns to completion (the paper's Table 4),
//! each scenario's turns per run, pass^k where the runs have it, the
//! scenarios completed in some runs and not in others, and the state check
//! (the databases each conversation left against the ground truth's)
//! where the runs have it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::provenance::Provenance;
use super::report::state_places;
use super::summary::StateTotals;
use crate::report::sections::{self, NotEvaluated};
use crate::report::{Cell, Chart, Column, Report, Scale, Section, Series, Table};
use crate::run::trials::Trials as CompletionTrials;
use crate::suite::state::StateCheck;
use crate::Result;

/// What `report` reads of a level-3 run's `summary.json`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ScenarioSummary {
    pub suite: String,
    pub level: u8,
    pub scenarios: usize,
    pub completed: usize,
    #[serde(default)]
    pub completion_rate: f64,
    pub mean_turns: Option<f64>,
    #[serde(default)]
    pub max_turns: usize,
    #[serde(default)]
    pub assistant: String,
    #[serde(default)]
    pub user: String,
    #[serde(default)]
    pub settings: Value,
    #[serde(default)]
    pub trials: Option<CompletionTrials>,
    #[serde(default)]
    pub provenance: Option<Provenance>,
    /// Absent from runs made before the state check.
    #[serde(default)]
    pub state_check: Option<StateTotals>,
    /// The tokens each model used (absent: no model was asked).
    #[serde(default)]
    pub usage: Vec<crate::llm::usage::ModelUsage>,
    pub per_scenario: Vec<ScenarioLine>,
    /// Scenarios that could not be evaluated.
    #[serde(default)]
    pub failures: Vec<NotEvaluated>,
}

/// What `report` reads of a `per_scenario` entry.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ScenarioLine {
    pub file: String,
    pub scenario: String,
    pub completed: bool,
    pub turns: Option<usize>,
    #[serde(default)]
    pub turns_taken: usize,
    #[serde(default)]
    pub stopped: String,
    #[serde(default)]
    pub ground_truth: usize,
    #[serde(default)]
    pub ground_truth_made: usize,
    #[serde(default)]
    pub missing: Vec<MissingCall>,
    /// Ground-truth calls that raise as written (their exception).
    #[serde(default)]
    pub ground_truth_raising: Vec<RaisingCall>,
    /// Calls the assistant made.
    #[serde(default)]
    pub calls: usize,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub state_check: Option<StateCheck>,
}

/// A ground-truth call that raises as written.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RaisingCall {
    pub line: usize,
    #[serde(default)]
    pub exception: Option<String>,
}

/// A ground-truth call not made.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct MissingCall {
    pub line: usize,
    pub api_name: String,
}

impl ScenarioLine {
    /// How the scenario ended, in words.
    pub fn outcome(&self) -> String {
        match (self.turns, self.stopped.as_str()) {
            (Some(turns), _) => format!("completed in {turns}"),
            (None, "max_turns") => format!("stopped at the limit, {} turns", self.turns_taken),
            (None, "user_left") => format!("user left after {} turns", self.turns_taken),
            (None, _) => "error".into(),
        }
    }

    /// Why it stopped and what it missed, in words (for scenarios not
    /// completed).
    pub fn why(&self) -> String {
        let stop = match self.stopped.as_str() {
            "max_turns" => format!("not completed within {} turns", self.turns_taken),
            "user_left" => format!("the user left after {} turns", self.turns_taken),
            _ => format!(
                "could not be run to the end: {}",
                self.error.as_deref().unwrap_or("unknown error")
            ),
        };
        if self.missing.is_empty() {
            return stop;
        }
        let missing: Vec<String> = self
            .missing
            .iter()
            .map(|m| {
                let raises = self
                    .ground_truth_raising
                    .iter()
                    .find(|r| r.line == m.line)
                    .and_then(|r| r.exception.as_deref())
                    .map(|e| format!(", which raises as written: {e}"))
                    .unwrap_or_default();
                format!("{} (line {}{raises})", m.api_name, m.line)
            })
            .collect();
        format!("{stop}; never made: {}", missing.join(", "))
    }
}

/// One level-3 run's folder.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenarioRunDir {
    /// The folder as given.
    pub dir: PathBuf,
    /// What sets it apart, in words.
    pub label: String,
    pub summary: ScenarioSummary,
}

impl super::runs::RunDir for ScenarioRunDir {
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
        ScenarioRunDir::models(self)
    }
    fn unit(&self) -> &'static str {
        "scenario"
    }
    fn evaluated(&self) -> usize {
        self.summary.scenarios
    }
    fn not_evaluated(&self) -> &[NotEvaluated] {
        &self.summary.failures
    }
}

impl ScenarioRunDir {
    /// Parse `text`, the `summary.json` at `path` in `dir`.
    pub fn parse(dir: &Path, path: &Path, text: &str) -> Result<Self> {
        let summary: ScenarioSummary =
            serde_json::from_str(text).map_err(|e| crate::formats::read::json_error(path, &e))?;
        Ok(ScenarioRunDir {
            dir: dir.to_path_buf(),
            label: label(&summary),
            summary,
        })
    }

    /// The models the server reported for the assistant and the user.
    pub fn models(&self) -> Option<String> {
        let p = self.summary.provenance.as_ref()?;
        let side = |requested: &Option<String>, reported: &[String]| {
            if reported.is_empty() {
                requested.clone()
            } else {
                Some(reported.join(", "))
            }
        };
        let assistant = side(&p.model_requested, &p.models_reported);
        let user = side(&p.user_model_requested, &p.user_models_reported);
        match (assistant, user) {
            (None, None) => None,
            (a, u) => Some(format!(
                "assistant {}, user {}",
                a.as_deref().unwrap_or("-"),
                u.as_deref().unwrap_or("-")
            )),
        }
    }
}

/// The players and the settings that tell level-3 runs apart.
fn label(s: &ScenarioSummary) -> String {
    let mut parts = vec![
        format!("assistant {}", s.assistant),
        format!("user {}", s.user),
    ];
    let t = s.settings["assistant"]["temperature"]
        .as_f64()
        .or(s.settings["user"]["temperature"].as_f64());
    if let Some(t) = t {
        parts.push(format!("T={}", t as f32));
    }
    parts.push(format!("max {} turns", s.max_turns));
    if let Some(r) = s.settings["retriever"].as_str().filter(|r| *r != "lexical") {
        parts.push(format!("retriever {r}"));
    }
    if let Some(t) = &s.trials {
        parts.push(format!("{} trials", t.trials));
    }
    parts.join(", ")
}

pub use super::runs::{same_dataset, RunDir};

/// The scenarios of the runs, in the order first seen (by scenario name),
/// each with every run's line (None where a run lacks it).
pub fn scenario_rows(runs: &[ScenarioRunDir]) -> Vec<(String, Vec<Option<&ScenarioLine>>)> {
    let mut order: Vec<String> = Vec::new();
    let mut rows: BTreeMap<String, Vec<Option<&ScenarioLine>>> = BTreeMap::new();
    for (i, run) in runs.iter().enumerate() {
        for s in &run.summary.per_scenario {
            let row = rows.entry(s.scenario.clone()).or_insert_with(|| {
                order.push(s.scenario.clone());
                vec![None; runs.len()]
            });
            row[i] = Some(s);
        }
    }
    order
        .into_iter()
        .filter_map(|name| {
            let row = rows.remove(&name)?;
            Some((name, row))
        })
        .collect()
}

/// The scenarios completed in some runs and not in others.
pub fn completion_differs(runs: &[ScenarioRunDir]) -> Vec<(String, Vec<Option<&ScenarioLine>>)> {
    scenario_rows(runs)
        .into_iter()
        .filter(|(_, row)| {
            let known: Vec<bool> = row.iter().flatten().map(|s| s.completed).collect();
            known.iter().any(|c| *c) && known.iter().any(|c| !*c)
        })
        .collect()
}

/// A scenario's cell: its turns, or how it ended.
pub fn cell(line: Option<&ScenarioLine>) -> String {
    match line {
        None => "-".into(),
        Some(s) => match s.turns {
            Some(t) => t.to_string(),
            None => format!("not completed ({})", s.outcome()),
        },
    }
}

/// The scenarios of a run whose databases ended otherwise than the
/// ground truth's, with their state check.
pub fn state_differs(run: &ScenarioRunDir) -> Vec<(&ScenarioLine, &StateCheck)> {
    run.summary
        .per_scenario
        .iter()
        .filter_map(|s| Some((s, s.state_check.as_ref().filter(|c| !c.clean())?)))
        .collect()
}

/// The comparison: completion and turns, turns per scenario, charts, and
/// the shared sections (the state check with the scenarios whose
/// databases differ).
pub fn report(runs: &[ScenarioRunDir]) -> Report {
    let level = runs[0].summary.level;
    let mut results = Section::new("results", "Results by run")
        .text("A scenario is completed when the assistant has made every ground-truth call; its score is the turns that took (the paper's Table 4). Completion rate is completed scenarios / scenarios, in percent; mean turns is over completed scenarios. A call is read as it is written (as `--scoring lenient` reads text at levels 1 and 2) and counts as a ground-truth call when its arguments equal that call's after the reference's conversion, or the reference's own check of the API (with its quirks) accepts its result.");
    let mut table = Table::new(
        "Run",
        &[
            "Scenarios",
            "Completed",
            "Completion rate",
            "Mean turns to completion",
        ],
    );
    for (i, run) in runs.iter().enumerate() {
        let s = &run.summary;
        table.row(vec![
            Cell::Text((i + 1).to_string()),
            Cell::Count(s.scenarios),
            Cell::Count(s.completed),
            Cell::Percent((s.scenarios > 0).then_some(s.completion_rate)),
            Cell::Number(s.mean_turns, 2),
        ]);
    }
    results = results.table(table).chart(Chart {
        title: "Completion rate per run".into(),
        categories: vec!["Completed".into()],
        series: runs
            .iter()
            .enumerate()
            .map(|(i, r)| Series {
                name: format!("run {}: {}", i + 1, r.label),
                values: vec![(r.summary.scenarios > 0).then_some(r.summary.completion_rate)],
                counts: vec![Some(r.summary.scenarios)],
            })
            .collect(),
        scale: Scale::Percent,
    });
    let rows = scenario_rows(runs);
    let heads: Vec<String> = (1..=runs.len()).map(|i| format!("Run {i}")).collect();
    let heads: Vec<&str> = heads.iter().map(String::as_str).collect();
    let mut turns = Table::new("Scenario", &heads);
    for (name, row) in &rows {
        let mut cells = vec![Cell::Text(name.clone())];
        cells.extend(row.iter().map(|s| Cell::Text(cell(*s))));
        turns.row(cells);
    }
    let mut detail = Table::new("Run", &["Turns", "Ground-truth calls made", "Calls made"]);
    detail.columns.insert(1, Column::text("Scenario"));
    detail.columns.insert(2, Column::text("File"));
    detail.columns.push(Column::text("Ended"));
    for (i, run) in runs.iter().enumerate() {
        for s in &run.summary.per_scenario {
            detail.row(vec![
                Cell::Text((i + 1).to_string()),
                Cell::Text(s.scenario.clone()),
                Cell::Code(s.file.clone()),
                Cell::Number(s.turns.map(|t| t as f64), 0),
                Cell::Text(format!("{}/{}", s.ground_truth_made, s.ground_truth)),
                Cell::Count(s.calls),
                Cell::Text(s.outcome()),
            ]);
        }
    }
    let turns = Section::new("turns", "Turns to completion per scenario")
        .text("Turns a completed scenario took; how the others ended.")
        .table(turns)
        .table(detail)
        .chart(Chart {
            title: "Turns to completion per scenario".into(),
            categories: rows.iter().map(|(name, _)| name.clone()).collect(),
            series: runs
                .iter()
                .enumerate()
                .map(|(i, r)| Series {
                    name: format!("run {}: {}", i + 1, r.label),
                    values: rows
                        .iter()
                        .map(|(_, row)| row[i].and_then(|s| s.turns).map(|t| t as f64))
                        .collect(),
                    counts: Vec::new(),
                })
                .collect(),
            scale: Scale::Plain,
        });
    let mut pass_hat = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let Some(trials) = &run.summary.trials else {
            continue;
        };
        for (scenario, p) in &trials.groups {
            pass_hat.push(sections::PassHatRow {
                run: i + 1,
                group: scenario.clone(),
                units: p.units,
                pass_hat: &p.pass_hat,
            });
        }
        pass_hat.push(sections::PassHatRow {
            run: i + 1,
            group: "all".into(),
            units: trials.all.units,
            pass_hat: &trials.all.pass_hat,
        });
    }
    let state: Vec<Option<&StateTotals>> = runs
        .iter()
        .map(|r| r.summary.state_check.as_ref())
        .collect();
    let mut differing_state = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        for (s, check) in state_differs(run) {
            differing_state.push((i + 1, s.scenario.clone(), state_places(check)));
        }
    }
    let differs = completion_differs(runs)
        .into_iter()
        .map(|(name, row)| (name, row.into_iter().map(|s| Some(cell(s))).collect()))
        .collect();
    let not_evaluated: Vec<&[NotEvaluated]> =
        runs.iter().map(|r| r.summary.failures.as_slice()).collect();
    let provenance: Vec<_> = runs.iter().map(|r| r.summary.provenance.as_ref()).collect();
    let usage: Vec<_> = runs.iter().map(|r| r.summary.usage.as_slice()).collect();
    Report {
        title: format!("Runs at level {level} compared (conversations with a user)"),
        runs: super::runs::headers(runs),
        warnings: super::runs::warnings(runs, same_dataset(runs)),
        sections: vec![
            results,
            turns,
            sections::pass_hat(&pass_hat, "scenario"),
            sections::state_check(&state, differing_state, "scenario", None),
            sections::differs(
                "Scenarios whose completion differs between runs",
                "Scenario",
                runs.len(),
                differs,
                "None: every scenario was completed or not in every run alike.",
            ),
            not_completed(runs),
            sections::not_evaluated(&not_evaluated, "scenario"),
            sections::provenance(&provenance),
        ]
        .into_iter()
        .chain(sections::usage(&usage))
        .collect(),
    }
}

/// Each run's scenarios not completed, and why.
fn not_completed(runs: &[ScenarioRunDir]) -> Section {
    let mut counts = Vec::new();
    let mut table = Table {
        columns: ["Run", "Scenario", "File", "Why"]
            .iter()
            .map(|c| Column::text(c))
            .collect(),
        rows: Vec::new(),
    };
    for (i, run) in runs.iter().enumerate() {
        let failed: Vec<&ScenarioLine> = run
            .summary
            .per_scenario
            .iter()
            .filter(|s| !s.completed)
            .collect();
        counts.push(format!(
            "run {}: {} of {} not completed",
            i + 1,
            failed.len(),
            run.summary.scenarios
        ));
        for s in failed {
            table.row(vec![
                Cell::Text((i + 1).to_string()),
                Cell::Text(s.scenario.clone()),
                Cell::Code(s.file.clone()),
                Cell::Text(s.why()),
            ]);
        }
    }
    let mut section = Section::new("failures", "Scenarios not completed").list(counts);
    if !table.rows.is_empty() {
        section = section.table(table);
    }
    section
}

/// `report.md` of a level-3 run just made: the report over that one run,
/// read back from its summary as `report` reads it.
pub fn report_of_summary(summary: &impl Serialize, dir: &Path) -> Result<String> {
    let value = serde_json::to_value(summary).map_err(|e| crate::Error::Other(e.to_string()))?;
    let summary: ScenarioSummary =
        serde_json::from_value(value).map_err(|e| crate::Error::Other(e.to_string()))?;
    let run = ScenarioRunDir {
        dir: dir.to_path_buf(),
        label: label(&summary),
        summary,
    };
    let mut report = report(std::slice::from_ref(&run));
    // report.md sits in the run's folder.
    for header in &mut report.runs {
        header.dir = ".".to_string();
    }
    report.title = format!(
        "API-Bank level {}: conversations with a user",
        run.summary.level
    );
    crate::report::markdown::render(&report)
}

/// The kind's own JSON document (the keys `report --format json` writes).
pub fn document(runs: &[ScenarioRunDir]) -> Value {
    let list: Vec<Value> = runs
        .iter()
        .map(|r| {
            let s = &r.summary;
            serde_json::json!({
                "dir": r.dir.display().to_string(),
                "label": r.label,
                "suite": s.suite,
                "level": s.level,
                "assistant": s.assistant,
                "user": s.user,
                "models": r.models(),
                "settings": s.settings,
                "dataset_sha256": r.dataset(),
                "scenarios": s.scenarios,
                "completed": s.completed,
                "completion_rate": s.completion_rate,
                "mean_turns": s.mean_turns,
                "max_turns": s.max_turns,
                "pass_hat": s.trials.as_ref().map(|t| &t.all.pass_hat),
                "state_check": s.state_check,
                "not_completed": s.per_scenario.iter().filter(|x| !x.completed).map(|x| serde_json::json!({
                    "scenario": x.scenario, "file": x.file, "stopped": x.stopped, "why": x.why(),
                })).collect::<Vec<_>>(),
                "not_evaluated_files": &s.failures,
            })
        })
        .collect();
    serde_json::json!({
        "kind": "scenarios",
        "level": runs[0].summary.level,
        "runs": list,
        "same_dataset": same_dataset(runs),
        "per_scenario": scenario_rows(runs).into_iter().map(|(name, row)| serde_json::json!({
            "scenario": name,
            "turns": row.iter().map(|s| s.and_then(|s| s.turns)).collect::<Vec<_>>(),
            "completed": row.iter().map(|s| s.map(|s| s.completed)).collect::<Vec<_>>(),
            "state_clean": row.iter().map(|s| s.and_then(|s| s.state_check.as_ref()).map(StateCheck::clean)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "completion_differs": completion_differs(runs).into_iter().map(|(name, row)| serde_json::json!({
            "scenario": name,
            "completed": row.iter().map(|s| s.map(|s| s.completed)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A level-3 summary as evaluate writes it (the keys report reads).
    fn run(dir: &str, assistant: &str, shopping: Option<usize>) -> ScenarioRunDir {
        let line = |name: &str, turns: Option<usize>| {
            serde_json::json!({"file": format!("lv3/{name}.txt"), "scenario": name, "scene": name,
                "completed": turns.is_some(), "turns": turns, "turns_taken": turns.unwrap_or(20),
                "stopped": if turns.is_some() {"completed"} else {"max_turns"},
                "ground_truth": 2, "ground_truth_made": if turns.is_some() {2} else {1},
                "missing": if turns.is_some() {serde_json::json!([])} else {serde_json::json!([{"line": 23, "api_name": "AddAgenda"}])},
                "transcript": []})
        };
        let completed = 1 + usize::from(shopping.is_some());
        let text = serde_json::json!({
            "suite": "apibank", "level": 3, "scenarios": 2, "completed": completed,
            "completion_rate": completed as f64 / 2.0,
            "mean_turns": if shopping.is_some() {3.0} else {2.0}, "max_turns": 20,
            "assistant": assistant, "user": "llm:u",
            "settings": {"assistant": {"model": "m", "temperature": 0.0}, "retriever": "lexical"},
            "resumed": 0,
            "per_scenario": [line("Alarm", Some(2)), line("Shopping", shopping)],
        })
        .to_string();
        let mut run =
            ScenarioRunDir::parse(Path::new(dir), Path::new("summary.json"), &text).unwrap();
        // The run that misses Shopping booked something else instead.
        if shopping.is_none() {
            let check: StateCheck = serde_json::from_value(serde_json::json!({
                "collateral": 1, "missing": 1, "different": 0, "writes": [
                    {"turn": 20, "kind": "missing", "database": "Agenda", "record": "11"},
                    {"turn": 20, "kind": "collateral", "database": "Reminder", "record": "4"}]}))
            .unwrap();
            let mut totals = StateTotals::default();
            totals.add(&StateCheck::default());
            totals.add(&check);
            run.summary.state_check = Some(totals);
            run.summary.per_scenario[1].state_check = Some(check);
        }
        run
    }

    #[test]
    fn two_level_3_runs_compare_turns_and_differing_completion() {
        let runs = [
            run("runs/a", "llm:a", Some(4)),
            run("runs/b", "llm:b", None),
        ];
        assert_eq!(
            runs[0].label,
            "assistant llm:a, user llm:u, T=0, max 20 turns"
        );
        let differs = completion_differs(&runs);
        assert_eq!(differs.len(), 1);
        assert_eq!(differs[0].0, "Shopping");
        assert_eq!(
            cell(differs[0].1[1]),
            "not completed (stopped at the limit, 20 turns)"
        );
        let doc = document(&runs);
        assert_eq!(doc["kind"], "scenarios");
        assert_eq!(
            doc["per_scenario"][1]["turns"],
            serde_json::json!([4, null])
        );
        assert_eq!(doc["runs"][1]["state_check"]["collateral"], 1);
        assert!(doc["runs"][0]["state_check"].is_null());
        assert_eq!(
            doc["per_scenario"][1]["state_clean"],
            serde_json::json!([null, false])
        );
        assert_eq!(
            doc["runs"][1]["not_completed"][0]["why"],
            "not completed within 20 turns; never made: AddAgenda (line 23)"
        );
        insta::assert_snapshot!(crate::report::markdown::render(&report(&runs)).unwrap());
    }
}
