//! `talkforge evaluate`: score an assistant on a dataset with its suite's
//! evaluation protocol (ToolTalk: Algorithms 1 and 2), or with `--level 3`
//! by conversations with a user over the suite's scenarios.
//!
//! Exit status: 0 when every conversation succeeded, 1 when some failed,
//! 2 when the evaluation could not run.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use super::requests::{CacheArgs, RequestArgs};
use super::{OutputFormat, Status};
use crate::errata::Errata;
use crate::eval::embeddings::Embeddings;
use crate::eval::lexical::Lexical;
use crate::eval::provenance::Inputs;
use crate::eval::run::evaluate;
use crate::eval::{RunOptions, Similarity, Summary};
use crate::llm::client::Client;
use crate::llm::usage::{Meter, Role};
use crate::run::answer::{Choice, Model};
use crate::run::turn_request::{ApiMode, TurnPrompt};
use crate::run::Setup;
use crate::sim::Databases;
use crate::suite::interactive::Interactive;
use crate::suite::levels::{LevelProtocol, LevelRun, Scoring, StartState};
use crate::suite::protocol::DEFAULT_MAX_CALLS_PER_TURN;
use crate::suite::similarity::ExactText;
use crate::suite::{Evaluation, Suite};
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
    /// The first option given, for a suite that does not evaluate by tasks.
    fn given(&self) -> Option<&'static str> {
        [
            ("--judge-model", self.judge_model.is_some()),
            ("--fresh-tasks", self.fresh_tasks),
            ("--split", self.split.is_some()),
            ("--task-ids", !self.task_ids.is_empty()),
            ("--tool-docs", self.tool_docs.is_some()),
        ]
        .into_iter()
        .find(|(_, given)| *given)
        .map(|(flag, _)| flag)
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
    /// A client for the server, counting into `meter` for `role`. Without
    /// a key and without a server named, every request of the assistant
    /// (or of embeddings) would go to OpenAI's public endpoint and be
    /// refused: say so once, before any. (A model playing the user is
    /// asked only when a scenario needs the user, which the oracle may
    /// never: its first request says what failed.)
    fn client(&self, meter: &Meter, role: Role) -> Result<Client, Error> {
        let key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
        let url = std::env::var("OPENAI_BASE_URL").unwrap_or_default();
        let unset = key.is_empty() && self.requests.base_url.is_none() && url.is_empty();
        if unset && role != Role::User {
            return Err(Error::Usage(
                "no server to ask: set OPENAI_API_KEY for OpenAI's, or name an \
                 OpenAI-compatible server with --base-url URL (or OPENAI_BASE_URL)"
                    .into(),
            ));
        }
        Ok(Client::from_env(self.requests.http()?)?.metered(meter, role))
    }

    /// The model `name`, its replies cached and counted into `meter` for `role`.
    pub(crate) fn model(&self, name: &str, meter: &Meter, role: Role) -> Result<Model, Error> {
        Ok(Model {
            client: self
                .client(meter, role)?
                .cached_in(self.cache.folder("chat")),
            model: name.to_string(),
            temperature: self.temperature,
            max_tokens: None,
        })
    }

    /// Who answers (`--predictor`), a model counted into `meter`.
    fn choice(&self, meter: &Meter) -> Result<Choice, Error> {
        Ok(match self.predictor {
            PredictorKind::Oracle => Choice::Oracle,
            PredictorKind::Replay => Choice::Replay(self.predictions.clone().ok_or_else(|| {
                Error::Usage("--predictor replay needs --predictions FILE".into())
            })?),
            PredictorKind::Openai => {
                Choice::Llm(self.model(&self.model, meter, Role::Assistant)?)
            }
        })
    }

    /// Whether the run sends requests (and so is bounded by
    /// `--concurrency`).
    fn asks_a_server(&self) -> bool {
        self.predictor == PredictorKind::Openai || self.similarity == SimilarityKind::Embeddings
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
        return conversation(args, interactive, suite, &files, context.out);
    }
    check_trials(args, args.predictor == PredictorKind::Openai)?;
    if let Evaluation::Tasks(protocol) = suite.evaluation() {
        return crate::suites::tau2::eval::command::run(args, protocol, &files, context.out);
    }
    if let Some(flag) = args.tasks.given() {
        return Err(Error::Usage(format!(
            "{flag} is for suites evaluated by tasks (tau2); the {} suite is not",
            suite.name()
        )));
    }
    if let Evaluation::Levels(protocol) = suite.evaluation() {
        // A scenario is no dialogue of samples.
        let dialogues: Vec<PathBuf> = files
            .iter()
            .filter(|f| suite.records_results(f))
            .cloned()
            .collect();
        if dialogues.is_empty() {
            return Err(Error::Usage(format!(
                "no {} dialogue among the files given (level-3 scenarios are evaluated with --level 3)",
                suite.name()
            )));
        }
        return run_levels(args, suite, protocol, &dialogues, context.out);
    }
    refuse_level_options(args, suite)?;
    let loaded = load(args, suite)?;
    let meter = &loaded.meter;
    let prompt = TurnPrompt {
        catalog: suite.catalog(),
        api_mode: args.api_mode.unwrap_or(ApiMode::All),
        docs: !args.no_docs,
    };
    let similarity: Box<dyn Similarity> = match args.similarity {
        SimilarityKind::Lexical => Box::new(Lexical),
        SimilarityKind::Exact => Box::new(ExactText),
        SimilarityKind::Embeddings => Box::new(Embeddings::new(
            args.client(meter, Role::Embeddings)?,
            args.similarity_model.clone(),
            args.cache.folder("embeddings"),
        )),
    };
    let threads = if args.asks_a_server() {
        Some(args.requests.concurrency)
    } else {
        args.jobs
    };
    let options = RunOptions {
        suite,
        setup: loaded.setup(args, args.choice(meter)?, threads),
        max_calls_per_turn: args.max_calls_per_turn,
        prompt,
    };
    let summary = evaluate(&files, similarity.as_ref(), &options)?;
    print(context.out, args.format, &summary, || human(&summary));
    // A file that could not be evaluated is an error (exit 2), after the
    // summary of the others.
    if let Some(e) = crate::eval::run::failures_error(
        &summary.failures,
        files.len(),
        "conversation",
        args.out.as_deref(),
    ) {
        return Err(e);
    }
    // With trials: a finding unless every conversation succeeded every time.
    let failed = match &summary.trials {
        Some(t) => t.all.pass_hat.last().is_some_and(|p| *p < 1.0),
        None => summary.successes < summary.rates.conversations,
    };
    Ok(Status::from_findings(failed))
}

/// `--level 3`: the suite's conversational evaluation over the scenario
/// files among `files`.
fn conversation(
    args: &Args,
    interactive: &dyn Interactive,
    suite: &dyn Suite,
    files: &[PathBuf],
    out: &mut dyn Write,
) -> Result<Status, Error> {
    use crate::suite::interactive::{InteractiveRun, UserSettings};
    let level = interactive.level();
    if args.scoring.is_some() {
        return Err(Error::Usage(format!(
            "--scoring is for levels 1 and 2: at --level {level} a call is read as it is written (as --scoring lenient reads text) and counts when its arguments are equal to a ground-truth call's or the reference's own check of that API accepts it (see the README)"
        )));
    }
    let given = [
        ("--state", args.state.is_some()),
        ("--template", args.template.is_some()),
        ("--api-mode", args.api_mode.is_some()),
        ("--errata", !args.errata.is_empty()),
        ("--predictions", args.predictions.is_some()),
    ];
    refuse(&given, |flag| {
        format!("{flag} is not used with --level {level}, a conversation with a user over the suite's scenarios")
    })?;
    if args.predictor == PredictorKind::Replay {
        return Err(Error::Usage(format!(
            "--level {level} talks to the assistant as it goes: use --predictor openai (or oracle, to check the scenarios)"
        )));
    }
    // A model on either side answers the same at temperature 0.
    check_trials(
        args,
        args.predictor == PredictorKind::Openai || args.conversation.user == UserKind::Llm,
    )?;
    if args.reset && args.out.is_none() {
        return Err(Error::Usage(
            "--reset runs again what --out holds: give --out".into(),
        ));
    }
    if args.conversation.max_turns == 0 {
        return Err(Error::Usage("--max-turns must be at least 1".into()));
    }
    let scenarios: Vec<PathBuf> = files
        .iter()
        .filter(|f| interactive.is_scenario(f))
        .cloned()
        .collect();
    if scenarios.is_empty() {
        return Err(Error::Usage(format!(
            "no level-{level} scenario among the files given ({} scenarios are {})",
            suite.name(),
            suite
                .endings(crate::suite::FormatKind::Scenarios)
                .iter()
                .map(|e| format!("*.{e}"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let loaded = load(args, suite)?;
    let meter = &loaded.meter;
    let world = args.retrieval.world_options_metered(meter)?;
    // A conversation's models answer at temperature 0 unless told, at
    // most 1024 tokens a message.
    let model = |name: &str, role: Role| -> Result<Model, Error> {
        Ok(Model {
            temperature: Some(args.temperature.unwrap_or(0.0)),
            max_tokens: Some(1024),
            ..args.model(name, meter, role)?
        })
    };
    let user = match args.conversation.user {
        UserKind::Llm => UserSettings::Llm(model(
            args.conversation
                .user_model
                .as_deref()
                .unwrap_or(&args.model),
            Role::User,
        )?),
        UserKind::Human => UserSettings::Human,
    };
    let summary = crate::run::with_user::evaluate(
        suite.name(),
        interactive,
        &InteractiveRun {
            files: &scenarios,
            setup: loaded.setup(
                args,
                match args.predictor {
                    PredictorKind::Oracle => Choice::Oracle,
                    _ => Choice::Llm(model(&args.model, Role::Assistant)?),
                },
                Some(args.requests.concurrency.max(1)),
            ),
            world: &world,
            user,
            max_turns: args.conversation.max_turns,
            max_calls_per_turn: args.max_calls_per_turn,
        },
    )?;
    print(out, args.format, &summary.json, || summary.human.clone());
    // A scenario that could not be run to the end is an error (exit 2),
    // after the summary of the others.
    for error in &summary.errors {
        eprintln!("error: {error}");
    }
    if !summary.errors.is_empty() {
        return Err(Error::Other(format!(
            "{} could not be run to the end",
            crate::words::count(summary.errors.len(), "scenario")
        )));
    }
    Ok(Status::from_findings(!summary.all_completed))
}

/// The summary on stdout: one JSON document, or in words.
fn print(
    out: &mut dyn Write,
    format: OutputFormat,
    json: &impl serde::Serialize,
    human: impl FnOnce() -> String,
) {
    let mut stdout = std::io::BufWriter::new(out);
    let _ = match format {
        OutputFormat::Json => serde_json::to_writer_pretty(&mut stdout, json)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(stdout)),
        OutputFormat::Human => stdout.write_all(human().as_bytes()),
    };
    let _ = stdout.flush();
}

/// What a run reads besides its files, and the meter its models count
/// their tokens into.
struct Loaded {
    databases: Databases,
    databases_sha256: String,
    provenance: Inputs,
    errata: Errata,
    meter: Meter,
}

/// The suite's databases (`--databases`, or its own) and `--errata`.
fn load(args: &Args, suite: &dyn Suite) -> Result<Loaded, Error> {
    let dir = super::databases_dir(args.databases.as_deref(), suite)?;
    Ok(Loaded {
        databases: suite.load_databases(&dir)?,
        databases_sha256: crate::sim::databases::folder_sha256(&dir)?,
        provenance: provenance_inputs(args, &dir)?,
        errata: Errata::load(&args.errata)?,
        meter: Meter::new(),
    })
}

impl Loaded {
    /// The run's setup: `answerer` answers, `threads` units at once.
    fn setup(&self, args: &Args, answerer: Choice, threads: Option<usize>) -> Setup<'_> {
        Setup {
            databases: &self.databases,
            databases_sha256: self.databases_sha256.clone(),
            provenance: self.provenance.clone(),
            errata: &self.errata,
            answerer,
            trials: args.trials,
            out: args.out.clone(),
            reset: args.reset,
            threads,
            progress: std::io::stderr().is_terminal(),
            meter: self.meter.clone(),
        }
    }
}

/// What the summary's provenance records of the inputs.
fn provenance_inputs(
    args: &Args,
    databases_dir: &std::path::Path,
) -> Result<crate::eval::provenance::Inputs, Error> {
    Ok(crate::eval::provenance::Inputs {
        databases_folder: databases_dir.display().to_string(),
        databases_files: crate::eval::provenance::database_files(databases_dir)?,
        errata_files: args
            .errata
            .iter()
            .map(|p| crate::eval::provenance::FileHash::of(p))
            .collect::<Result<_, _>>()?,
    })
}

/// Options that only suites evaluated at levels take are usage errors for
/// the others.
fn refuse_level_options(args: &Args, suite: &dyn Suite) -> Result<(), Error> {
    let given = [
        ("--level", args.level.is_some()),
        ("--state", args.state.is_some()),
        ("--scoring", args.scoring.is_some()),
        ("--template", args.template.is_some()),
        (
            "--api-mode functions",
            args.api_mode == Some(ApiMode::Functions),
        ),
    ];
    refuse(&given, |flag| {
        format!(
            "{flag} is for suites evaluated by samples at levels (API-Bank); the {} suite is evaluated by whole conversations",
            suite.name()
        )
    })
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

/// `evaluate` for a suite evaluated by samples at levels.
fn run_levels(
    args: &Args,
    suite: &dyn Suite,
    protocol: &dyn LevelProtocol,
    files: &[PathBuf],
    out: &mut dyn Write,
) -> Result<Status, Error> {
    let levels = protocol.levels();
    let listed = || {
        let mut listed: Vec<String> = levels
            .iter()
            .map(|l| format!("{} ({})", l.number, l.summary))
            .collect();
        if let Some(interactive) = suite.interactive() {
            listed.push(format!(
                "{} (conversations with a user over its scenarios)",
                interactive.level()
            ));
        }
        listed.join("; ")
    };
    let level = match args.level {
        Some(level) if levels.iter().any(|l| l.number == level) => level,
        Some(level) => {
            return Err(Error::Usage(format!(
                "the {} suite has no level {level}: --level takes {}",
                suite.name(),
                listed()
            )))
        }
        None => {
            return Err(Error::Usage(format!(
                "the {} suite is evaluated at a level: give --level, one of {}",
                suite.name(),
                listed()
            )))
        }
    };
    let functions = match args.api_mode {
        None => false,
        Some(ApiMode::Functions) => true,
        Some(other) => {
            let name = clap::ValueEnum::to_possible_value(&other)
                .map(|v| v.get_name().to_string())
                .unwrap_or_default();
            return Err(Error::Usage(format!(
                "--api-mode {name} is for conversation suites; at a level the level decides which APIs are shown, and --api-mode functions offers them as tools"
            )));
        }
    };
    if args.template.is_some() && args.predictor != PredictorKind::Openai {
        return Err(Error::Usage(
            "--template shapes what the openai predictor asks; the oracle and replay predictors ask nothing".into(),
        ));
    }
    let loaded = load(args, suite)?;
    let answerer = args.choice(&loaded.meter)?;
    let threads = if args.predictor == PredictorKind::Openai {
        Some(args.requests.concurrency)
    } else {
        args.jobs
    };
    let run = LevelRun {
        level,
        files,
        setup: loaded.setup(args, answerer, threads),
        world: args.retrieval.world_options_metered(&loaded.meter)?,
        state: args.state.unwrap_or_default(),
        scoring: args.scoring.unwrap_or_default(),
        template: args.template.clone(),
        functions,
        no_docs: args.no_docs,
    };
    let outcome = protocol.evaluate(&run)?;
    print(out, args.format, &outcome.document, || {
        outcome.human.clone()
    });
    // A dialogue that could not be evaluated is an error (exit 2), after
    // the summary of the others.
    if let Some(failure) = outcome.failure {
        return Err(failure);
    }
    Ok(Status::from_findings(outcome.findings))
}

/// Failed conversations the human output names, at most.
const SHOWN_FAILURES: usize = 10;

fn human(s: &Summary) -> String {
    let pct = |x: Option<f64>| match x {
        Some(x) => format!("{}%", crate::report::pct(x)),
        None => "-".to_string(),
    };
    let mut out = format!(
        "{}, predictor {}, similarity {}\n",
        crate::words::count(s.rates.conversations, "conversation"),
        s.predictor,
        s.similarity
    );
    for (name, subset) in &s.by_subset {
        let r = &subset.rates;
        out += &format!(
            "  {name}: success {} ({}), precision {}, recall {}, incorrect actions {}\n",
            pct(r.success_rate),
            crate::words::count(r.conversations, "conversation"),
            pct(r.precision),
            pct(r.recall),
            pct(r.incorrect_action_rate)
        );
    }
    out += &format!(
        "success rate {} ({}/{}), soft success {}\nprecision {} ({}/{}), recall {} ({}/{}), incorrect-action rate {} ({}/{})\n",
        pct(s.rates.success_rate),
        s.successes,
        s.rates.conversations,
        pct(s.rates.soft_success_rate),
        pct(s.rates.precision),
        s.matches,
        s.predictions,
        pct(s.rates.recall),
        s.matches,
        s.ground_truths,
        pct(s.rates.incorrect_action_rate),
        s.bad_actions,
        s.actions
    );
    // The failed conversations, each with its first reason (all of them
    // are in summary.json and report.md).
    let failed: Vec<_> = s
        .per_conversation
        .iter()
        .filter(|c| !c.metrics.success)
        .collect();
    for c in failed.iter().take(SHOWN_FAILURES) {
        let first = c
            .why_failed
            .first()
            .map(|r| r.message.as_str())
            .unwrap_or("failed");
        out += &format!("  failed {}: {first}\n", c.file);
    }
    if failed.len() > SHOWN_FAILURES {
        out += &format!(
            "  and {} more failed (see summary.json or --out's report.md)\n",
            failed.len() - SHOWN_FAILURES
        );
    }
    if s.turns_stopped_by_bound > 0 {
        out += &format!(
            "{} assistant turns stopped by the call bound ({})\n",
            s.turns_stopped_by_bound, s.max_calls_per_turn
        );
    }
    out + &s.human_footer("conversation", "")
}
