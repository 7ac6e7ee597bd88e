//! pass^k, as tau-bench defines it: the chance that an assistant succeeds
//! in *all* of k independent trials of the same task, estimated from
//! n >= k trials per task as C(c, k) / C(n, k) (c the task's successes)
//! and averaged over tasks. pass^1 is the mean success rate; pass^k falls
//! as k grows unless the assistant is reliable.
//!
//! A task here is whatever pass/fail unit a kind of evaluation has: a
//! conversation succeeded, a call sample correct, a scenario completed.
//! One [`Trials`] serves them all; a kind names its units by a few fields
//! (the file, and the line and occurrence of a sample) and may group them
//! (by subset, by API).

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::summary::{Figures, RunSummary};
use crate::llm::usage::Reading;

/// C(c, k) / C(n, k): the chance that k of the n trials drawn without
/// replacement all succeeded, given c successes. 0 when k > c; 1 for k = 0.
pub fn pass_hat(c: usize, n: usize, k: usize) -> f64 {
    assert!(c <= n && k <= n, "pass^k needs c <= n and k <= n");
    if k > c {
        return 0.0;
    }
    // The product of (c - i) / (n - i) for i < k: no factorial overflows.
    (0..k).map(|i| (c - i) as f64 / (n - i) as f64).product()
}

/// One unit's outcome in one trial.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitOutcome {
    /// The fields that name the unit (`file` first), the same in every
    /// trial.
    pub key: Map<String, Value>,
    /// The group it is counted in besides the whole (its subset, its
    /// API), None for a kind that has no groups.
    pub group: Option<String>,
    pub success: bool,
}

impl UnitOutcome {
    /// A unit that is a whole file.
    pub fn file(file: &str, group: Option<String>, success: bool) -> Self {
        let mut key = Map::new();
        key.insert("file".into(), Value::from(file));
        UnitOutcome {
            key,
            group,
            success,
        }
    }
}

/// pass^1 .. pass^n of a set of units, each tried n times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassHat {
    /// Units counted.
    pub units: usize,
    /// `pass_hat[k - 1]` is pass^k.
    pub pass_hat: Vec<f64>,
}

impl PassHat {
    /// Over units with these success counts, each of `n` trials.
    fn of(successes: impl Iterator<Item = usize>, n: usize) -> Self {
        let successes: Vec<usize> = successes.collect();
        let pass_hat = (1..=n)
            .map(|k| {
                if successes.is_empty() {
                    return 0.0;
                }
                successes.iter().map(|&c| pass_hat(c, n, k)).sum::<f64>() / successes.len() as f64
            })
            .collect();
        PassHat {
            units: successes.len(),
            pass_hat,
        }
    }
}

/// One unit over the trials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitTrials {
    #[serde(flatten)]
    pub key: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Trials in which it succeeded.
    pub successes: usize,
    pub trials: usize,
}

/// The trials of a run: pass^k overall and per group, and each unit's
/// successes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trials {
    /// Trials per unit (n).
    pub trials: usize,
    #[serde(flatten)]
    pub all: PassHat,
    /// What the groups are ("subset", "api"); absent for a kind without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grouped_by: Option<String>,
    /// Per group, in name order.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub groups: IndexMap<String, PassHat>,
    /// Units in the order of the first trial; only units evaluated in
    /// every trial are counted.
    pub per_unit: Vec<UnitTrials>,
}

impl Trials {
    /// From each trial's unit outcomes; a unit missing from some trial (it
    /// could not be evaluated there) is left out.
    pub fn new(trials: &[Vec<UnitOutcome>], grouped_by: Option<&str>) -> Self {
        let n = trials.len();
        let mut tally: std::collections::HashMap<&Map<String, Value>, (usize, usize)> =
            Default::default();
        for outcome in trials.iter().flatten() {
            let entry = tally.entry(&outcome.key).or_default();
            entry.0 += 1;
            entry.1 += usize::from(outcome.success);
        }
        let per_unit: Vec<UnitTrials> = trials
            .first()
            .into_iter()
            .flatten()
            .filter_map(|u| {
                let (seen, successes) = tally[&u.key];
                (seen == n).then(|| UnitTrials {
                    key: u.key.clone(),
                    group: u.group.clone(),
                    successes,
                    trials: n,
                })
            })
            .collect();
        let mut names: Vec<&str> = per_unit.iter().filter_map(|u| u.group.as_deref()).collect();
        names.sort_unstable();
        names.dedup();
        let groups = names
            .into_iter()
            .map(|name| {
                let units = per_unit.iter().filter(|u| u.group.as_deref() == Some(name));
                (name.to_string(), PassHat::of(units.map(|u| u.successes), n))
            })
            .collect();
        Trials {
            trials: n,
            all: PassHat::of(per_unit.iter().map(|u| u.successes), n),
            grouped_by: grouped_by.map(str::to_string),
            groups,
            per_unit,
        }
    }

    /// Whether every unit succeeded in every trial.
    pub fn all_succeeded(&self) -> bool {
        self.per_unit.iter().all(|u| u.successes == u.trials)
    }
}

/// A kind's run over `setup.trials` trials, the one shape every kind's
/// run has: `one` evaluates a trial (`Some(t)`, 1-based; `None` for a run
/// of one) into its folder (`out/trial-t`; the run folder for a run of
/// one), and the run layer ends it alike for every kind: the tokens used,
/// then `write` puts `summary.json` and `report.md` in the folder. With
/// several trials, a trial that could not evaluate a file stops the run,
/// and the first trial's summary comes back with pass^k over every trial
/// (`units` gives a trial's units) and every trial's tokens, amended by
/// `whole` and written to the run folder.
pub fn run_trials<F: Figures, S>(
    setup: &crate::run::Setup,
    grouped_by: &str,
    unit: &str,
    mut one: impl FnMut(Option<usize>, Option<PathBuf>) -> crate::Result<RunSummary<F, S>>,
    units: impl Fn(&RunSummary<F, S>) -> Vec<UnitOutcome>,
    whole: impl FnOnce(&mut RunSummary<F, S>),
    write: impl Fn(&Path, &RunSummary<F, S>) -> crate::Result<()>,
) -> crate::Result<RunSummary<F, S>> {
    let out = setup.out.as_deref();
    let started = setup.meter.reading();
    let finish = |summary: &mut RunSummary<F, S>, dir: Option<&Path>, since: &Reading| {
        summary.usage = setup.meter.since(since);
        dir.map_or(Ok(()), |dir| write(dir, summary))
    };
    if setup.trials <= 1 {
        let mut summary = one(None, out.map(Path::to_path_buf))?;
        finish(&mut summary, out, &started)?;
        return Ok(summary);
    }
    let mut outcomes = Vec::with_capacity(setup.trials);
    let mut first = None;
    for t in 1..=setup.trials {
        let dir = out.map(|d| super::folder::trial_dir(d, Some(t)));
        let trial_started = setup.meter.reading();
        let mut summary = one(Some(t), dir.clone())?;
        finish(&mut summary, dir.as_deref(), &trial_started)?;
        let files = summary.evaluated + summary.not_evaluated;
        if let Some(e) =
            super::driver::failures_error(&summary.failures, files, unit, dir.as_deref())
        {
            return Err(e);
        }
        outcomes.push(units(&summary));
        first.get_or_insert(summary);
    }
    let mut summary = first.expect("several trials ran");
    summary.trials = Some(Trials::new(&outcomes, Some(grouped_by)));
    whole(&mut summary);
    finish(&mut summary, out, &started)?;
    Ok(summary)
}

/// pass^1 .. pass^k in words, in percent: `pass^1 83.3%, pass^2 66.7%`.
pub fn pass_hat_words(pass_hat: &[f64]) -> String {
    pass_hat
        .iter()
        .enumerate()
        .map(|(k, p)| format!("pass^{} {}%", k + 1, crate::report::pct(*p)))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_hat_is_the_chance_that_k_drawn_trials_all_succeed() {
        assert_eq!(pass_hat(4, 4, 3), 1.0);
        assert_eq!(pass_hat(0, 4, 1), 0.0);
        assert_eq!(pass_hat(2, 4, 3), 0.0);
        // C(3,2)/C(4,2) = 3/6.
        assert!((pass_hat(3, 4, 2) - 0.5).abs() < 1e-12);
        // pass^1 is the success share.
        assert!((pass_hat(3, 4, 1) - 0.75).abs() < 1e-12);
        assert_eq!(pass_hat(0, 3, 0), 1.0);
    }

    fn sample(file: &str, turn: usize, api: &str, ok: bool) -> UnitOutcome {
        let mut u = UnitOutcome::file(file, Some(api.into()), ok);
        u.key.insert("turn".into(), turn.into());
        u
    }

    #[test]
    fn trials_give_pass_hat_overall_and_per_group() {
        let t = |a: bool, b: bool, c: bool| {
            vec![
                UnitOutcome::file("e/a.json", Some("easy".into()), a),
                UnitOutcome::file("h/b.json", Some("hard".into()), b),
                UnitOutcome::file("h/c.json", Some("hard".into()), c),
            ]
        };
        // a: 2/2, b: 1/2, c: 0/2.
        let trials = Trials::new(
            &[t(true, true, false), t(true, false, false)],
            Some("subset"),
        );
        assert_eq!(trials.trials, 2);
        assert_eq!(trials.all.units, 3);
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
        assert!(close(trials.all.pass_hat[0], (1.0 + 0.5 + 0.0) / 3.0));
        assert!(close(trials.all.pass_hat[1], 1.0 / 3.0));
        assert_eq!(trials.groups["easy"].pass_hat, [1.0, 1.0]);
        assert!(close(trials.groups["hard"].pass_hat[0], 0.25));
        assert_eq!(trials.groups["hard"].pass_hat[1], 0.0);
        assert!(!trials.all_succeeded());
        // A unit missing from one trial is left out.
        let mut second = t(true, false, false);
        second.pop();
        let partial = Trials::new(&[t(true, true, false), second], Some("subset"));
        assert_eq!(partial.all.units, 2);
    }

    #[test]
    fn units_within_a_file_are_told_apart_by_their_key() {
        // a.jsonl 1 (AddAlarm): 3/3; a.jsonl 2 (AddAlarm): 1/3; b.jsonl 1
        // (ToolSearcher): 2/3.
        let t = |x: bool, y: bool, z: bool| {
            vec![
                sample("a.jsonl", 1, "AddAlarm", x),
                sample("a.jsonl", 2, "AddAlarm", y),
                sample("b.jsonl", 1, "ToolSearcher", z),
            ]
        };
        let trials = Trials::new(
            &[
                t(true, true, false),
                t(true, false, true),
                t(true, false, true),
            ],
            Some("api"),
        );
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
        assert_eq!(trials.all.units, 3);
        // pass^2: 1, 0, C(2,2)/C(3,2) = 1/3.
        assert!(close(trials.all.pass_hat[1], (1.0 + 0.0 + 1.0 / 3.0) / 3.0));
        assert!(close(trials.groups["AddAlarm"].pass_hat[0], 2.0 / 3.0));
        assert_eq!(trials.groups["ToolSearcher"].units, 1);
        assert_eq!(trials.per_unit[1].successes, 1);
        let json = serde_json::to_value(&trials).unwrap();
        assert_eq!(json["per_unit"][1]["turn"], 2);
        assert_eq!(json["grouped_by"], "api");
        let back: Trials = serde_json::from_value(json).unwrap();
        assert_eq!(back, trials);
    }
}
