//! Runs of conversations with a user (API-Bank's level 3) side by side,
//! for `talkforge report`: one table of completion rate and mean turns to
//! completion (the paper's Table 4), each scenario's turns per run, the
//! scenarios completed in some runs and not in others, and the scenarios
//! whose databases ended otherwise than the ground truth's; the shared
//! sections are [`crate::report::runs`]'.

use serde_json::{json, Value};

use super::outcome::{ScenarioOutcome, Stop};
use super::summary::ScenarioFigures;
use crate::report::runs::{
    answered, by_run, chart, per_run, per_unit, unit_rows, Kind, Run, Unit, Words,
};
use crate::report::{Cell, Scale, Section};
use crate::run::summary::RunSummary;
use crate::suite::state::StateCheck;

/// A level-3 run's folder, as `report` reads it.
pub type ScenarioRun = Run<ScenarioFigures>;

/// How a scenario ended, in words.
pub fn outcome(s: &ScenarioOutcome) -> String {
    match (s.turns, s.stopped) {
        (Some(turns), _) => format!("completed in {turns}"),
        (None, Stop::MaxTurns) => format!("stopped at the limit, {} turns", s.turns_taken),
        (None, Stop::UserLeft) => format!("user left after {} turns", s.turns_taken),
        (None, _) => "error".into(),
    }
}

/// Why a scenario stopped and what it missed, in words (for scenarios not
/// completed).
pub fn why(s: &ScenarioOutcome) -> String {
    let stop = match s.stopped {
        Stop::MaxTurns => format!("not completed within {} turns", s.turns_taken),
        Stop::UserLeft => format!("the user left after {} turns", s.turns_taken),
        _ => format!(
            "could not be run to the end: {}",
            s.error.as_deref().unwrap_or("unknown error")
        ),
    };
    if s.missing.is_empty() {
        return stop;
    }
    let missing: Vec<String> = s
        .missing
        .iter()
        .map(|m| {
            let raises = s
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

impl Kind for ScenarioFigures {
    type Settings = Value;
    const NAME: &'static str = "scenarios";
    const UNIT: &'static str = "scenario";
    const WHAT: &'static str = "a run of conversations with a user";
    const TABLE_PER_LEVEL: bool = true;
    const WORDS: Words = Words {
        failures: "Scenarios not completed",
        failed: "not completed",
        failure_columns: &["Scenario", "File", "Why"],
        differs: "completion",
        passed_key: "completed",
        no_state_check: None,
        unit_lists: &["per_scenario"],
    };

    /// The players and the settings that tell level-3 runs apart.
    fn label(s: &RunSummary<Self>) -> Vec<String> {
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
        parts
    }

    /// The models the server reported for the assistant and the user.
    fn models(summary: &RunSummary<Self>) -> Option<String> {
        let p = summary.provenance.as_ref()?;
        let assistant = answered(&p.model_requested, &p.models_reported);
        let user = answered(&p.user_model_requested, &p.user_models_reported);
        match (assistant, user) {
            (None, None) => None,
            (a, u) => Some(format!(
                "assistant {}, user {}",
                a.as_deref().unwrap_or("-"),
                u.as_deref().unwrap_or("-")
            )),
        }
    }

    fn title(runs: &[ScenarioRun]) -> String {
        let level = runs[0].summary.level;
        format!("Runs at level {level} compared (conversations with a user)")
    }

    /// Completion and turns (Table 4), and turns per scenario.
    fn tables(runs: &[ScenarioRun]) -> Vec<Section> {
        let table = per_run(runs, |r| {
            let s = &r.summary;
            vec![
                ("Scenarios", Cell::Count(s.scenarios)),
                ("Completed", Cell::Count(s.completed)),
                ("Completion rate", Cell::Percent(s.completion_rate)),
                ("Mean turns to completion", Cell::Number(s.mean_turns, 2)),
            ]
        });
        let completion = |r: usize, _| {
            let s = &runs[r].summary;
            (s.completion_rate, Some(s.scenarios))
        };
        let results = Section::new("results", "Results by run")
            .text("A scenario is completed when the assistant has made every ground-truth call; its score is the turns that took (the paper's Table 4). Completion rate is completed scenarios / scenarios, in percent; mean turns is over completed scenarios. A call is read as it is written (as `--scoring lenient` reads text at levels 1 and 2) and counts as a ground-truth call when its arguments equal that call's after the reference's conversion, or the reference's own check of the API (with its quirks) accepts its result.")
            .table(table)
            .chart(chart(runs, "Completion rate per run", vec!["Completed".into()], Scale::Percent, completion));
        let rows = scenario_rows(runs);
        let turns = rows.iter().map(|(name, row)| {
            let cells = row.iter().map(|s| match s.and_then(|s| s.turns) {
                Some(turns) => Cell::Count(turns),
                None => Cell::Text(cell(*s)),
            });
            (Cell::Text(name.clone()), cells)
        });
        let heads_detail = [
            "Scenario",
            "File",
            "Turns",
            "Ground-truth calls made",
            "Calls made",
            "Ended",
        ];
        let detail = by_run(runs, &heads_detail, |run| {
            run.summary.per_scenario.iter().map(|s| {
                vec![
                    Cell::Text(s.scenario.clone()),
                    Cell::Code(s.file.clone()),
                    Cell::Number(s.turns.map(|t| t as f64), 0),
                    Cell::Text(format!("{}/{}", s.ground_truth_made, s.ground_truth)),
                    Cell::Count(s.calls),
                    Cell::Text(outcome(s)),
                ]
            })
        });
        let names = rows.iter().map(|(name, _)| name.clone()).collect();
        let per_scenario = chart(
            runs,
            "Turns to completion per scenario",
            names,
            Scale::Plain,
            |r, i| (rows[i].1[r].and_then(|s| s.turns).map(|t| t as f64), None),
        );
        let turns = Section::new("turns", "Turns to completion per scenario")
            .text("Turns a completed scenario took; how the others ended.")
            .table(per_unit("Scenario", runs.len(), turns))
            .table(detail)
            .chart(per_scenario);
        vec![results, turns]
    }

    fn units(run: &ScenarioRun) -> Vec<Unit<'_>> {
        let units = run.summary.per_scenario.iter().map(|s| Unit {
            key: json!({ "scenario": s.scenario }),
            name: s.scenario.clone(),
            passed: s.completed,
            outcome: cell(Some(s)),
            state: s.state_check.as_ref(),
            failure: vec![
                Cell::Text(s.scenario.clone()),
                Cell::Code(s.file.clone()),
                Cell::Text(why(s)),
            ],
        });
        units.collect()
    }

    fn run_document(r: &ScenarioRun) -> Value {
        let s = &r.summary;
        json!({
            "models": Self::models(s),
            "not_completed": s.per_scenario.iter().filter(|x| !x.completed).map(|x| json!({
                "scenario": x.scenario, "file": x.file, "stopped": x.stopped, "why": why(x),
            })).collect::<Vec<_>>(),
        })
    }

    fn document(runs: &[ScenarioRun]) -> Value {
        json!({
            "level": runs[0].summary.level,
            "per_scenario": scenario_rows(runs).into_iter().map(|(name, row)| json!({
                "scenario": name,
                "turns": row.iter().map(|s| s.and_then(|s| s.turns)).collect::<Vec<_>>(),
                "completed": row.iter().map(|s| s.map(|s| s.completed)).collect::<Vec<_>>(),
                "state_clean": row.iter().map(|s| s.and_then(|s| s.state_check.as_ref()).map(StateCheck::clean)).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }
}

/// The title of `report.md` of a run just made, of `family` (the suite in
/// words).
pub fn title(summary: &RunSummary<ScenarioFigures>, family: &str) -> String {
    let level = summary.level;
    format!("{family} level {level}: conversations with a user")
}

/// The scenarios of the runs, in the order first seen (by scenario name),
/// each with every run's line (None where a run lacks it).
pub fn scenario_rows(runs: &[ScenarioRun]) -> Vec<(String, Vec<Option<&ScenarioOutcome>>)> {
    let units = runs.iter().map(|r| r.summary.per_scenario.as_slice());
    unit_rows(units, |s| s.scenario.clone())
}

/// A scenario's cell: its turns, or how it ended.
pub fn cell(line: Option<&ScenarioOutcome>) -> String {
    match line {
        None => "-".into(),
        Some(s) => match s.turns {
            Some(t) => t.to_string(),
            None => format!("not completed ({})", outcome(s)),
        },
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::runs::report;
    use crate::run::summary::StateTotals;

    /// A level-3 summary as evaluate writes it (the keys report reads).
    pub(crate) fn run(dir: &str, assistant: &str, shopping: Option<usize>) -> ScenarioRun {
        let line = |name: &str, turns: Option<usize>| {
            serde_json::json!({"file": format!("lv3/{name}.txt"), "scenario": name, "scene": name,
                "completed": turns.is_some(), "turns": turns, "turns_taken": turns.unwrap_or(20),
                "stopped": if turns.is_some() {"completed"} else {"max_turns"},
                "ground_truth": 2, "ground_truth_made": if turns.is_some() {2} else {1},
                "made": [], "calls": 2, "ground_truth_raising": [],
                "missing": if turns.is_some() {serde_json::json!([])} else {serde_json::json!([{"line": 23, "api_name": "AddAgenda"}])},
                "assistant_models": [], "user_models": [], "transcript": []})
        };
        let completed = 1 + usize::from(shopping.is_some());
        let text = serde_json::json!({
            "suite": "apibank", "level": 3, "scenarios": 2, "completed": completed,
            "completion_rate": Some(completed as f64 / 2.0),
            "mean_turns": if shopping.is_some() {3.0} else {2.0}, "max_turns": 20,
            "assistant": assistant, "user": "llm:u",
            "settings": {"assistant": {"model": "m", "temperature": 0.0}, "retriever": "lexical"},
            "resumed": 0,
            "per_scenario": [line("Alarm", Some(2)), line("Shopping", shopping)],
        })
        .to_string();
        let mut run = ScenarioRun::parse(dir.as_ref(), &text).unwrap();
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
        assert_eq!(
            cell(Some(&runs[1].summary.per_scenario[1])),
            "not completed (stopped at the limit, 20 turns)"
        );
        let doc = report(&runs).document;
        assert_eq!(
            doc["completion_differs"],
            serde_json::json!([{"scenario": "Shopping", "completed": [true, false]}])
        );
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
        insta::assert_snapshot!(report(&runs).markdown().unwrap());
    }
}
