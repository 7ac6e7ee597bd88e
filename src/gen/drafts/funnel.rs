//! The funnel a run's drafts went through: per check, in order, how many
//! drafts it received, kept and dropped, and why. Each draft is counted
//! once, at the stage its reason belongs to, so each stage's `kept` is the
//! next one's input and the last stage's `kept` is the accepted drafts.

use std::collections::BTreeMap;

use serde::Serialize;

use super::DraftOutcome;

/// One check of the funnel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// The reply is a dialogue whose calls read and name known APIs and
    /// arguments (and, once run, that lint finds no other error in).
    Format,
    /// Its calls ran without raising.
    Execution,
    /// It calls the API it was drafted for.
    Target,
    /// Every argument is grounded in the dialogue or an earlier result.
    Grounding,
    /// The judge model found that the calls do what the user asked and the
    /// replies state only what the results hold.
    Judge,
}

impl Stage {
    /// The stage a draft's reason stops it at.
    pub fn of(reason: &str) -> Stage {
        match reason {
            "raised" => Stage::Execution,
            "missing-target" => Stage::Target,
            "ungrounded-argument" => Stage::Grounding,
            "judge-rejected" | "judge-unreadable" => Stage::Judge,
            // no-dialogue, no-call, malformed-call, unknown-api,
            // unknown-argument, invalid.
            _ => Stage::Format,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Stage::Format => "format",
            Stage::Execution => "execution",
            Stage::Target => "target",
            Stage::Grounding => "grounding",
            Stage::Judge => "judge",
        }
    }
}

/// What one stage did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StageCount {
    pub stage: Stage,
    /// Drafts that reached it: the previous stage's `kept` (every draft
    /// for the first).
    pub input: usize,
    pub kept: usize,
    pub dropped: usize,
    pub reasons: BTreeMap<String, usize>,
}

/// The funnel of `outcomes`; the judge's stage only when a judge was asked
/// (or an outcome kept from an earlier run was judged).
pub fn stages(outcomes: &[DraftOutcome], judged: bool) -> Vec<StageCount> {
    let judged = judged
        || outcomes
            .iter()
            .any(|o| o.reason.as_deref().map(Stage::of) == Some(Stage::Judge));
    let mut order = vec![
        Stage::Format,
        Stage::Execution,
        Stage::Target,
        Stage::Grounding,
    ];
    if judged {
        order.push(Stage::Judge);
    }
    let mut input = outcomes.len();
    order
        .into_iter()
        .map(|stage| {
            let mut reasons = BTreeMap::new();
            for reason in outcomes.iter().filter_map(|o| o.reason.as_deref()) {
                if Stage::of(reason) == stage {
                    *reasons.entry(reason.to_string()).or_default() += 1;
                }
            }
            let dropped: usize = reasons.values().sum();
            let count = StageCount {
                stage,
                input,
                kept: input - dropped,
                dropped,
                reasons,
            };
            input = count.kept;
            count
        })
        .collect()
}

/// The funnel as a small table, one line a stage.
pub fn table(stages: &[StageCount]) -> String {
    let mut text = format!(
        "  {:<10} {:>6} {:>6} {:>8}  reasons\n",
        "stage", "in", "kept", "dropped"
    );
    for s in stages {
        let reasons: Vec<String> = s.reasons.iter().map(|(r, n)| format!("{r} {n}")).collect();
        let line = format!(
            "  {:<10} {:>6} {:>6} {:>8}  {}",
            s.stage.name(),
            s.input,
            s.kept,
            s.dropped,
            reasons.join(", ")
        );
        text += line.trim_end();
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::drafts::Verdict;

    fn outcome(reason: Option<&str>) -> DraftOutcome {
        DraftOutcome {
            name: "x".into(),
            verdict: if reason.is_some() {
                Verdict::Dropped
            } else {
                Verdict::Accepted
            },
            reason: reason.map(str::to_string),
            detail: None,
            file: None,
            guessed_results: 0,
            model: None,
            judge: None,
        }
    }

    #[test]
    fn each_stage_keeps_what_the_next_receives() {
        let outcomes: Vec<DraftOutcome> = [
            Some("no-call"),
            Some("unknown-api"),
            Some("raised"),
            Some("missing-target"),
            Some("ungrounded-argument"),
            Some("ungrounded-argument"),
            Some("judge-rejected"),
            None,
            None,
        ]
        .into_iter()
        .map(outcome)
        .collect();
        let stages = stages(&outcomes, true);
        let shape: Vec<(&str, usize, usize, usize)> = stages
            .iter()
            .map(|s| (s.stage.name(), s.input, s.kept, s.dropped))
            .collect();
        assert_eq!(
            shape,
            [
                ("format", 9, 7, 2),
                ("execution", 7, 6, 1),
                ("target", 6, 5, 1),
                ("grounding", 5, 3, 2),
                ("judge", 3, 2, 1),
            ]
        );
        assert_eq!(stages[0].reasons.len(), 2);
        // Without a judge there is no judge stage.
        let unjudged: Vec<DraftOutcome> = [Some("raised"), None].into_iter().map(outcome).collect();
        let stages = super::stages(&unjudged, false);
        assert_eq!(stages.len(), 4);
        assert_eq!(stages.last().unwrap().kept, 1);
        let table = table(&stages);
        assert!(table.contains("execution"), "{table}");
        assert!(table.contains("raised 1"), "{table}");
    }
}
