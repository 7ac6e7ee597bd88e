//! pass^k, as tau-bench defines it: the chance that an assistant succeeds
//! in *all* of k independent trials of the same task, estimated from
//! n >= k trials per task as C(c, k) / C(n, k) (c the task's successes)
//! and averaged over tasks. pass^1 is the mean success rate; pass^k falls
//! as k grows unless the assistant is reliable.
//!
//! A task here is any pass/fail unit: a conversation (ToolTalk) or a
//! sample (suites scored by samples).

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
}
