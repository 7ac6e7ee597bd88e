//! `talkforge fill`: record the simulator's results in the gold calls.

use crate::words::count as plural;
use std::path::PathBuf;

use super::{Context, OutputFormat, Status};
use crate::fill::{fill_files, FillOptions, FillReport};
use crate::formats::discover_dialogues as discover;
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Dialogue files or folders (searched recursively for the suite's files).
    #[arg(default_value = "conversations")]
    pub paths: Vec<PathBuf>,
    /// The databases folder [default: the one talkforge.toml declares for
    /// the files' subset, else the suite's own].
    #[arg(long)]
    pub databases: Option<PathBuf>,
    /// The suite the dialogues belong to [default: the one talkforge.toml
    /// declares for the files' subset, else by file extension].
    #[arg(long)]
    pub suite: Option<String>,
    /// Write nothing; exit 1 when any file would change.
    #[arg(long)]
    pub check: bool,
    /// Also add records that recorded query results list but the databases lack.
    #[arg(long)]
    pub seed: bool,
    #[command(flatten)]
    pub retrieval: super::RetrievalArgs,
    /// Human-readable text, or one JSON document on stdout.
    #[arg(long, value_enum, default_value_t)]
    pub format: OutputFormat,
}

pub fn run(args: &Args, context: &mut Context<'_>) -> Result<Status, Error> {
    let forced = context.suite_named(args.suite.as_deref())?;
    let files = discover(&args.paths, &context.registry.endings(forced))?;
    // The subset's suite and databases when talkforge.toml declares them.
    let resolved = crate::dataset::one_suite(context.registry, &files, forced)?;
    let suite = resolved.suite;
    let given_databases = args.databases.clone().or(resolved.databases);
    if let Some(why) = records_nothing(suite, &files) {
        match args.format {
            OutputFormat::Json => context.println(format_args!(
                "{}",
                serde_json::json!({"files": files.len(), "filled": [], "why": why})
            )),
            OutputFormat::Human => context.println(format_args!("nothing to fill: {why}")),
        }
        return Ok(Status::Clean);
    }
    let databases = super::databases_dir(given_databases.as_deref(), suite)?;
    let options = FillOptions {
        check: args.check,
        seed: args.seed,
        world: args
            .retrieval
            .world_options_declared(resolved.tool_descriptions)?,
    };
    let mut report = fill_files(&files, suite, &databases, options)?;
    explain_raised(&mut report, context, suite)?;
    match args.format {
        OutputFormat::Json => context.println(format_args!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| Error::Other(e.to_string()))?
        )),
        OutputFormat::Human => context.print(format_args!("{}", render(&report))),
    }
    Ok(Status::from_findings(
        args.check && report.changes_anything(),
    ))
}

/// Why there is nothing to fill, when every file holds many dialogues in a
/// format that records no results (tau2's tasks): said at once, before a
/// databases folder is looked for.
fn records_nothing(suite: &dyn crate::suite::Suite, files: &[PathBuf]) -> Option<&'static str> {
    let mut why = None;
    for file in files {
        let format = suite.format_of(file);
        match format.results {
            crate::suite::format::Results::NotRecorded(reason) if format.many.is_some() => {
                why = Some(reason)
            }
            _ => return None,
        }
    }
    why
}

/// Lint the files where a filled call raised, and put what lint finds at
/// those calls beside them: a call that raised records an error, and the
/// cause is often a typo that lint names (an argument the tool does not
/// take, a value of the wrong type).
fn explain_raised(
    report: &mut FillReport,
    context: &Context<'_>,
    suite: &'static dyn crate::suite::Suite,
) -> Result<(), Error> {
    let mut files: Vec<PathBuf> = report.raised().map(|f| PathBuf::from(&f.file)).collect();
    files.dedup();
    if files.is_empty() {
        return Ok(());
    }
    let options = crate::lint::Options {
        input_format: crate::lint::InputFormat::Suite(suite),
        config: crate::lint::Config::discover(&std::env::current_dir().unwrap_or_default())?,
        skip_snippets: true,
        ..crate::lint::Options::default()
    };
    let linted = crate::lint::lint_files(context.registry, &files, &options);
    report.attach_findings(&linted.findings);
    Ok(())
}

fn render(report: &FillReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let (fill_verb, seed_verb) = if report.written {
        ("filled", "seeded")
    } else {
        ("would fill", "would seed")
    };
    for s in &report.seeded {
        let _ = writeln!(
            out,
            "{seed_verb} {}[{:?}]: {} (needed by {} {}, {})",
            s.database,
            s.user,
            s.id,
            s.file,
            crate::dialogue::place_words(s.turn, s.call, s.line),
            s.api_name
        );
    }
    for f in &report.filled {
        let arguments = match f.arguments.as_slice() {
            [] => String::new(),
            names => format!("; request {}", names.join(", ")),
        };
        let raised = match (&f.exception, f.found.as_slice()) {
            (Some(exception), _) => format!(": it raised {exception:?}"),
            (None, []) => String::new(),
            (None, tools) => format!(": found {}", tools.join(", ")),
        };
        let _ = writeln!(
            out,
            "{fill_verb} {} {} ({}{arguments}){raised}",
            f.file,
            f.place_words(),
            f.api_name
        );
        for finding in &f.findings {
            let _ = writeln!(out, "    lint: {finding}");
        }
    }
    let _ = write!(
        out,
        "{}, {}: {} {fill_verb} in {}",
        plural(report.files, "conversation"),
        plural(report.calls, "gold call"),
        report.filled.len(),
        plural(report.changed_files.len(), "file")
    );
    let raised = report.raised().count();
    if raised > 0 {
        let _ = write!(
            out,
            " ({raised} of them raised: an error is recorded as their result; check for typos)"
        );
    }
    if !report.seeded.is_empty() || !report.changed_databases.is_empty() {
        let _ = write!(
            out,
            "; {} {seed_verb} into {}",
            plural(report.seeded.len(), "record"),
            report.changed_databases.join(", ")
        );
    }
    out.push('\n');
    out
}
