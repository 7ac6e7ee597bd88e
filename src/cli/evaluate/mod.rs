//! `talkforge evaluate`: score an assistant on a dataset with its suite's
//! evaluation protocol (ToolTalk: Algorithms 1 and 2), or with `--level 3`
//! by conversations with a user over the suite's scenarios.
//!
//! Exit status: 0 when every conversation succeeded, 1 when some failed,
//! 2 when the evaluation could not run.

mod conversations;
mod levels;
mod setup;
mod tasks;
mod with_user;

use std::io::Write;
use std::path::PathBuf;

use super::requests::{CacheArgs, RequestArgs};
use super::{OutputFormat, Status};
use crate::run::turn_request::ApiMode;
use crate::suite::levels::{Scoring, StartState};
use crate::suite::protocol::DEFAULT_MAX_CALLS_PER_TURN;
use crate::suite::Evaluation;
use crate::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PredictorKind {
    /// The gold calls themselves (checks simulator and comparators).
    Oracle,
    /// A model behind an OpenAI-compatible chat completions endpoint.
    Openai,
    /// Predictions read from a JSONL file (--predictions).
    Replay,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SimilarityKind {
    /// Character-trigram cosine, offline and deterministic.
    Lexical,
    /// Embedding cosine from an OpenAI-compatible /v1/embeddings endpoint.
    Embeddings,
    /// Exact string equality.
    Exact,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Dialogue files or folders (searched recursively for the suite's files).
    #[arg(default_value = "conversations")]
    pub paths: Vec<PathBuf>,
    /// The databases folder [default: the suite's own].
    #[arg(long)]
    pub databases: Option<PathBuf>,
    /// The suite the dialogues belong to [default: by file extension].
    #[arg(long)]
    pub suite: Option<String>,
    /// Who answers: the gold calls (oracle), a model (openai) or a file of predictions (replay).
    #[arg(long, value_enum)]
    pub predictor: PredictorKind,
    /// The JSONL file of predictions the replay predictor reads (its
    /// lines: the README's "Replay format").
    #[arg(long)]
    pub predictions: Option<PathBuf>,
    /// The chat model (openai predictor).
    #[arg(long, default_value = super::requests::DEFAULT_MODEL)]
    pub model: String,
    /// Which tools' documentation the model gets [default: all; for
    /// suites evaluated at levels, the level decides and `functions`
    /// offers the APIs as tools instead of the text form].
    #[arg(long, value_enum)]
    pub api_mode: Option<ApiMode>,
    /// Blank every tool and parameter description (documentation ablation).
    #[arg(long)]
    pub no_docs: bool,
    /// Sampling temperature sent to the model [default: the server's; 0 at
    /// --level 3].
    #[arg(long)]
    pub temperature: Option<f32>,
    /// Evaluate each conversation (API-Bank levels: each call sample;
    /// level 3: each scenario, completed or not) N times and report
    /// pass^1 .. pass^N (the chance that all k trials succeed); each
    /// trial's output goes to --out's trial-T folder. A model (the openai
    /// predictor, a model playing the user) needs --temperature above 0.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub trials: usize,
    /// Stop an assistant turn that asks for more calls than this.
    #[arg(long, default_value_t = DEFAULT_MAX_CALLS_PER_TURN)]
    pub max_calls_per_turn: usize,
    /// How free-text arguments are compared.
    #[arg(long, value_enum, default_value = "lexical")]
    pub similarity: SimilarityKind,
    /// The embedding model that compares free-text arguments
    /// (--similarity embeddings; `--embedding-model` is its older name).
    #[arg(
        long,
        alias = "embedding-model",
        value_name = "MODEL",
        default_value = "text-embedding-3-small"
    )]
    pub similarity_model: String,
    /// The level to evaluate at, for suites evaluated at levels (API-Bank:
    /// 1 the dialogue's APIs documented, 2 found with ToolSearcher, 3 its
    /// scenarios as conversations with a user).
    #[arg(long, help_heading = "Levels (API-Bank)")]
    pub level: Option<u8>,
    /// What each sample's world holds before the predicted call runs: the
    /// initial databases (fresh, as the reference's evaluator) or those
    /// after the dialogue's earlier gold calls (replayed, as the paper
    /// describes).
    #[arg(long, value_enum, help_heading = "Levels (API-Bank)")]
    pub state: Option<StartState>,
    /// Which scoring decides each call sample's verdict: the reference's
    /// evaluator verdict for verdict, or lenient (calls read as models
    /// write them, the reference's known scoring defects corrected). Both
    /// verdicts are reported [default: reference].
    #[arg(long, value_enum, help_heading = "Levels (API-Bank)")]
    pub scoring: Option<Scoring>,
    /// A prompt template to use instead of prompts/apibank-eval.j2 (for
    /// instance one with the paper's wording).
    #[arg(long, value_name = "FILE", help_heading = "Levels (API-Bank)")]
    pub template: Option<PathBuf>,
    /// Worker threads for a run that asks no server (the oracle and
    /// replay predictors with offline similarity) [default: every core].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub retrieval: super::RetrievalArgs,
    /// Errata files: a failure on a gold call they name (or that a
    /// dialogue's own `errata` names) is listed as known; scores are unchanged.
    #[arg(long, value_name = "FILE")]
    pub errata: Vec<PathBuf>,
    /// Write per-conversation files (API-Bank: one file of samples per
    /// dialogue; level 3: one transcript per scenario), summary.json and
    /// report.md here; an existing folder is resumed (never a person's
    /// level-3 conversations).
    #[arg(long, help_heading = "Output")]
    pub out: Option<PathBuf>,
    /// Evaluate again conversations that --out already holds.
    #[arg(long, help_heading = "Output")]
    pub reset: bool,
    /// Human-readable text, or one JSON document on stdout.
    #[arg(long, value_enum, default_value_t, help_heading = "Output")]
    pub format: OutputFormat,
    // A conversation makes one request at a time, so a run that asks a
    // server (the openai predictor, embeddings similarity) evaluates at
    // most `--concurrency` conversations at once; other runs use every core.
    #[command(flatten)]
    pub requests: RequestArgs,
    #[command(flatten)]
    pub cache: CacheArgs,
    #[command(flatten)]
    pub conversation: ConversationArgs,
    #[command(flatten)]
    pub tasks: TaskArgs,
}

/// Evaluation by tasks (tau2-bench: each task's trajectory graded with
/// tau2's reward).
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Tasks (tau2)")]
pub struct TaskArgs {
    /// The model that judges NL assertions; without one, tasks whose
    /// reward needs them are not scored.
    #[arg(long, value_name = "MODEL")]
    pub judge_model: Option<String>,
    /// Grade a tau2 results file (--predictions) against the tasks files
    /// given instead of the tasks it embeds.
    #[arg(long)]
    pub fresh_tasks: bool,
    /// Only the tasks of this split (train, test, base), read from the
    /// split_tasks.json beside each tasks file.
    #[arg(long, value_name = "NAME")]
    pub split: Option<String>,
    /// Only these task ids (comma-separated, or the option repeated).
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub task_ids: Vec<String>,
    /// The tool schemas the openai agent is offered: an OpenAI tools JSON
    /// (as a benchmark publishes them) instead of talkforge's own; it may
    /// name only the domain's tools.
    #[arg(long, value_name = "FILE")]
    pub tool_docs: Option<PathBuf>,
    /// A conversation (openai predictor) still going after this many
    /// messages stops, with reward 0.
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub max_steps: usize,
    /// A conversation (openai predictor) stops, with reward 0, at this
    /// many tool calls that raised.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub max_errors: usize,
}

impl TaskArgs {
    /// The options given, for a suite that does not evaluate by tasks.
    fn given(&self) -> [(&'static str, bool); 5] {
        [
            ("--judge-model", self.judge_model.is_some()),
            ("--fresh-tasks", self.fresh_tasks),
            ("--split", self.split.is_some()),
            ("--task-ids", !self.task_ids.is_empty()),
            ("--tool-docs", self.tool_docs.is_some()),
        ]
    }
}

/// Who plays the user in a conversational evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum UserKind {
    /// A model (--user-model), told the scenario's first utterance and key
    /// information, answering only what it is asked.
    Llm,
    /// You, at the terminal: the conversation is written to stderr, your
    /// turns are read from stdin a line each (/quit ends a scenario).
    Human,
}

/// Evaluation by conversation with a user (API-Bank's level 3: its
/// scenarios, `.txt` sheets and `.lv3.json` files, scored by the turns it
/// takes to make every ground-truth call).
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Level 3 (API-Bank): conversations with a user")]
pub struct ConversationArgs {
    /// Who plays the user.
    #[arg(long, value_enum, default_value = "llm")]
    pub user: UserKind,
    /// The model that plays the user [default: --model].
    #[arg(long, value_name = "MODEL")]
    pub user_model: Option<String>,
    /// A scenario not completed after this many turns counts as not completed.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_turns: usize,
}

impl Args {
    /// The predictions file `--predictor replay` reads.
    fn predictions(&self) -> Result<PathBuf, Error> {
        self.predictions
            .clone()
            .ok_or_else(|| Error::Usage("--predictor replay needs --predictions FILE".into()))
    }

    /// The model that plays the user (`--user-model`, else `--model`).
    fn user_model(&self) -> &str {
        self.conversation
            .user_model
            .as_deref()
            .unwrap_or(&self.model)
    }
}

pub fn run(args: &Args, context: &mut super::Context<'_>) -> Result<Status, Error> {
    let registry = context.registry;
    if args.max_calls_per_turn == 0 {
        return Err(Error::Usage(
            "--max-calls-per-turn must be at least 1".into(),
        ));
    }
    args.requests.http()?;
    if args.jobs == Some(0) {
        return Err(Error::Usage("--jobs must be at least 1".into()));
    }
    let forced = registry.named(args.suite.as_deref())?;
    let files = crate::formats::discover_dialogues(&args.paths, &registry.endings(forced))?;
    let suite = registry.of_files(&files, forced)?;
    if let Some(interactive) = args
        .level
        .and_then(|level| suite.interactive().filter(|i| i.level() == level))
    {
        return with_user::run(args, interactive, suite, &files, context.out);
    }
    check_trials(args, args.predictor == PredictorKind::Openai)?;
    if let Evaluation::Tasks(protocol) = suite.evaluation() {
        return tasks::run(args, protocol, &files, context.out);
    }
    refuse(&args.tasks.given(), |flag| {
        format!(
            "{flag} is for suites evaluated by tasks (tau2); the {} suite is not",
            suite.name()
        )
    })?;
    match suite.evaluation() {
        Evaluation::Levels(protocol) => levels::run(args, suite, protocol, &files, context.out),
        _ => conversations::run(args, suite, &files, context.out),
    }
}

/// The first of `given`'s flags that was given, refused in `why`'s words.
fn refuse(given: &[(&str, bool)], why: impl Fn(&str) -> String) -> Result<(), Error> {
    match given.iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(Error::Usage(why(flag))),
        None => Ok(()),
    }
}

/// `--trials` is at least 1, and above 1 needs a temperature above 0 when
/// a model answers (`asks_a_model`): trials of a model that answers alike
/// every time say nothing about reliability.
fn check_trials(args: &Args, asks_a_model: bool) -> Result<(), Error> {
    if args.trials == 0 {
        return Err(Error::Usage("--trials must be at least 1".into()));
    }
    if args.trials > 1 && asks_a_model && !args.temperature.is_some_and(|t| t > 0.0) {
        return Err(Error::Usage(format!(
            "--trials {} needs --temperature above 0 when a model answers (the assistant, or a model playing the user): trials at temperature 0 (or the server's unknown default) say nothing about reliability",
            args.trials
        )));
    }
    Ok(())
}

/// The end of every kind of evaluation: the summary on stdout (one JSON
/// document, or in words), then `failure` (what could not be evaluated:
/// an error, exit 2), else a finding (exit 1) when `findings`.
fn finish(
    args: &Args,
    out: &mut dyn Write,
    (json, human): (&impl serde::Serialize, impl FnOnce() -> String),
    failure: Option<Error>,
    findings: bool,
) -> Result<Status, Error> {
    // A large buffer: a summary of thousands of conversations is written
    // in a few calls rather than hundreds.
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, out);
    let _ = match args.format {
        OutputFormat::Json => serde_json::to_writer_pretty(&mut stdout, json)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(stdout)),
        OutputFormat::Human => stdout.write_all(human().as_bytes()),
    };
    let _ = stdout.flush();
    match failure {
        Some(failure) => Err(failure),
        None => Ok(Status::from_findings(findings)),
    }
}
