//! `evaluate` by conversations with a user, for any suite with scenarios
//! for a simulated user (API-Bank's level 3): each scenario the suite
//! reads is talked through with a fresh assistant and user (models, the
//! oracle, a person), on the one driver (in parallel but for a person,
//! each transcript kept in the run folder and reused by a later run with
//! the same settings), over one trial or several; then the summary, its
//! report and the words on stdout.

pub mod outcome;
pub mod runs;
pub mod summary;
pub mod transcripts;

use std::io::IsTerminal;

use serde_json::{json, Value};

use self::outcome::{failed, ScenarioOutcome, Stop};
use self::summary::{summarise, Summary};
use crate::eval::provenance::Provenance;
use crate::run::answer::oracle::Oracle;
use crate::run::answer::{Answerer, Choice, Model, Reported};
use crate::run::conversation::user::{HumanUser, LlmUser, User};
use crate::run::conversation::Assistant;
use crate::run::driver::{self, Done, Input, Kind, Plan};
use crate::run::folder;
use crate::run::trials::{run_trials, UnitOutcome};
use crate::suite::interactive::{
    ConversationOptions, Interactive, InteractiveRun, InteractiveSummary, Scenario, UserSettings,
};
use crate::{Error, Result};

/// Run every scenario of `run.files` with `suite`'s conversational
/// evaluation; a file that cannot be read is an error naming it (exit 2),
/// before any conversation starts.
pub fn evaluate(
    suite: &'static str,
    interactive: &dyn Interactive,
    run: &InteractiveRun<'_>,
) -> Result<InteractiveSummary> {
    Evaluation { suite, interactive }.run(run)
}

/// One suite's conversational evaluation.
struct Evaluation<'a> {
    suite: &'static str,
    interactive: &'a dyn Interactive,
}

impl Evaluation<'_> {
    fn run(&self, run: &InteractiveRun<'_>) -> Result<InteractiveSummary> {
        // Every scenario is read before any conversation starts.
        for path in run.files {
            let text = crate::formats::read::read_text(path)?;
            self.interactive.read(path, &text, run.setup.databases)?;
        }
        // A person's conversations are theirs: never reused, and never
        // replaced without --reset.
        if matches!(run.user, UserSettings::Human) && !run.setup.reset {
            let trials: Vec<Option<usize>> = match run.setup.trials {
                0 | 1 => vec![None],
                n => (1..=n).map(Some).collect(),
            };
            if let Some(dir) = run.setup.out.as_deref().and_then(|out| {
                trials
                    .into_iter()
                    .map(|t| folder::trial_dir(out, t))
                    .find(|d| transcripts::holds_transcripts(d))
            }) {
                return Err(Error::Usage(format!(
                    "{} holds conversations of an earlier run; a run with --user human never takes them over as its own: give another --out, or --reset to replace them",
                    dir.display()
                )));
            }
        }
        let mut errors = Vec::new();
        let mut every_trial_completed = true;
        // The models reported in any trial, and a user asked in any trial.
        let mut reported: (Vec<String>, Vec<String>) = Default::default();
        let mut asked_user: Option<(String, Option<Provenance>)> = None;
        let mut summary = run_trials(
            &run.setup,
            "scenario",
            "scenario",
            run.files.len(),
            |trial, out| {
                let summary = self.run_trial(run, trial, out.as_deref())?;
                errors.extend(summary.per_scenario.iter().filter_map(|o| {
                    let error = o.error.as_ref()?;
                    Some(match trial {
                        Some(t) => format!("{} (trial {t}): {error}", o.file),
                        None => format!("{}: {error}", o.file),
                    })
                }));
                every_trial_completed &= summary.completed == summary.scenarios;
                if let Some(p) = &summary.provenance {
                    reported.0 = Reported::all(reported.0.iter().chain(&p.models_reported));
                    reported.1 = Reported::all(reported.1.iter().chain(&p.user_models_reported));
                }
                if asked_user.is_none() && summary.user != USER_NOT_ASKED {
                    asked_user = Some((summary.user.clone(), summary.provenance.clone()));
                }
                Ok(summary)
            },
            |summary| {
                let units = summary.per_scenario.iter();
                units
                    .map(|o| UnitOutcome::file(&o.file, Some(o.scenario.clone()), o.completed))
                    .collect()
            },
        )?;
        if summary.trials.is_some() {
            if let (Some((user, Some(asked))), Some(p)) = (asked_user, summary.provenance.as_mut())
            {
                summary.figures.user = user;
                p.user_model_requested = asked.user_model_requested;
                p.prompt_templates = asked.prompt_templates;
            }
            if let Some(p) = summary.provenance.as_mut() {
                (p.models_reported, p.user_models_reported) = reported;
            }
            if let Some(dir) = &run.setup.out {
                transcripts::write_summary(dir, &summary, self.interactive.family())?;
            }
        }
        Ok(InteractiveSummary {
            json: serde_json::to_value(&summary).expect("the summary serialises"),
            human: human(&summary),
            all_completed: every_trial_completed,
            errors,
        })
    }
}

/// The settings a transcript is reused under: who plays each side (and
/// how), the bounds of a conversation, the retriever, the databases, the
/// talkforge version and the trial.
fn settings_json(run: &InteractiveRun<'_>, trial: Option<usize>) -> Value {
    let model = |s: &Model| json!({"model": s.model, "temperature": s.temperature, "max_tokens": s.max_tokens});
    json!({
        "assistant": match &run.setup.answerer {
            Choice::Llm(s) => model(s),
            Choice::Oracle | Choice::Replay(_) => json!("oracle"),
        },
        "user": match &run.user {
            UserSettings::Llm(s) => model(s),
            UserSettings::Human => json!("human"),
        },
        "max_turns": run.max_turns,
        "max_calls_per_turn": run.max_calls_per_turn,
        "retriever": run.world.retriever_name(),
        "databases_sha256": run.setup.databases_sha256,
        "talkforge_version": env!("CARGO_PKG_VERSION"),
        "trial": trial,
    })
}

/// Makes the user for one scenario.
type Users<'a> =
    dyn Fn(&dyn Scenario) -> std::result::Result<Box<dyn User + 'a>, String> + Sync + 'a;

/// Conversations with a user as a kind of evaluation: each scenario
/// talked through with a fresh assistant and user.
struct Conversations<'a> {
    settings: Value,
    /// A person plays the user: never resumed.
    human: bool,
    assistant: &'a dyn Answerer,
    user: &'a Users<'a>,
    interactive: &'a dyn Interactive,
    options: ConversationOptions<'a>,
}

impl Kind for Conversations<'_> {
    type Outcome = ScenarioOutcome;
    type Detail = ();

    fn unit(&self) -> &'static str {
        "scenario"
    }

    fn folder(&self) -> &'static str {
        transcripts::TRANSCRIPTS_DIR
    }

    fn settings(&self) -> &Value {
        &self.settings
    }

    fn resumes(&self) -> bool {
        !self.human
    }

    fn evaluate(&self, input: &Input<'_>) -> Result<(ScenarioOutcome, ())> {
        let scenario = self
            .interactive
            .read(input.path, input.text, self.options.databases)?;
        let scenario = scenario.as_ref();
        let file = input.path.display().to_string();
        let mut assistant = Assistant::new(
            self.assistant,
            scenario.name(),
            scenario.assistant_prompt(),
            scenario.oracle_calls(),
        );
        let outcome = match (self.user)(scenario) {
            Ok(mut u) => {
                let mut outcome =
                    scenario.converse(&file, &mut assistant, u.as_mut(), &self.options);
                outcome.assistant_models = assistant.models();
                outcome.user_models = u.models();
                outcome
            }
            Err(e) => failed(&file, scenario, e),
        };
        Ok((outcome, ()))
    }

    fn write_output(
        &self,
        input: &Input<'_>,
        stamp: &Value,
        outcome: &ScenarioOutcome,
        _: (),
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        transcripts::write_transcript(out, input.rel, stamp, outcome)
    }

    fn resume(&self, input: &Input<'_>, stored: Value) -> Option<ScenarioOutcome> {
        transcripts::resume(input.path, stored)
    }
}

impl Evaluation<'_> {
    /// One trial (`None` for a run of one), its outputs in `out`.
    fn run_trial(
        &self,
        run: &InteractiveRun<'_>,
        trial: Option<usize>,
        out: Option<&std::path::Path>,
    ) -> Result<Summary> {
        let started = run.setup.meter.reading();
        // Each model with the template of its prompts.
        let [assistant_prompt, user_prompt] = self.interactive.prompts();
        let model = |m: &Model, (name, text): (&str, &str)| {
            let template = (name.to_string(), crate::llm::sha256_hex(text.as_bytes()));
            m.llm(trial, Default::default(), [template].into())
        };
        let assistant: Box<dyn Answerer> = match &run.setup.answerer {
            Choice::Llm(m) => Box::new(model(m, assistant_prompt)),
            Choice::Oracle | Choice::Replay(_) => Box::new(Oracle),
        };
        let user_model = match &run.user {
            UserSettings::Llm(m) => Some(model(m, user_prompt)),
            UserSettings::Human => None,
        };
        let user = |scenario: &dyn Scenario| -> std::result::Result<Box<dyn User + '_>, String> {
            match &user_model {
                Some(model) => Ok(Box::new(LlmUser::new(model, scenario.user_prompt()?))),
                None => Ok(Box::new(
                    HumanUser::new(
                        Box::new(|line: &mut String| std::io::stdin().read_line(line)),
                        std::io::stderr(),
                        &scenario.brief(),
                    )?
                    .echoing(!std::io::stdin().is_terminal()),
                )),
            }
        };
        let human = matches!(run.user, UserSettings::Human);
        let kind = Conversations {
            settings: settings_json(run, trial),
            human,
            assistant: assistant.as_ref(),
            user: &user,
            interactive: self.interactive,
            options: ConversationOptions {
                databases: run.setup.databases,
                world: run.world,
                max_turns: run.max_turns,
                max_calls_per_turn: run.max_calls_per_turn,
            },
        };
        let plan = Plan {
            // A person talks through one scenario at a time.
            threads: if human { Some(1) } else { run.setup.threads },
            progress: false,
            ..Plan::of(&run.setup)
        };
        let mut per_scenario = Vec::with_capacity(run.files.len());
        let mut pass = driver::evaluate(&kind, run.files, &plan, out, |done| match done {
            Done::Evaluated {
                mut outcome,
                resumed,
            } => {
                outcome.resumed = resumed;
                per_scenario.push(outcome);
            }
            // Each scenario was read before any conversation started.
            Done::Failed(_) => {}
        })?;
        if let Some(failure) = pass.failures.first() {
            return Err(Error::Other(failure.error.clone()));
        }
        let user_asked = per_scenario.iter().any(|o| o.user_asked);
        let (assistant_name, user_name) = names(run, user_asked);
        let dataset = std::mem::take(&mut pass.dataset);
        let mut summary = summarise(
            self.suite,
            self.interactive.level(),
            per_scenario,
            run.max_turns,
            assistant_name.clone(),
            user_name,
            kind.settings,
            pass,
        );
        let mut provenance = Provenance::of_run(
            self.suite,
            &dataset,
            &run.setup.provenance,
            &run.setup.databases_sha256,
            assistant.as_ref(),
            summary
                .per_scenario
                .iter()
                .flat_map(|o| &o.assistant_models),
        );
        provenance.predictor = assistant_name;
        // Only a model that was asked is named.
        if let Some(user) = user_model.filter(|_| user_asked) {
            provenance.user_model_requested = user.settings().model;
            provenance.prompt_templates.extend(user.prompt_templates());
        }
        provenance.user_models_reported =
            Reported::all(summary.per_scenario.iter().flat_map(|o| &o.user_models));
        summary.provenance = Some(provenance);
        summary.usage = run.setup.meter.since(&started);
        if let Some(dir) = out {
            transcripts::write_summary(dir, &summary, self.interactive.family())?;
        }
        Ok(summary)
    }
}

/// What the user is said to be when no scenario asked it a thing.
const USER_NOT_ASKED: &str = "not asked";

/// The names of the players, as they name themselves; a model that plays
/// the user is named only when it was asked (`user_asked`).
fn names(run: &InteractiveRun<'_>, user_asked: bool) -> (String, String) {
    (
        match &run.setup.answerer {
            Choice::Llm(s) => format!("llm:{}", s.model),
            Choice::Oracle | Choice::Replay(_) => "oracle".into(),
        },
        match &run.user {
            UserSettings::Llm(s) if user_asked => format!("llm:{}", s.model),
            UserSettings::Llm(_) => USER_NOT_ASKED.into(),
            UserSettings::Human => "human".into(),
        },
    )
}

/// One line a scenario, then the totals.
pub fn human(s: &Summary) -> String {
    let mut out = format!(
        "{} level {}: {}, assistant {}, user {}, at most {} turns\n",
        s.suite,
        s.level,
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
        "completed {}/{} ({}), mean turns to completion {mean}\n",
        s.completed,
        s.scenarios,
        s.completion_rate.map_or_else(
            || "-".to_string(),
            |r| format!("{}%", crate::report::pct(r))
        )
    );
    if let Some(t) = &s.state_check {
        out += &format!(
            "state check: {}\n",
            crate::eval::report::state_totals(t, "scenario")
        );
    }
    out + &s.human_footer("scenario", " (completion)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::with_user::outcome::{CallAt, ScenarioOutcome};
    use crate::suite::state::{StateCheck, StateWrite, WriteKind};

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
            state_check: Some(StateCheck::default()),
            assistant_models: Vec::new(),
            user_models: Vec::new(),
            user_asked: false,
            resumed: false,
            transcript: Vec::new(),
        }
    }

    #[test]
    fn the_human_report_has_a_line_a_scenario_and_the_totals() {
        let mut shopping = outcome("Shopping", None, Stop::MaxTurns);
        shopping.state_check = Some(StateCheck::new(vec![StateWrite {
            turn: 20,
            kind: WriteKind::Collateral,
            database: "Reminder".into(),
            record: "3".into(),
            item: None,
        }]));
        let per_scenario = vec![
            outcome("Financial Management", Some(4), Stop::Completed),
            shopping,
            outcome("Reminder", None, Stop::UserLeft),
        ];
        let summary = summarise(
            "apibank",
            3,
            per_scenario,
            20,
            "llm:m".into(),
            "human".into(),
            Value::Null,
            Default::default(),
        );
        insta::assert_snapshot!("level3_human_report", human(&summary));
    }
}
