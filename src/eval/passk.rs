//! pass^k, as tau-bench defines it: the chance that an assistant succeeds
//! in *all* of k independent trials of the same task, estimated from
//! n >= k trials per task as C(c, k) / C(n, k) (c the task's successes)
//! and averaged over tasks. pass^1 is the mean success rate; pass^k falls
//! as k grows unless the assistant is reliable.
//!
//! A task here is any pass/fail unit: a conversation ([`Trials`],
//! ToolTalk), a call sample ([`SampleTrials`], suites scored by samples
//! at levels) or a scenario completed ([`CompletionTrials`],
//! conversations with a user).

use std::collections::{BTreeMap, HashMap};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

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

/// One unit's trials.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitTrials {
    pub file: String,
    /// The subset the unit belongs to (the folder of its file).
    pub subset: String,
    /// Successes among the trials.
    pub successes: usize,
    pub trials: usize,
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
    /// Over `units`, each with the same number of trials `n`.
    pub fn of<'a>(units: impl IntoIterator<Item = &'a UnitTrials>, n: usize) -> Self {
        let units: Vec<&UnitTrials> = units.into_iter().collect();
        let pass_hat = (1..=n)
            .map(|k| {
                if units.is_empty() {
                    return 0.0;
                }
                units
                    .iter()
                    .map(|u| pass_hat(u.successes, u.trials, k))
                    .sum::<f64>()
                    / units.len() as f64
            })
            .collect();
        PassHat {
            units: units.len(),
            pass_hat,
        }
    }
}

/// The trials of a run: pass^k overall and per subset, and each unit's
/// successes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trials {
    /// Trials per unit (n).
    pub trials: usize,
    #[serde(flatten)]
    pub all: PassHat,
    pub by_subset: IndexMap<String, PassHat>,
    /// Units in the order of the first trial; only units evaluated in
    /// every trial are counted.
    pub per_unit: Vec<UnitTrials>,
}

impl Trials {
    /// From each trial's (file, subset, success) list; a unit missing from
    /// some trial (it could not be evaluated there) is left out.
    pub fn new(trials: &[Vec<(String, String, bool)>]) -> Self {
        let n = trials.len();
        let mut per_unit: Vec<UnitTrials> = Vec::new();
        if let Some(first) = trials.first() {
            for (file, subset, _) in first {
                let outcomes: Vec<bool> = trials
                    .iter()
                    .filter_map(|t| t.iter().find(|(f, _, _)| f == file).map(|(_, _, ok)| *ok))
                    .collect();
                if outcomes.len() == n {
                    per_unit.push(UnitTrials {
                        file: file.clone(),
                        subset: subset.clone(),
                        successes: outcomes.iter().filter(|ok| **ok).count(),
                        trials: n,
                    });
                }
            }
        }
        let mut subsets: Vec<&str> = per_unit.iter().map(|u| u.subset.as_str()).collect();
        subsets.sort_unstable();
        subsets.dedup();
        let by_subset = subsets
            .into_iter()
            .map(|s| {
                let units = per_unit.iter().filter(|u| u.subset == s);
                (s.to_string(), PassHat::of(units, n))
            })
            .collect();
        Trials {
            trials: n,
            all: PassHat::of(&per_unit, n),
            by_subset,
            per_unit,
        }
    }
}

/// One sample of a suite scored by samples, as its trials count it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleUnit {
    pub file: String,
    /// The 0-based line the sample ends at.
    pub turn: usize,
    pub occurrence: u8,
    /// The gold call's API.
    pub api_name: String,
    /// Trials in which it was correct.
    pub successes: usize,
}

/// One sample's verdict in one trial.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleOutcome {
    pub file: String,
    pub turn: usize,
    pub occurrence: u8,
    pub api_name: String,
    pub correct: bool,
}

/// The trials of a run scored by samples (each call sample is a unit):
/// pass^k overall and per API, and each sample's successes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleTrials {
    /// Trials per sample (n).
    pub trials: usize,
    #[serde(flatten)]
    pub all: PassHat,
    /// Per gold API, in name order.
    pub by_api: BTreeMap<String, PassHat>,
    /// Samples in the order of the first trial; only samples scored in
    /// every trial are counted.
    pub per_unit: Vec<SampleUnit>,
}

impl SampleTrials {
    /// From each trial's verdicts; a sample missing from some trial (its
    /// dialogue could not be evaluated there) is left out.
    pub fn new(trials: &[Vec<SampleOutcome>]) -> Self {
        let n = trials.len();
        let key = |s: &SampleOutcome| (s.file.clone(), s.turn, s.occurrence);
        let mut tally: HashMap<(String, usize, u8), (usize, usize)> = HashMap::new();
        for trial in trials {
            for s in trial {
                let entry = tally.entry(key(s)).or_default();
                entry.0 += 1;
                entry.1 += usize::from(s.correct);
            }
        }
        let per_unit: Vec<SampleUnit> = trials
            .first()
            .into_iter()
            .flatten()
            .filter_map(|s| {
                let (seen, successes) = tally[&key(s)];
                (seen == n).then(|| SampleUnit {
                    file: s.file.clone(),
                    turn: s.turn,
                    occurrence: s.occurrence,
                    api_name: s.api_name.clone(),
                    successes,
                })
            })
            .collect();
        let as_trials = |u: &SampleUnit| UnitTrials {
            file: u.file.clone(),
            subset: u.api_name.clone(),
            successes: u.successes,
            trials: n,
        };
        let mut by_api: BTreeMap<String, Vec<UnitTrials>> = BTreeMap::new();
        for u in &per_unit {
            by_api
                .entry(u.api_name.clone())
                .or_default()
                .push(as_trials(u));
        }
        let all: Vec<UnitTrials> = per_unit.iter().map(as_trials).collect();
        SampleTrials {
            trials: n,
            all: PassHat::of(&all, n),
            by_api: by_api
                .into_iter()
                .map(|(api, units)| (api, PassHat::of(&units, n)))
                .collect(),
            per_unit,
        }
    }
}

/// One scenario's trials of a conversational run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioTrials {
    pub file: String,
    pub scenario: String,
    /// Trials in which it was completed.
    pub completed: usize,
    pub trials: usize,
    /// `pass_hat[k - 1]` is the chance that k of its trials all complete.
    pub pass_hat: Vec<f64>,
    /// Each trial's turns to completion (null: not completed).
    pub turns: Vec<Option<usize>>,
}

/// The trials of a run of conversations with a user (completion is the
/// unit): pass^k overall and per scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompletionTrials {
    /// Trials per scenario (n).
    pub trials: usize,
    #[serde(flatten)]
    pub all: PassHat,
    /// Scenarios in the order of the first trial; only scenarios run in
    /// every trial are counted.
    pub per_scenario: Vec<ScenarioTrials>,
}

impl CompletionTrials {
    /// From each trial's (file, scenario, turns to completion) list.
    pub fn new(trials: &[Vec<(String, String, Option<usize>)>]) -> Self {
        let n = trials.len();
        let per_scenario: Vec<ScenarioTrials> = trials
            .first()
            .into_iter()
            .flatten()
            .filter_map(|(file, scenario, _)| {
                let turns: Vec<Option<usize>> = trials
                    .iter()
                    .filter_map(|t| t.iter().find(|(f, _, _)| f == file).map(|(_, _, t)| *t))
                    .collect();
                (turns.len() == n).then(|| {
                    let completed = turns.iter().flatten().count();
                    ScenarioTrials {
                        file: file.clone(),
                        scenario: scenario.clone(),
                        completed,
                        trials: n,
                        pass_hat: (1..=n).map(|k| pass_hat(completed, n, k)).collect(),
                        turns,
                    }
                })
            })
            .collect();
        let units: Vec<UnitTrials> = per_scenario
            .iter()
            .map(|s| UnitTrials {
                file: s.file.clone(),
                subset: String::new(),
                successes: s.completed,
                trials: n,
            })
            .collect();
        CompletionTrials {
            trials: n,
            all: PassHat::of(&units, n),
            per_scenario,
        }
    }
}

/// pass^1 .. pass^k in words, in percent: `pass^1 83.3, pass^2 66.7`.
pub fn pass_hat_words(pass_hat: &[f64]) -> String {
    pass_hat
        .iter()
        .enumerate()
        .map(|(k, p)| format!("pass^{} {:.1}", k + 1, p * 100.0))
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

    #[test]
    fn trials_give_pass_hat_overall_and_per_subset() {
        let t = |a: bool, b: bool, c: bool| {
            vec![
                ("e/a.json".to_string(), "easy".to_string(), a),
                ("h/b.json".to_string(), "hard".to_string(), b),
                ("h/c.json".to_string(), "hard".to_string(), c),
            ]
        };
        // a: 2/2, b: 1/2, c: 0/2.
        let trials = Trials::new(&[t(true, true, false), t(true, false, false)]);
        assert_eq!(trials.trials, 2);
        assert_eq!(trials.all.units, 3);
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
        assert!(close(trials.all.pass_hat[0], (1.0 + 0.5 + 0.0) / 3.0));
        assert!(close(trials.all.pass_hat[1], 1.0 / 3.0));
        assert_eq!(trials.by_subset["easy"].pass_hat, [1.0, 1.0]);
        assert!(close(trials.by_subset["hard"].pass_hat[0], 0.25));
        assert_eq!(trials.by_subset["hard"].pass_hat[1], 0.0);
        // A unit missing from one trial is left out.
        let mut second = t(true, false, false);
        second.pop();
        let partial = Trials::new(&[t(true, true, false), second]);
        assert_eq!(partial.all.units, 2);
    }

    #[test]
    fn sample_trials_give_pass_hat_overall_and_per_api() {
        let o = |file: &str, turn: usize, api: &str, correct: bool| SampleOutcome {
            file: file.into(),
            turn,
            occurrence: 0,
            api_name: api.into(),
            correct,
        };
        // a.jsonl 1 (AddAlarm): 3/3; a.jsonl 2 (AddAlarm): 1/3; b.jsonl 1
        // (ToolSearcher): 2/3.
        let t = |x: bool, y: bool, z: bool| {
            vec![
                o("a.jsonl", 1, "AddAlarm", x),
                o("a.jsonl", 2, "AddAlarm", y),
                o("b.jsonl", 1, "ToolSearcher", z),
            ]
        };
        let trials = SampleTrials::new(&[
            t(true, true, false),
            t(true, false, true),
            t(true, false, true),
        ]);
        let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
        assert_eq!(trials.all.units, 3);
        assert!(close(
            trials.all.pass_hat[0],
            (1.0 + 1.0 / 3.0 + 2.0 / 3.0) / 3.0
        ));
        // pass^2: 1, 0, C(2,2)/C(3,2) = 1/3.
        assert!(close(trials.all.pass_hat[1], (1.0 + 0.0 + 1.0 / 3.0) / 3.0));
        assert!(close(trials.all.pass_hat[2], 1.0 / 3.0));
        assert!(close(trials.by_api["AddAlarm"].pass_hat[0], 2.0 / 3.0));
        assert_eq!(trials.by_api["AddAlarm"].pass_hat[2], 0.5);
        assert_eq!(trials.by_api["ToolSearcher"].units, 1);
        assert_eq!(trials.per_unit[1].successes, 1);
        // A sample missing from one trial is left out.
        let mut short = t(true, true, true);
        short.pop();
        let partial = SampleTrials::new(&[t(true, true, true), short]);
        assert_eq!(partial.all.units, 2);
        assert!(!partial.by_api.contains_key("ToolSearcher"));
    }

    #[test]
    fn completion_trials_give_pass_hat_overall_and_per_scenario() {
        let t = |a: Option<usize>, b: Option<usize>| {
            vec![
                ("a.txt".to_string(), "A".to_string(), a),
                ("b.txt".to_string(), "B".to_string(), b),
            ]
        };
        // A: completed 2/2; B: 1/2.
        let trials = CompletionTrials::new(&[t(Some(2), None), t(Some(3), Some(4))]);
        assert_eq!(trials.all.units, 2);
        assert_eq!(trials.all.pass_hat, [0.75, 0.5]);
        assert_eq!(trials.per_scenario[0].pass_hat, [1.0, 1.0]);
        assert_eq!(trials.per_scenario[1].pass_hat, [0.5, 0.0]);
        assert_eq!(trials.per_scenario[1].turns, [None, Some(4)]);
        // A scenario missing from one trial is left out.
        let mut short = t(Some(1), Some(1));
        short.pop();
        assert_eq!(CompletionTrials::new(&[t(None, None), short]).all.units, 1);
    }
}
