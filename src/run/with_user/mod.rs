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
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use self::outcome::{ScenarioOutcome, Stop};
use self::summary::{summarise, Summary};
use crate::run::answer::llm::Llm;
use crate::run::answer::oracle::Oracle;
use crate::run::answer::{Answerer, Choice, Model, Reported};
use crate::run::conversation::user::{HumanUser, LlmUser, User};
use crate::run::conversation::{converse, Bounds};
use crate::run::driver::{self, Done, Input, Kind};
use crate::run::folder;
use crate::run::provenance::Provenance;
use crate::run::trials::{run_trials, UnitOutcome};
use crate::run::Setup;
use crate::suite::interactive::{Interactive, Scenario};
use crate::suite::{Suite, WorldOptions};
use crate::{Error, Result};

/// Who plays the user.
#[derive(Debug, Clone)]
pub enum UserSettings {
    /// A model, given the scenario's first utterance and key information.
    Llm(Model),
    /// A person at the terminal: the conversation is written to stderr
    /// and their turns read from stdin, a line each.
    Human,
}

/// One run over a set of scenario files.
#[derive(Debug, Clone)]
pub struct Run<'a> {
    pub files: &'a [PathBuf],
    /// Its answerer plays the assistant: a model, or the oracle (the
    /// scenario's own ground-truth calls, which checks the scenarios). A
    /// person's conversations are taken one at a time and never resumed.
    pub setup: Setup,
    pub world: &'a WorldOptions,
    pub user: UserSettings,
    pub bounds: Bounds,
}

/// What a run found.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The summary (of the first trial, with pass^k over every trial).
    pub summary: Summary,
    /// Whether every scenario was completed in every trial.
    pub all_completed: bool,
    /// Scenarios that could not be run to the end (a request that kept
    /// failing), each message naming its file.
    pub errors: Vec<String>,
}

/// Run every scenario of `run.files` with `suite`'s conversational
/// evaluation; a file that cannot be read is an error naming it (exit 2),
/// before any conversation starts.
pub fn evaluate(
    suite: &dyn Suite,
    interactive: &dyn Interactive,
    run: &Run<'_>,
) -> Result<Finished> {
    for path in run.files {
        let text = crate::formats::read::read_text(path)?;
        interactive.read(path, &text, &run.setup.databases)?;
    }
    let human = matches!(run.user, UserSettings::Human);
    // A person's conversations are theirs: never reused, and never
    // replaced without --reset.
    if let Some(out) = run
        .setup
        .out
        .as_deref()
        .filter(|_| human && !run.setup.reset)
    {
        let several = run.setup.trials > 1;
        let trials = 1..=run.setup.trials.max(1);
        let dirs = trials.map(|t| folder::trial_dir(out, several.then_some(t)));
        if let Some(dir) = dirs.into_iter().find(|d| transcripts::holds_transcripts(d)) {
            return Err(Error::Usage(format!(
                "{} holds conversations of an earlier run; a run with --user human never takes them over as its own: give another --out, or --reset to replace them",
                dir.display()
            )));
        }
    }
    let mut errors = Vec::new();
    let mut all_completed = true;
    let players = std::cell::RefCell::new(Players::default());
    let summary = run_trials(
        &run.setup,
        "scenario",
        "scenario",
        |trial, out| {
            let summary = run_trial(suite, interactive, run, trial, out.as_deref())?;
            errors.extend(summary.per_scenario.iter().filter_map(|o| {
                let error = o.error.as_ref()?;
                Some(match trial {
                    Some(t) => format!("{} (trial {t}): {error}", o.file),
                    None => format!("{}: {error}", o.file),
                })
            }));
            all_completed &= summary.completed == summary.scenarios;
            players.borrow_mut().add(&summary.per_scenario);
            Ok(summary)
        },
        |summary| {
            let units = summary.per_scenario.iter();
            units
                .map(|o| UnitOutcome::file(&o.file, Some(o.scenario.clone()), o.completed))
                .collect()
        },
        // Every trial's players, as the first trial's were named.
        |summary| players.borrow().name(run, interactive, summary),
        |dir, summary| transcripts::write_summary(dir, summary, interactive.family()),
    )?;
    Ok(Finished {
        summary,
        all_completed,
        errors,
    })
}

/// The settings a transcript is reused under: who plays each side (and
/// how), the bounds of a conversation, the retriever, the databases, the
/// talkforge version and the trial.
fn settings_json(run: &Run<'_>, trial: Option<usize>) -> Value {
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
        "max_turns": run.bounds.max_turns,
        "max_calls_per_turn": run.bounds.max_calls_per_turn,
        "retriever": run.world.retriever_name(),
        "databases_sha256": run.setup.provenance.databases.sha256,
        "talkforge_version": env!("CARGO_PKG_VERSION"),
        "trial": trial,
    })
}

/// Conversations with a user as a kind of evaluation: each scenario
/// talked through with a fresh assistant and user.
struct Conversations<'a> {
    settings: Value,
    suite: &'a dyn Suite,
    interactive: &'a dyn Interactive,
    assistant: &'a dyn Answerer,
    /// The model that plays the user; None: a person, never resumed.
    user: Option<&'a Llm>,
    run: &'a Run<'a>,
}

impl Conversations<'_> {
    /// The user of one scenario's conversation.
    fn user(&self, scenario: &Scenario) -> std::result::Result<Box<dyn User + '_>, String> {
        let Some(model) = self.user else {
            let read = Box::new(|line: &mut String| std::io::stdin().read_line(line));
            let echo = !std::io::stdin().is_terminal();
            let person = HumanUser::new(read, std::io::stderr(), scenario, echo)?;
            return Ok(Box::new(person));
        };
        let prompt = self.interactive.user_prompt(scenario)?;
        Ok(Box::new(LlmUser::new(model, prompt)))
    }
}

impl Kind for Conversations<'_> {
    type Outcome = ScenarioOutcome;
    type Detail = ();

    const UNIT: &'static str = "scenario";
    const FOLDER: &'static str = transcripts::TRANSCRIPTS_DIR;

    fn settings(&self) -> &Value {
        &self.settings
    }

    fn resumes(&self) -> bool {
        self.user.is_some()
    }

    fn evaluate(&self, input: &Input<'_>) -> Result<(ScenarioOutcome, ())> {
        let databases = &self.run.setup.databases;
        let scenario = self.interactive.read(input.path, input.text, databases)?;
        let file = input.path.display().to_string();
        let world = self
            .suite
            .world(databases, &scenario.dialogue, self.run.world)
            .map_err(|e| format!("the world: {e}"));
        let outcome = match (self.user(&scenario), world) {
            (Ok(mut user), Ok(world)) => converse(
                self.interactive,
                (&file, &scenario),
                (world.as_ref(), databases),
                self.assistant,
                user.as_mut(),
                self.run.bounds,
            ),
            (Err(e), _) | (_, Err(e)) => ScenarioOutcome::failed(&file, &scenario, e),
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

/// One trial (`None` for a run of one), its outputs in `out`.
fn run_trial(
    suite: &dyn Suite,
    interactive: &dyn Interactive,
    run: &Run<'_>,
    trial: Option<usize>,
    out: Option<&Path>,
) -> Result<Summary> {
    // Each model with the template of its prompts.
    let [assistant_prompt, user_prompt] = interactive.prompts();
    let model = |m: &Model, (name, text): (&str, &str)| {
        let template = (name.to_string(), crate::llm::sha256_hex(text.as_bytes()));
        m.llm(trial, Default::default(), [template].into())
    };
    let assistant: Box<dyn Answerer> = match &run.setup.answerer {
        Choice::Llm(m) => Box::new(model(m, assistant_prompt)),
        Choice::Oracle | Choice::Replay(_) => Box::new(Oracle),
    };
    let user = match &run.user {
        UserSettings::Llm(m) => Some(model(m, user_prompt)),
        UserSettings::Human => None,
    };
    let kind = Conversations {
        settings: settings_json(run, trial),
        suite,
        interactive,
        assistant: assistant.as_ref(),
        user: user.as_ref(),
        run,
    };
    let plan = Setup {
        // A person talks through one scenario at a time.
        threads: if user.is_none() {
            Some(1)
        } else {
            run.setup.threads
        },
        progress: false,
        ..run.setup.clone()
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
    let dataset = std::mem::take(&mut pass.dataset);
    let mut summary = summarise(
        suite.name(),
        interactive.level(),
        per_scenario,
        run.bounds.max_turns,
        kind.settings,
        pass,
    );
    summary.provenance = Some(Provenance::of_run(
        suite.name(),
        &dataset,
        &run.setup.provenance,
        assistant.as_ref(),
        std::iter::empty(),
    ));
    let mut players = Players::default();
    players.add(&summary.per_scenario);
    players.name(run, interactive, &mut summary);
    Ok(summary)
}

/// What the players said of themselves over a run's conversations (of
/// one trial, or of every trial).
#[derive(Debug, Default)]
struct Players {
    /// The models the server said answered, in order of first answer.
    assistant_models: Vec<String>,
    user_models: Vec<String>,
    /// Whether any scenario asked the user a thing.
    user_asked: bool,
}

impl Players {
    fn add(&mut self, outcomes: &[ScenarioOutcome]) {
        let assistant = outcomes.iter().flat_map(|o| &o.assistant_models);
        self.assistant_models = Reported::all(self.assistant_models.iter().chain(assistant));
        let user = outcomes.iter().flat_map(|o| &o.user_models);
        self.user_models = Reported::all(self.user_models.iter().chain(user));
        self.user_asked |= outcomes.iter().any(|o| o.user_asked);
    }

    /// The players in `summary` as they name themselves, and the models
    /// they were and the servers reported in its provenance; a model that
    /// plays the user is named only when it was asked.
    fn name(&self, run: &Run<'_>, interactive: &dyn Interactive, summary: &mut Summary) {
        summary.figures.assistant = match &run.setup.answerer {
            Choice::Llm(s) => format!("llm:{}", s.model),
            Choice::Oracle | Choice::Replay(_) => "oracle".into(),
        };
        let asked = match &run.user {
            UserSettings::Llm(s) if self.user_asked => Some(s),
            _ => None,
        };
        summary.figures.user = match (&run.user, asked) {
            (_, Some(s)) => format!("llm:{}", s.model),
            (UserSettings::Llm(_), None) => "not asked".into(),
            (UserSettings::Human, _) => "human".into(),
        };
        let Some(p) = summary.provenance.as_mut() else {
            return;
        };
        p.predictor = summary.figures.assistant.clone();
        p.models_reported = self.assistant_models.clone();
        p.user_models_reported = self.user_models.clone();
        if let Some(s) = asked {
            let (name, text) = interactive.prompts()[1];
            p.user_model_requested = Some(s.model.clone());
            let template = crate::llm::sha256_hex(text.as_bytes());
            p.prompt_templates.insert(name.to_string(), template);
        }
    }
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
        let mut summary = summarise(
            "apibank",
            3,
            per_scenario,
            20,
            Value::Null,
            Default::default(),
        );
        summary.figures.assistant = "llm:m".into();
        summary.figures.user = "human".into();
        insta::assert_snapshot!("level3_human_report", human(&summary));
    }
}
