//! The command line: one file per subcommand, each with its clap arguments
//! and its `run`. A `run` returns the exit status for a command that ran
//! (0 all good, 1 findings) and an [`Error`] for one that could not (2).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::io::Write;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::suite::{Registry, Suite};
use crate::Error;

pub mod card;
pub mod check;
pub mod drafts;
pub mod evaluate;
pub mod fill;
pub mod fmt;
pub mod generate;
pub mod lint;
pub mod report;
pub mod requests;
pub mod scaffold;
pub mod scenarios;
pub mod stats;
pub mod tools;
pub mod verify;

#[derive(Debug, Parser)]
#[command(
    name = "talkforge",
    version,
    about = "Build, verify, lint and evaluate conversational tool-use benchmarks"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// When to colour human output.
    #[arg(long, value_enum, default_value_t, global = true)]
    pub color: crate::style::ColorChoice,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The main job: schemas, lint, verify and the dataset policy over this repository's dataset.
    Check(check::Args),
    /// Print the dataset card's tables, or write them into the card.
    Card(card::Args),
    /// Replay every gold call and compare it with the recorded result.
    Verify(verify::Args),
    /// Write the simulator's result into every gold call.
    Fill(fill::Args),
    /// Put hand-edited dialogue files in their canonical layout.
    Fmt(fmt::Args),
    /// Find hallucinated tools, unreachable arguments and broken dialogues.
    Lint(lint::Args),
    /// Score an assistant on a dataset: ToolTalk conversations (Algorithms 1
    /// and 2), API-Bank levels 1-3 (call samples; level 3 conversations with
    /// a user), tau2 tasks (conversations with a simulated user).
    Evaluate(Box<evaluate::Args>),
    /// Put several evaluation folders side by side (Markdown, HTML or JSON).
    Report(report::Args),
    /// Generate scenario pools with an LLM from plugin-triplet prompts
    /// (`generate dialogues`, `generate database`: drafts and records).
    Generate(generate::Args),
    /// Work with generated scenario pools.
    Scenarios(scenarios::Args),
    /// Write a conversation skeleton from a scenario.
    Scaffold(scaffold::Args),
    /// Print the tool catalog.
    Tools(tools::Args),
    /// Count conversations and gold calls.
    Stats(stats::Args),
}

/// Human-readable or machine-readable output, for commands that offer both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum OutputFormat {
    #[default]
    Human,
    Json,
}

/// How tool searches pick a tool (`--retriever`), for suites whose
/// dialogues search for their tools (API-Bank's ToolSearcher).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Retriever {
    /// Word overlap (BM25) with each tool's description: offline.
    #[default]
    Lexical,
    /// Sentence embeddings from an OpenAI-compatible server, as the
    /// reference searches (serve its model, paraphrase-MiniLM-L3-v2).
    Embeddings,
}

/// The help heading of the retriever options. Each option names it (a
/// `next_help_heading` would carry over to the options declared after
/// the flattened group).
pub const TOOL_SEARCH: &str = "Tool search (API-Bank's ToolSearcher)";

/// The retriever options verify, fill and evaluate share.
#[derive(Debug, Clone, clap::Args)]
pub struct RetrievalArgs {
    /// How a tool search picks its tool. A recorded search is answered for
    /// its recorded pick either way; where this retriever would pick
    /// another tool, the report says so apart.
    #[arg(long, value_enum, default_value_t, help_heading = TOOL_SEARCH)]
    pub retriever: Retriever,
    /// The embeddings server for `--retriever embeddings` [default:
    /// OPENAI_BASE_URL, else OpenAI's].
    #[arg(long, value_name = "URL", help_heading = TOOL_SEARCH)]
    pub embeddings_url: Option<String>,
    /// The embedding model for `--retriever embeddings`.
    #[arg(
        long,
        value_name = "MODEL",
        default_value = "paraphrase-MiniLM-L3-v2",
        help_heading = TOOL_SEARCH
    )]
    pub embeddings_model: String,
    /// Whose words a tool search answers with: the reference's (what
    /// upstream recordings hold) or this project's catalog (for dialogues
    /// written here) [default: the files' subset's `tool-descriptions` in
    /// talkforge.toml, else the reference's].
    #[arg(long, value_enum, help_heading = TOOL_SEARCH)]
    pub tool_descriptions: Option<crate::suite::ToolDescriptions>,
}

impl RetrievalArgs {
    /// The options every world of the run is set up with.
    pub fn world_options(&self) -> Result<crate::suite::WorldOptions, Error> {
        self.world_options_metered(&crate::llm::usage::Meter::new())
    }

    /// [`RetrievalArgs::world_options`] for files whose subset declares
    /// `declared` tool descriptions (`--tool-descriptions` wins).
    pub fn world_options_declared(
        &self,
        declared: Option<crate::suite::ToolDescriptions>,
    ) -> Result<crate::suite::WorldOptions, Error> {
        let mut options = self.world_options()?;
        options.tool_descriptions = self.tool_descriptions.or(declared).unwrap_or_default();
        Ok(options)
    }

    /// [`RetrievalArgs::world_options`], the embeddings counted into
    /// `meter`.
    pub fn world_options_metered(
        &self,
        meter: &crate::llm::usage::Meter,
    ) -> Result<crate::suite::WorldOptions, Error> {
        use crate::llm::client::Client;
        use crate::llm::http::HttpSettings;
        use crate::suite::{RetrieverKind, WorldOptions};
        Ok(match self.retriever {
            Retriever::Lexical => WorldOptions {
                tool_descriptions: self.tool_descriptions.unwrap_or_default(),
                ..WorldOptions::default()
            },
            Retriever::Embeddings => {
                let client = Client::from_env(HttpSettings {
                    base_url: HttpSettings::base_url_from(self.embeddings_url.as_deref()),
                    timeout: std::time::Duration::from_secs(60),
                    retries: 3,
                    retry_base: std::time::Duration::from_millis(500),
                    retry_for: std::time::Duration::from_secs(120),
                })?
                .naming_url_option("--embeddings-url")
                .metered(meter, crate::llm::usage::Role::Embeddings);
                WorldOptions {
                    retriever: RetrieverKind::Embeddings,
                    embedder: Some(std::sync::Arc::new(crate::llm::embed::Embedder::new(
                        client,
                        self.embeddings_model.clone(),
                    ))),
                    tool_descriptions: self.tool_descriptions.unwrap_or_default(),
                    draw_seed: None,
                }
            }
        })
    }
}

/// Exit status of a command that ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Everything checked out.
    Clean,
    /// The command ran and found something (a difference, a lint error).
    Findings,
}

impl Status {
    pub fn from_findings(any: bool) -> Self {
        if any {
            Status::Findings
        } else {
            Status::Clean
        }
    }
}

/// What a command runs with: the registered suites, which it resolves
/// every suite and file format through, and where its output goes.
pub struct Context<'a> {
    pub registry: &'a Registry,
    pub out: &'a mut dyn Write,
}

impl Context<'_> {
    /// Write to the command's output. A closed pipe ends the process
    /// quietly (see `restore_default_sigpipe`); other failures to write
    /// are not the command's to report.
    pub fn print(&mut self, text: std::fmt::Arguments<'_>) {
        let _ = self.out.write_fmt(text);
    }

    /// [`Context::print`] and a newline.
    pub fn println(&mut self, text: std::fmt::Arguments<'_>) {
        let _ = self.out.write_fmt(text);
        let _ = self.out.write_all(b"\n");
    }

    /// The suite `--suite` names, if any; an unknown name is a usage error.
    pub fn suite_named(&self, name: Option<&str>) -> Result<Option<&'static dyn Suite>, Error> {
        self.registry.named(name)
    }
}

/// The command line as `talkforge` runs it: the default registry's suites,
/// output on stdout, the exit status of the process.
pub fn main() -> ExitCode {
    restore_default_sigpipe();
    let registry = crate::suites::registry();
    ExitCode::from(run_with(
        &registry,
        std::env::args_os(),
        &mut std::io::stdout(),
    ))
}

/// Run one command line (`args`, the program's name first) with the
/// suites of `registry`, writing what it prints to `out` (errors go to
/// stderr); its exit status: 0 all good, 1 findings, 2 it could not run.
pub fn run_with<I, T>(registry: &Registry, args: I, out: &mut dyn Write) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let parsed = command(registry)
        .try_get_matches_from(args)
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(err) => {
            // Help and version on stdout (exit 0), a usage error on
            // stderr (exit 2), as clap prints them.
            let _ = err.print();
            return u8::try_from(err.exit_code()).unwrap_or(2);
        }
    };
    crate::style::init(cli.color);
    let mut context = Context { registry, out };
    let status = run(cli.command, &mut context);
    let _ = context.out.flush();
    match status {
        Ok(Status::Clean) => 0,
        Ok(Status::Findings) => 1,
        Err(err) => {
            let label = crate::style::paint_stderr(crate::style::ERROR, "error");
            eprintln!("{label}: {err}");
            2
        }
    }
}

/// The clap command, the values of every `--suite` taken from `registry`
/// (so `--help` lists them and a wrong name is a usage error).
pub fn command(registry: &Registry) -> clap::Command {
    with_suite_values(Cli::command(), registry)
}

/// `command` and its subcommands, each `--suite` taking the names of
/// `registry`'s suites (lint's `auto` too).
fn with_suite_values(command: clap::Command, registry: &Registry) -> clap::Command {
    let names: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_string())
        .collect();
    let mut command = if command.get_name() == "lint" {
        lint::with_suites(command, registry)
    } else if command.get_arguments().any(|arg| arg.get_id() == "suite") {
        let suites: Vec<_> = registry
            .suites()
            .iter()
            .map(|suite| clap::builder::PossibleValue::new(suite.name()))
            .collect();
        command.mut_arg("suite", |arg| {
            arg.value_parser(clap::builder::PossibleValuesParser::new(suites))
        })
    } else {
        command
    };
    for name in names {
        command = command.mut_subcommand(name, |sub| with_suite_values(sub, registry));
    }
    command
}

pub fn run(command: Command, context: &mut Context<'_>) -> Result<Status, Error> {
    match command {
        Command::Check(args) => check::run(&args, context),
        Command::Card(args) => card::run(&args, context),
        Command::Verify(args) => verify::run(&args, context),
        Command::Fill(args) => fill::run(&args, context),
        Command::Fmt(args) => fmt::run(&args, context),
        Command::Lint(args) => lint::run(&args, context),
        Command::Evaluate(args) => evaluate::run(&args, context),
        Command::Report(args) => report::run(&args, context),
        Command::Generate(args) => generate::run(&args, context),
        Command::Scenarios(args) => scenarios::run(&args, context),
        Command::Scaffold(args) => scaffold::run(&args, context),
        Command::Tools(args) => tools::run(&args, context),
        Command::Stats(args) => stats::run(&args, context),
    }
}

/// The databases folder a command runs over: `--databases` when given,
/// else the suite's own folder, which must then exist (a missing default
/// is the usual first-run mistake, so the error says how to name another).
pub fn databases_dir(given: Option<&Path>, suite: &dyn Suite) -> Result<PathBuf, Error> {
    if let Some(dir) = given {
        return Ok(dir.to_path_buf());
    }
    let dir = PathBuf::from(suite.default_databases());
    if !dir.is_dir() {
        return Err(Error::input(
            &dir,
            format!(
                "no such folder (the default databases folder for {} dialogues, \
                 relative to the current folder); hint: pass --databases DIR",
                suite.name()
            ),
        ));
    }
    Ok(dir)
}

/// Rust ignores SIGPIPE, so `talkforge stats | head` would panic on the
/// first failed print; the default disposition ends the process quietly
/// instead, as other command-line tools do.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called once at start-up, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every argument of every subcommand, as `command path: --name`,
    /// that `--help` would list without a sentence.
    fn undocumented(command: &clap::Command, path: &str, out: &mut Vec<String>) {
        for arg in command.get_arguments() {
            if arg.is_hide_set() || arg.get_help().is_some() {
                continue;
            }
            let name = arg
                .get_long()
                .map_or_else(|| arg.get_id().to_string(), |long| format!("--{long}"));
            out.push(format!("{path}: {name}"));
        }
        for sub in command.get_subcommands() {
            undocumented(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }

    #[test]
    fn generate_and_evaluate_share_their_request_options() {
        let mut command = super::Cli::command();
        command.build();
        let find = |name: &str| command.find_subcommand(name).unwrap().clone();
        let (generate, evaluate) = (find("generate"), find("evaluate"));
        let shared = [
            ("base-url", "Requests"),
            ("concurrency", "Requests"),
            ("timeout", "Requests"),
            ("retries", "Requests"),
            ("retry-base", "Requests"),
            ("retry-for", "Requests"),
            ("cache", "Cache"),
            ("no-cache", "Cache"),
            ("out", "Output"),
            ("format", "Output"),
        ];
        for (flag, heading) in shared {
            let arg = |command: &clap::Command| {
                command
                    .get_arguments()
                    .find(|a| a.get_long() == Some(flag))
                    .unwrap_or_else(|| panic!("{} has no --{flag}", command.get_name()))
                    .clone()
            };
            let (g, e) = (arg(&generate), arg(&evaluate));
            assert_eq!(g.get_help_heading(), Some(heading), "--{flag}");
            assert_eq!(e.get_help_heading(), Some(heading), "--{flag}");
            assert_eq!(g.get_default_values(), e.get_default_values(), "--{flag}");
            if heading != "Output" {
                assert_eq!(
                    g.get_help().map(ToString::to_string),
                    e.get_help().map(ToString::to_string),
                    "--{flag}"
                );
            }
        }
    }

    /// Every subcommand, its path, depth first.
    fn subcommands(command: &clap::Command, path: &str, out: &mut Vec<(String, clap::Command)>) {
        for sub in command.get_subcommands() {
            let path = format!("{path} {}", sub.get_name());
            out.push((path.clone(), sub.clone()));
            subcommands(sub, &path, out);
        }
    }

    /// Issue 35, item 8: the command line reads as one tool.
    #[test]
    fn every_help_is_consistent() {
        let registry = crate::suites::registry();
        let mut command = super::command(&registry);
        command.build();
        let mut all = Vec::new();
        subcommands(&command, "talkforge", &mut all);
        assert!(all.len() > 13, "{}", all.len());
        let suites: Vec<&str> = registry.suites().iter().map(|s| s.name()).collect();
        let retriever = [
            "retriever",
            "embeddings-url",
            "embeddings-model",
            "tool-descriptions",
        ];
        let requests = [
            "base-url",
            "concurrency",
            "timeout",
            "retries",
            "retry-base",
            "retry-for",
        ];
        let mut problems = Vec::new();
        for (path, mut sub) in all {
            let help = sub.render_long_help().to_string();
            if help.contains("talkforge::") {
                problems.push(format!("{path}: a Rust module path in its help"));
            }
            let longs: Vec<&str> = sub.get_arguments().filter_map(|a| a.get_long()).collect();
            for arg in sub.get_arguments() {
                let Some(long) = arg.get_long() else { continue };
                if long == "suite" {
                    let values: Vec<String> = arg
                        .get_possible_values()
                        .iter()
                        .map(|v| v.get_name().to_string())
                        .collect();
                    if !suites.iter().all(|s| values.iter().any(|v| v == s)) {
                        problems.push(format!("{path}: --suite lists {values:?}"));
                    }
                }
                match arg.get_help_heading() {
                    Some(super::TOOL_SEARCH) if !retriever.contains(&long) => {
                        problems.push(format!("{path}: --{long} under \"Tool search\""))
                    }
                    Some("Cache") if !["cache", "no-cache"].contains(&long) => {
                        problems.push(format!("{path}: --{long} under \"Cache\""))
                    }
                    Some("Requests") if !requests.contains(&long) => {
                        problems.push(format!("{path}: --{long} under \"Requests\""))
                    }
                    _ => {}
                }
                if long == "databases" && !arg.get_default_values().is_empty() {
                    problems.push(format!(
                        "{path}: --databases has a fixed default, not the suite's own"
                    ));
                }
                // Two flags one letter apart read as one misspelt.
                for other in &longs {
                    if long < *other && strsim::levenshtein(long, other) <= 1 {
                        problems.push(format!("{path}: --{long} and --{other}"));
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));

        let find = |names: &[&str]| {
            names.iter().fold(command.clone(), |c, n| {
                c.find_subcommand(n).unwrap().clone()
            })
        };
        let about = find(&["evaluate"]).get_about().unwrap().to_string();
        for kind in ["ToolTalk", "API-Bank", "level 3", "tau2"] {
            assert!(about.contains(kind), "{about}");
        }
        let model = |names: &[&str]| {
            let c = find(names);
            let arg = c.get_arguments().find(|a| a.get_long() == Some("model"));
            arg.map(|a| a.get_default_values().to_vec()).unwrap()
        };
        let evaluate = model(&["evaluate"]);
        assert_eq!(evaluate, [super::requests::DEFAULT_MODEL]);
        // The similarity's model was --embedding-model: scripts keep working.
        let old = command
            .clone()
            .try_get_matches_from([
                "talkforge",
                "evaluate",
                "--predictor",
                "oracle",
                "--embedding-model",
                "m",
            ])
            .unwrap();
        let (_, evaluate_matches) = old.subcommand().unwrap();
        assert_eq!(
            evaluate_matches
                .get_one::<String>("similarity_model")
                .map(String::as_str),
            Some("m")
        );
        for names in [
            &["generate"][..],
            &["generate", "dialogues"],
            &["generate", "database"],
        ] {
            assert_eq!(model(names), evaluate, "{names:?}");
        }
    }

    #[test]
    fn every_flag_has_help_text() {
        let mut command = super::Cli::command();
        command.build();
        let mut missing = Vec::new();
        undocumented(&command, "talkforge", &mut missing);
        assert!(
            missing.is_empty(),
            "without help text:\n{}",
            missing.join("\n")
        );
    }
}
