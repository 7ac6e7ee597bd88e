//! Evaluating a set of conversation files: simulate and score each one
//! with the suite's protocol (in parallel), write its output file, resume
//! from an earlier run's files, and gather the summary in file order.
//!
//! Files are evaluated a window at a time and each result is kept only as
//! its small per-conversation entry, so memory stays flat as the dataset
//! grows.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::failure::Context;
use super::outcome::{models_in, ConversationResult};
use super::output::{annotate, turn_outcomes, Evaluated, RunInfo};
use super::replay::ConversationLines;
use super::summary::{Summary, Tally};
use crate::dialogue::Conversation;
use crate::formats::read::json_error;
use crate::formats::write_python_json;
use crate::run::answer::{Answerer, Settings};
use crate::run::driver::{self, Done, Input, Kind};
use crate::run::provenance::Provenance;
use crate::run::replayed;
use crate::run::trials::{run_trials, UnitOutcome};
use crate::run::turn_request::{TurnPrompt, SYSTEM_TEMPLATE, SYSTEM_TEMPLATE_NAME};
use crate::run::Setup;
use crate::suite::format::LintReading;
use crate::suite::protocol::SimulateError;
use crate::suite::state::StateCheck;
use crate::suite::{Suite, TextSimilarity};
use crate::{Error, Result};

/// A text similarity the run can name and ask about failures.
pub trait Similarity: TextSimilarity {
    fn name(&self) -> String;
    /// An error that made a comparison impossible (a failing endpoint).
    fn failure(&self) -> Option<String> {
        None
    }
}

/// The strict similarity of tests, named.
impl Similarity for crate::suite::similarity::ExactText {
    fn name(&self) -> String {
        "exact".to_string()
    }
}

/// How to run.
#[derive(Clone)]
pub struct RunOptions<'a> {
    /// The suite whose protocol evaluates the files.
    pub suite: &'a dyn Suite,
    pub setup: Setup,
    pub max_calls_per_turn: usize,
    /// What a model is shown of the tools.
    pub prompt: TurnPrompt,
}

/// Subfolder of `--out` holding the per-conversation files.
pub const CONVERSATIONS_DIR: &str = "conversations";

/// Whole conversations as a kind of evaluation: each one simulated with
/// the answerer and scored by the suite's protocol.
struct Conversations<'a> {
    answerer: &'a dyn Answerer,
    similarity: &'a dyn Similarity,
    options: &'a RunOptions<'a>,
    settings: Value,
}

impl Kind for Conversations<'_> {
    type Outcome = ConversationResult;
    /// The conversation file as read, annotated with the evaluation.
    type Detail = Option<Value>;

    const UNIT: &'static str = "conversation";
    const FOLDER: &'static str = CONVERSATIONS_DIR;

    fn settings(&self) -> &Value {
        &self.settings
    }

    fn evaluate(&self, input: &Input<'_>) -> Result<(ConversationResult, Option<Value>)> {
        let options = self.options;
        let path = input.path;
        let conversation = options.suite.parse_dialogue(path, input.text)?;
        let simulation = replayed::simulate(
            options.suite,
            &options.setup.databases,
            &conversation,
            self.answerer,
            &options.prompt,
            options.max_calls_per_turn,
        )
        .map_err(|e| match e {
            SimulateError::Setup(m) => Error::input(path, m),
            SimulateError::Predict(p) => Error::Other(format!("{}: {p}", path.display())),
        })?;
        let scoring = replayed::score_simulation(options.suite, &simulation, self.similarity);
        if let Some(failure) = self.similarity.failure() {
            return Err(Error::Other(format!(
                "{}: text similarity failed: {failure}",
                path.display()
            )));
        }
        let answers = simulation.turns.iter().flat_map(|t| {
            let calls = t.calls.iter().map(|c| c.metadata.as_ref());
            calls.chain(t.answer.as_ref().map(|a| a.metadata.as_ref()))
        });
        let evaluated = Evaluated {
            name: conversation.name.clone(),
            conversation_id: conversation.conversation_id.clone(),
            metrics: scoring.metrics,
            models_reported: models_in(answers),
            turns: turn_outcomes(&simulation, &scoring),
            state_check: simulation.state.clone().map(StateCheck::new),
            errata: Cow::Borrowed(&conversation.errata),
        };
        // The annotated document is only built for an output file.
        let document = match options.setup.out.is_some() {
            true => {
                let mut document = self.document(input, &conversation)?;
                annotate(&mut document, &simulation, &evaluated);
                Some(document)
            }
            false => None,
        };
        Ok((self.result(input, evaluated, false), document))
    }

    fn write_output(
        &self,
        _input: &Input<'_>,
        stamp: &Value,
        _outcome: &ConversationResult,
        document: Option<Value>,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let mut document = document.unwrap_or(Value::Null);
        if let Value::Object(root) = &mut document {
            root.insert("evaluation".into(), stamp.clone());
        }
        write_python_json(&document, out)
    }

    fn resume(&self, input: &Input<'_>, document: Value) -> Option<ConversationResult> {
        let evaluated = Evaluated::read(document)
            .map_err(|e| {
                eprintln!(
                    "warning: {}: {e}; evaluating it again",
                    input.path.display()
                )
            })
            .ok()?;
        Some(self.result(input, evaluated, true))
    }
}

impl Conversations<'_> {
    /// A conversation's result, evaluated now or read back (`resumed`):
    /// the one place both paths meet.
    fn result(
        &self,
        input: &Input<'_>,
        evaluated: Evaluated<'_>,
        resumed: bool,
    ) -> ConversationResult {
        let path = input.path;
        let errata = self
            .options
            .setup
            .errata
            .for_dialogue(path, &evaluated.errata);
        let context = Context {
            injected: self.options.suite.injected_argument(),
            errata: &errata,
        };
        ConversationResult {
            file: path.to_string_lossy().into_owned(),
            subset: crate::formats::folder_name(path).unwrap_or_default(),
            name: evaluated.name,
            conversation_id: evaluated.conversation_id,
            conversation_sha256: input.sha256.map(str::to_string),
            resumed,
            state_check: evaluated.state_check,
            models_reported: evaluated.models_reported,
            ..ConversationResult::new(evaluated.metrics, &evaluated.turns, &context)
        }
    }

    /// The output file before its annotation: a file in the model's JSON as
    /// written (its key order and extra fields kept); one in another format,
    /// as the model reads it.
    fn document(&self, input: &Input<'_>, conversation: &Conversation) -> Result<Value> {
        let path = input.path;
        match self.options.suite.format_of(path).lint {
            LintReading::Conversation | LintReading::Tasks(_) => {
                serde_json::from_str(input.text).map_err(|e| json_error(path, &e))
            }
            _ => serde_json::to_value(conversation).map_err(|e| Error::Other(e.to_string())),
        }
    }
}

/// Evaluate `files` and summarise them; with `options.setup.out`, also write
/// each conversation's file there ([`evaluate`] adds `summary.json` and
/// `report.md`). A
/// conversation that cannot be evaluated does not stop the others: the
/// summary (and `summary.json`) is over those evaluated and lists the
/// failures (see [`driver::failures_error`]).
pub fn evaluate_files(
    files: &[PathBuf],
    answerer: &dyn Answerer,
    similarity: &dyn Similarity,
    options: &RunOptions<'_>,
) -> Result<Summary> {
    let crate::suite::Evaluation::Conversations = options.suite.evaluation() else {
        return Err(Error::Usage(format!(
            "the {} suite is evaluated by samples at levels, not by conversations",
            options.suite.name()
        )));
    };
    let info = RunInfo {
        predictor: answerer.name(),
        settings: answerer.settings(),
        similarity: similarity.name(),
        max_calls_per_turn: options.max_calls_per_turn,
        databases_sha256: options.setup.provenance.databases.sha256.clone(),
        talkforge_version: env!("CARGO_PKG_VERSION").to_string(),
    };
    let kind = Conversations {
        answerer,
        similarity,
        options,
        settings: serde_json::to_value(&info).expect("run info serializes"),
    };
    let mut tally = Tally::with_capacity(files.len());
    let mut pass = driver::evaluate(
        &kind,
        files,
        &options.setup,
        options.setup.out.as_deref(),
        |done| {
            if let Done::Evaluated { outcome, .. } = done {
                tally.add(outcome);
            }
        },
    )?;
    let dataset = std::mem::take(&mut pass.dataset);
    let mut summary = tally.summary(info, pass);
    summary.provenance = Some(Provenance::of_run(
        options.suite.name(),
        &dataset,
        &options.setup.provenance,
        answerer,
        summary
            .per_conversation
            .iter()
            .flat_map(|c| &c.models_reported),
    ));
    Ok(summary)
}

/// Evaluate `files` with the setup's answerer over its trials: one run as
/// [`evaluate_files`]; several, each trial's output in `out/trial-t`,
/// summarised as the first trial's figures with pass^1 .. pass^n over all
/// the trials (`trials`), also written to `out`'s `summary.json` and
/// `report.md`.
pub fn evaluate(
    files: &[PathBuf],
    similarity: &dyn Similarity,
    options: &RunOptions<'_>,
) -> Result<Summary> {
    let answerer = |trial: Option<usize>| {
        let lines = || {
            let conversations = files
                .iter()
                .map(|f| options.suite.read_dialogue(f))
                .collect::<Result<Vec<_>>>()?;
            Ok(ConversationLines::new(&conversations))
        };
        let settings = Settings {
            api_mode: Some(options.prompt.api_mode.name()),
            no_docs: Some(!options.prompt.docs),
            ..Settings::default()
        };
        let template = crate::llm::sha256_hex(SYSTEM_TEMPLATE.as_bytes());
        let templates = [(SYSTEM_TEMPLATE_NAME.to_string(), template)].into();
        (options.setup.answerer).answerer(trial, lines, settings, templates)
    };
    let one = |trial, out| {
        let mut options = options.clone();
        options.setup.out = out;
        evaluate_files(files, answerer(trial)?.as_ref(), similarity, &options)
    };
    let units = |summary: &Summary| {
        let units = summary.per_conversation.iter();
        units
            .map(|c| UnitOutcome::file(&c.file, Some(c.subset.clone()), c.metrics.success))
            .collect()
    };
    let write = |dir: &Path, summary: &Summary| {
        crate::report::runs::write_run(dir, summary, "Evaluation report".into())
    };
    let setup = &options.setup;
    run_trials(setup, "subset", "conversation", one, units, |_| {}, write)
}
