//! `evaluate --level 3` for API-Bank: the seam's [`Interactive`] over the
//! scenario files, with the assistant and the user the run names.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use super::assistant::{Assistant, LlmAssistant, Oracle};
use super::chat::ChatModel;
use super::run::{run_scenarios, Level3Options, Stop, Summary};
use super::user::{HumanUser, LlmUser, User};
use super::{is_scenario_path, read_scenario, Scenario};
use crate::suite::interactive::{
    AssistantSettings, Interactive, InteractiveRun, InteractiveSummary, UserSettings,
};
use crate::{Error, Result};

/// API-Bank's level 3.
pub struct Level3;

impl Interactive for Level3 {
    fn level(&self) -> u8 {
        3
    }

    fn is_scenario(&self, path: &std::path::Path) -> bool {
        is_scenario_path(path)
    }

    fn run(&self, run: &InteractiveRun<'_>) -> Result<InteractiveSummary> {
        let mut scenarios: Vec<(PathBuf, Scenario)> = Vec::with_capacity(run.files.len());
        for path in run.files {
            let scenario = read_scenario(path)?;
            let conversation = super::dialogue::conversation(&scenario);
            crate::suite::missing_database(super::super::catalog(), run.databases, &conversation)
                .map_err(|m| Error::input(path, m))?;
            scenarios.push((path.clone(), scenario));
        }
        let runtime = ChatModel::runtime()?;
        let assistant_model = match &run.assistant {
            AssistantSettings::Llm(settings) => {
                Some(Arc::new(ChatModel::new(settings.clone(), runtime.clone())?))
            }
            AssistantSettings::Oracle => None,
        };
        let user_model = match &run.user {
            UserSettings::Llm(settings) => {
                Some(Arc::new(ChatModel::new(settings.clone(), runtime.clone())?))
            }
            UserSettings::Human => None,
        };
        let assistant = |scenario: &Scenario| -> std::result::Result<Box<dyn Assistant>, String> {
            Ok(match &assistant_model {
                Some(model) => Box::new(LlmAssistant::new(model.clone())),
                None => Box::new(Oracle::new(scenario)),
            })
        };
        let user = |scenario: &Scenario| -> std::result::Result<Box<dyn User>, String> {
            match &user_model {
                Some(model) => Ok(Box::new(LlmUser::new(model.clone(), scenario)?)),
                None => Ok(Box::new(
                    HumanUser::new(
                        Box::new(|line: &mut String| std::io::stdin().read_line(line)),
                        std::io::stderr(),
                        scenario,
                    )?
                    .echoing(!std::io::stdin().is_terminal()),
                )),
            }
        };
        let options = Level3Options {
            databases: run.databases,
            world: run.world,
            max_turns: run.max_turns,
            max_calls_per_turn: run.max_calls_per_turn,
            parallel: if user_model.is_some() {
                run.parallel
            } else {
                1
            },
        };
        let summary = run_scenarios(&scenarios, &assistant, &user, &options);
        Ok(InteractiveSummary {
            json: serde_json::to_value(&summary).expect("the summary serialises"),
            human: human(&summary),
            all_completed: summary.completed == summary.scenarios,
            errors: summary
                .per_scenario
                .iter()
                .filter_map(|o| Some(format!("{}: {}", o.file, o.error.as_ref()?)))
                .collect(),
        })
    }
}

/// One line a scenario, then the totals.
pub fn human(s: &Summary) -> String {
    let mut out = format!(
        "API-Bank level 3: {}, assistant {}, user {}, at most {} turns\n",
        crate::words::count(s.scenarios, "scenario"),
        s.assistant,
        s.user,
        s.max_turns
    );
    for o in &s.per_scenario {
        let made = format!(
            "{}/{} ground-truth calls",
            o.ground_truth_made, o.ground_truth
        );
        let how = match (o.turns, o.stopped) {
            (Some(turns), _) => format!("completed in {}", crate::words::count(turns, "turn")),
            (None, Stop::MaxTurns) => format!(
                "not completed in {}",
                crate::words::count(o.turns_taken, "turn")
            ),
            (None, Stop::UserLeft) => format!(
                "not completed: the user left after {}",
                crate::words::count(o.turns_taken, "turn")
            ),
            (None, _) => format!("failed: {}", o.error.as_deref().unwrap_or("unknown error")),
        };
        out += &format!(
            "  {}: {how} ({made}, {} made)\n",
            o.scenario,
            crate::words::count(o.calls, "call")
        );
        if !o.ground_truth_raising.is_empty() {
            let n = o.ground_truth_raising.len();
            out += &format!(
                "    {n} of its ground-truth calls {} as written\n",
                if n == 1 { "raises" } else { "raise" }
            );
        }
    }
    let mean = s
        .mean_turns
        .map_or_else(|| "none completed".to_string(), |m| format!("{m:.2}"));
    out += &format!(
        "completed {}/{} ({:.1}%), mean turns to completion {mean}\n",
        s.completed,
        s.scenarios,
        s.completion_rate * 100.0
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::apibank::level3::run::{CallAt, ScenarioOutcome};

    fn outcome(name: &str, turns: Option<usize>, stopped: Stop) -> ScenarioOutcome {
        ScenarioOutcome {
            file: format!("{name}.txt"),
            scenario: name.into(),
            scene: name.into(),
            completed: turns.is_some(),
            turns,
            turns_taken: turns.unwrap_or(20),
            stopped,
            ground_truth: 4,
            ground_truth_made: if turns.is_some() { 4 } else { 1 },
            made: Vec::new(),
            calls: 6,
            missing: Vec::new(),
            ground_truth_raising: vec![CallAt {
                line: 22,
                api_name: "QueryBalance".into(),
                exception: Some("The token is incorrect.".into()),
            }],
            error: None,
            transcript: Vec::new(),
        }
    }

    #[test]
    fn the_human_report_has_a_line_a_scenario_and_the_totals() {
        let summary = Summary {
            suite: "apibank",
            level: 3,
            scenarios: 3,
            completed: 1,
            completion_rate: 1.0 / 3.0,
            mean_turns: Some(4.0),
            max_turns: 20,
            assistant: "llm:m".into(),
            user: "human".into(),
            per_scenario: vec![
                outcome("Financial Management", Some(4), Stop::Completed),
                outcome("Shopping", None, Stop::MaxTurns),
                outcome("Reminder", None, Stop::UserLeft),
            ],
        };
        insta::assert_snapshot!("level3_human_report", human(&summary));
    }
}
