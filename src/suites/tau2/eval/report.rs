//! tau2 runs side by side, for `talkforge report` (and each run's own
//! `report.md`): reward per run and per domain, the mean of each reward
//! component, the trajectories short of the full reward and those not
//! scored; pass^k, provenance and tokens are the shared sections of
//! [`crate::report::runs`].

use serde_json::{json, Value};

use super::figures::{mean, Row, Tau2Figures};
use crate::report::runs::{by_run, chart, per_run, unit_rows, Kind, Run, Unit, Words};
use crate::report::{Cell, Scale, Section};
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

/// A trajectory's name, and its identity across runs.
fn unit_name(row: &Row) -> String {
    match row.trial {
        0 => format!("{}#{}", row.file, row.task_id),
        t => format!("{}#{} (trial {t})", row.file, row.task_id),
    }
}

/// Whether a trajectory was scored below the full reward.
fn short(row: &Row) -> bool {
    row.grade.reward.is_some_and(|x| x < 1.0)
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
    const WHAT: &'static str = "a tau2 run graded with tau2's reward";
    const WORDS: Words = Words {
        failures: "Trajectories short of the full reward",
        failed: "short of the full reward",
        failure_columns: &["Task", "Ended", "Why", "Reward"],
        differs: "reward",
        passed_key: "full_reward",
        no_state_check: Some("tau2 compares the database's hash with the gold's: its DB component (see the results and the trajectories short of the full reward)"),
        unit_lists: &["per_task"],
    };

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
        let results = per_run(runs, |r| {
            let s = &r.summary;
            vec![
                ("Trajectories", Cell::Count(s.trajectories)),
                ("Scored", Cell::Count(s.scored)),
                ("Reward", Cell::Number(s.reward, 4)),
                ("Full reward", Cell::Count(s.full_reward)),
                ("DB match", Cell::Count(s.db_matches)),
            ]
        });
        let domains = domains(runs);
        let domain_reward = |run: &Tau2Run, domain: &str| {
            let rows = scored(run, Some(domain));
            let rewards: Vec<f64> = rows.iter().filter_map(|r| r.grade.reward).collect();
            (mean(&rewards), rows.len())
        };
        let by_domain = by_run(runs, &["Domain", "Scored", "Reward"], |run| {
            domains.iter().map(move |d| {
                let (reward, n) = domain_reward(run, d);
                vec![
                    Cell::Text(d.clone()),
                    Cell::Count(n),
                    Cell::Number(reward, 4),
                ]
            })
        });
        let per_domain = chart(
            runs,
            "Mean reward per domain",
            domains.clone(),
            Scale::Plain,
            |r, d| {
                let (reward, n) = domain_reward(&runs[r], &domains[d]);
                (reward, Some(n))
            },
        );
        let results = Section::new("results", "Results by run")
            .text("tau2's reward per trajectory: the product of the components its task's reward basis names, 0 when the conversation ended otherwise than by the agent or the user stopping. Reward is the mean over scored trajectories (a task whose basis needs NL assertions is scored only with a judge); full reward counts trajectories with reward 1.")
            .table(results)
            .table(by_domain)
            .chart(per_domain);

        let components = per_run(runs, |run| {
            let rows = scored(run, None);
            let mean_of = |value: fn(&Row) -> Option<f64>| Cell::Percent(component(&rows, value).0);
            vec![
                (
                    "DB match",
                    mean_of(|r| Some(f64::from(u8::from(r.grade.db_match)))),
                ),
                ("Communicate", mean_of(|r| r.grade.communicate)),
                ("Action", mean_of(|r| r.grade.action)),
                ("Env assertions", mean_of(|r| r.grade.env_assertions)),
                ("NL assertions", mean_of(|r| r.grade.nl_assertions)),
            ]
        });
        let components = Section::new("components", "Reward components")
            .text("Each component's mean over the scored trajectories that have it, in percent (a component outside a task's reward basis still shows where it costs nothing to compute).")
            .table(components);

        let unscored = by_run(runs, &["Task", "Why"], |run| {
            let rows = run.summary.per_task.iter();
            rows.filter(|r| r.grade.reward.is_none())
                .map(|r| vec![Cell::Code(unit_name(r)), Cell::Text(r.why())])
        });
        let not_scored = Section::new("not-scored", "Not scored");
        let not_scored = if unscored.rows.is_empty() {
            not_scored.text("Every trajectory was scored.")
        } else {
            not_scored
                .text("Trajectories without a reward (a judge was needed and none was given, or a component could not be had); the figures are over the others.")
                .table(unscored)
        };
        vec![results, components, not_scored]
    }

    /// A trajectory passes unless it was scored below the full reward (the
    /// unscored have their own section).
    fn units(run: &Tau2Run) -> Vec<Unit<'_>> {
        let units = run.summary.per_task.iter().map(|r| Unit {
            key: json!({"file": r.file, "task_id": r.task_id, "trial": r.trial}),
            name: unit_name(r),
            passed: !short(r),
            outcome: cell(Some(r)),
            state: None,
            failure: vec![
                Cell::Code(unit_name(r)),
                Cell::Text(r.termination.clone()),
                Cell::Text(r.why()),
                Cell::Number(r.grade.reward, 2),
            ],
        });
        units.collect()
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
            "by_domain": domains,
            "below_full_reward": s.per_task.iter().filter(|x| short(x)).map(|x| json!({
                "file": x.file, "task_id": x.task_id, "trial": x.trial, "reward": x.grade.reward,
                "termination": x.termination, "why": x.why(),
            })).collect::<Vec<_>>(),
            "not_scored": s.per_task.iter().filter(|x| x.grade.reward.is_none()).map(|x| json!({
                "file": x.file, "task_id": x.task_id, "trial": x.trial, "why": x.why(),
            })).collect::<Vec<_>>(),
        })
    }

    fn document(runs: &[Tau2Run]) -> Value {
        let rows = unit_rows(
            runs.iter().map(|r| r.summary.per_task.as_slice()),
            unit_name,
        );
        json!({
            "per_task": rows.iter().map(|(_, row)| {
                let first = row.iter().flatten().next().expect("a unit row has a run's row");
                json!({
                    "file": first.file, "task_id": first.task_id, "trial": first.trial,
                    "reward": row.iter().map(|r| r.and_then(|r| r.grade.reward)).collect::<Vec<_>>(),
                })
            }).collect::<Vec<_>>(),
        })
    }
}
