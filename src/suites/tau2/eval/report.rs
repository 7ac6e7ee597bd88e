//! tau2 runs side by side, for `talkforge report` (and each run's own
//! `report.md`): reward per run and per domain, the mean of each reward
//! component, the trajectories short of the full reward and those not
//! scored; pass^k, provenance and tokens are the shared sections of
//! [`crate::report::runs`].

use serde_json::{json, Value};

use super::figures::{mean, Row, Tau2Figures};
use crate::report::runs::{chart, mixed, run_row, run_rows, unit_rows, Kind, Run, Shape};
use crate::report::{sections, Cell, Scale, Section, Table};
use crate::run::summary::RunSummary;

/// A tau2 run's folder, as `report` reads it.
pub type Tau2Run = Run<Tau2Figures>;

/// The title of `report.md` of a run just made.
pub fn title(summary: &RunSummary<Tau2Figures>) -> String {
    format!("tau2: {}", summary.predictor)
}

/// The domains of the runs, in name order.
fn domains(runs: &[Tau2Run]) -> Vec<String> {
    let mut names: Vec<String> = runs
        .iter()
        .flat_map(|r| r.summary.per_task.iter().map(|t| t.domain.clone()))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The mean of a component over the rows that have it, and how many do.
fn component(rows: &[&Row], value: impl Fn(&Row) -> Option<f64>) -> (Option<f64>, usize) {
    let values: Vec<f64> = rows.iter().filter_map(|r| value(r)).collect();
    (mean(&values), values.len())
}

/// A run's scored rows of `domain` (every domain: None).
fn scored<'a>(run: &'a Tau2Run, domain: Option<&str>) -> Vec<&'a Row> {
    run.summary
        .per_task
        .iter()
        .filter(|r| domain.is_none_or(|d| r.domain == d))
        .filter(|r| r.grade.reward.is_some())
        .collect()
}

/// A trajectory's key across runs.
fn key(row: &Row) -> (String, String, usize) {
    (row.file.clone(), row.task_id.clone(), row.trial)
}

fn unit_name(key: &(String, String, usize)) -> String {
    match key.2 {
        0 => format!("{}#{}", key.0, key.1),
        t => format!("{}#{} (trial {t})", key.0, key.1),
    }
}

/// A row's cell: its reward, or why it has none.
fn cell(row: Option<&Row>) -> String {
    match row {
        None => "-".into(),
        Some(r) => match r.grade.reward {
            Some(x) => format!("{x}"),
            None => "not scored".into(),
        },
    }
}

impl Kind for Tau2Figures {
    type Settings = Value;
    const NAME: &'static str = "tau2";
    const UNIT: &'static str = "task";
    const FILE: &'static str = "trajectory";
    const WHAT: &'static str = "a tau2 run (`suite` \"tau2\" and `per_task`)";

    fn shape(summary: &Value) -> Option<Shape> {
        (summary.get("suite")? == "tau2" && summary.get("per_task").is_some()).then(|| Shape {
            words: "a tau2 run graded with tau2's reward".into(),
            table: "tau2".into(),
        })
    }

    fn label(s: &RunSummary<Self>) -> Vec<String> {
        let mut parts = vec![format!("agent {}", s.predictor)];
        if let Some(user) = &s.user {
            parts.push(format!("user {user}"));
        }
        if let Some(t) = s.settings["agent"]["temperature"].as_f64() {
            parts.push(format!("T={}", t as f32));
        }
        if let Some(judge) = s.settings["judge"]["model"].as_str() {
            parts.push(format!("judge {judge}"));
        }
        parts
    }

    fn title(runs: &[Tau2Run]) -> String {
        match runs {
            [one] => title(&one.summary),
            _ => "tau2 runs compared".into(),
        }
    }

    fn tables(runs: &[Tau2Run]) -> Vec<Section> {
        let mut results = Table::new(
            "Run",
            &[
                "Trajectories",
                "Scored",
                "Reward",
                "Full reward",
                "DB match",
            ],
        );
        run_row(&mut results, runs, |run| {
            let s = &run.summary;
            vec![
                Cell::Count(s.trajectories),
                Cell::Count(s.scored),
                Cell::Number(s.reward, 4),
                Cell::Count(s.full_reward),
                Cell::Count(s.db_matches),
            ]
        });
        let domains = domains(runs);
        let mut by_domain = Table::with(&["Run", "Domain"], &["Scored", "Reward"]);
        run_rows(&mut by_domain, runs, |run| {
            domains
                .iter()
                .map(|d| {
                    let rows = scored(run, Some(d));
                    let rewards: Vec<f64> = rows.iter().filter_map(|r| r.grade.reward).collect();
                    vec![
                        Cell::Text(d.clone()),
                        Cell::Count(rows.len()),
                        Cell::Number(mean(&rewards), 4),
                    ]
                })
                .collect::<Vec<_>>()
        });
        let per_domain = chart(
            runs,
            "Mean reward per domain",
            domains.clone(),
            Scale::Plain,
            |r, d| {
                let rows = scored(&runs[r], Some(&domains[d]));
                let rewards: Vec<f64> = rows.iter().filter_map(|r| r.grade.reward).collect();
                (mean(&rewards), Some(rows.len()))
            },
        );
        let results = Section::new("results", "Results by run")
            .text("tau2's reward per trajectory: the product of the components its task's reward basis names, 0 when the conversation ended otherwise than by the agent or the user stopping. Reward is the mean over scored trajectories (a task whose basis needs NL assertions is scored only with a judge); full reward counts trajectories with reward 1.")
            .table(results)
            .table(by_domain)
            .chart(per_domain);

        let mut components = Table::new(
            "Run",
            &[
                "DB match",
                "Communicate",
                "Action",
                "Env assertions",
                "NL assertions",
            ],
        );
        run_row(&mut components, runs, |run| {
            let rows = scored(run, None);
            let db = component(&rows, |r| Some(if r.grade.db_match { 1.0 } else { 0.0 }));
            vec![
                Cell::Percent(db.0),
                Cell::Percent(component(&rows, |r| r.grade.communicate).0),
                Cell::Percent(component(&rows, |r| r.grade.action).0),
                Cell::Percent(component(&rows, |r| r.grade.env_assertions).0),
                Cell::Percent(component(&rows, |r| r.grade.nl_assertions).0),
            ]
        });
        let components = Section::new("components", "Reward components")
            .text("Each component's mean over the scored trajectories that have it, in percent (a component outside a task's reward basis still shows where it costs nothing to compute).")
            .table(components);

        let mut unscored = Table::with(&["Run", "Task", "Why"], &[]);
        run_rows(&mut unscored, runs, |run| {
            run.summary
                .per_task
                .iter()
                .filter(|r| r.grade.reward.is_none())
                .map(|r| vec![Cell::Code(unit_name(&key(r))), Cell::Text(r.why())])
                .collect::<Vec<_>>()
        });
        let not_scored = if unscored.rows.is_empty() {
            Section::new("not-scored", "Not scored").text("Every trajectory was scored.")
        } else {
            Section::new("not-scored", "Not scored")
                .text("Trajectories without a reward (a judge was needed and none was given, or a component could not be had); the figures are over the others.")
                .table(unscored)
        };
        vec![results, components, not_scored]
    }

    fn state_differs(
        _runs: &[Tau2Run],
    ) -> std::result::Result<Vec<(usize, String, String)>, &'static str> {
        Err("tau2 compares the database's hash with the gold's: its DB component (see the results and the trajectories short of the full reward)")
    }

    fn differs(runs: &[Tau2Run]) -> Section {
        let rows = unit_rows(runs, |r| &r.summary.per_task, key);
        let differs = mixed(rows, Row::succeeded)
            .into_iter()
            .map(|(k, row)| {
                (
                    unit_name(&k),
                    row.into_iter().map(|r| Some(cell(r))).collect(),
                )
            })
            .collect();
        sections::differs(
            "Tasks whose full reward differs between runs",
            "Task",
            runs.len(),
            differs,
            "None: every task got the full reward in every run alike, or in none.",
        )
    }

    fn failures(runs: &[Tau2Run]) -> Section {
        let mut counts = Vec::new();
        let mut table = Table::with(&["Run", "Task", "Ended", "Why"], &["Reward"]);
        run_rows(&mut table, runs, |run| {
            let short: Vec<&Row> = run
                .summary
                .per_task
                .iter()
                .filter(|r| r.grade.reward.is_some_and(|x| x < 1.0))
                .collect();
            counts.push(format!(
                "run {}: {} of {} scored below the full reward",
                counts.len() + 1,
                short.len(),
                run.summary.scored
            ));
            short
                .into_iter()
                .map(|r| {
                    vec![
                        Cell::Code(unit_name(&key(r))),
                        Cell::Text(r.termination.clone()),
                        Cell::Text(r.why()),
                        Cell::Number(r.grade.reward, 2),
                    ]
                })
                .collect::<Vec<_>>()
        });
        sections::failures("Trajectories short of the full reward", counts, table)
    }

    fn run_document(r: &Tau2Run) -> Value {
        let s = &r.summary;
        let domains: Vec<Value> = domains(std::slice::from_ref(r))
            .into_iter()
            .map(|d| {
                let rows = scored(r, Some(&d));
                let rewards: Vec<f64> = rows.iter().filter_map(|x| x.grade.reward).collect();
                json!({"domain": d, "scored": rows.len(), "reward": mean(&rewards)})
            })
            .collect();
        json!({
            "suite": "tau2",
            "predictor": s.predictor,
            "user": s.user,
            "tasks": s.tasks,
            "trajectories": s.trajectories,
            "scored": s.scored,
            "reward": s.reward,
            "full_reward": s.full_reward,
            "db_matches": s.db_matches,
            "by_domain": domains,
            "below_full_reward": s.per_task.iter().filter(|x| x.grade.reward.is_some_and(|v| v < 1.0)).map(|x| json!({
                "file": x.file, "task_id": x.task_id, "trial": x.trial, "reward": x.grade.reward,
                "termination": x.termination, "why": x.why(),
            })).collect::<Vec<_>>(),
            "not_scored": s.per_task.iter().filter(|x| x.grade.reward.is_none()).map(|x| json!({
                "file": x.file, "task_id": x.task_id, "trial": x.trial, "why": x.why(),
            })).collect::<Vec<_>>(),
        })
    }

    fn document(runs: &[Tau2Run]) -> Value {
        let rows = unit_rows(runs, |r| &r.summary.per_task, key);
        json!({
            "per_task": rows.iter().map(|((file, task_id, trial), row)| json!({
                "file": file, "task_id": task_id, "trial": trial,
                "reward": row.iter().map(|r| r.and_then(|r| r.grade.reward)).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
    }
}
