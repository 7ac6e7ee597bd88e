//! `talkforge verify`: replay every gold call and compare.
//!
//! Exit status: 0 when every call reproduces (or differs as an erratum
//! records), 1 when a call differs unknown or an erratum no longer
//! applies, 2 when the files could not be verified.

use std::io::Write;
use std::path::PathBuf;

use super::{Context, OutputFormat, Status};
use crate::errata::Errata;
use crate::formats::discover_dialogues as discover;
use crate::verify::output::{write_human, write_json, Run};
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
    #[command(flatten)]
    pub retrieval: super::RetrievalArgs,
    /// Errata files: known problems of gold results, shown as known
    /// rather than failing (a dialogue's own `errata` always count).
    #[arg(long, value_name = "FILE")]
    pub errata: Vec<PathBuf>,
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
    let errata = Errata::load(&args.errata)?;
    if let Some(own) = suite.verify_own(&files, args.databases.as_deref(), &errata) {
        return write_own(&own?, args.format, context);
    }
    let databases_dir = super::databases_dir(given_databases.as_deref(), suite)?;
    let databases = suite.load_databases(&databases_dir)?;
    let options = args
        .retrieval
        .world_options_declared(resolved.tool_descriptions)?;
    let run = Run {
        files: &files,
        suite,
        databases: &databases,
        options: &options,
        errata: &errata,
    };
    let mut stdout = std::io::BufWriter::new(&mut *context.out);
    // Written as the files are verified: the differences can be megabytes.
    let written = match args.format {
        OutputFormat::Json => write_json(&run, &mut stdout),
        OutputFormat::Human => write_human(&run, &mut stdout),
    };
    let _ = stdout.flush();
    drop(stdout);
    let report = written.map_err(|e| Error::Other(format!("cannot write the report: {e}")))?;
    for error in &report.errors {
        eprintln!("error: {error}");
    }
    // One message per cause, however many searches it failed.
    let failures: Vec<String> = report
        .retriever_failures
        .iter()
        .map(|failure| {
            format!(
                "the {} retriever failed {}: {}",
                options.retriever.name(),
                crate::words::count(failure.searches, "tool search"),
                failure.error
            )
        })
        .collect();
    if let Some((last, rest)) = failures.split_last() {
        for failure in rest {
            eprintln!("error: {failure}");
        }
        return Err(Error::Other(last.clone()));
    }
    if !report.errors.is_empty() {
        return Err(Error::Other(format!(
            "{} of {} could not be verified",
            report.errors.len(),
            crate::words::count(files.len(), "file")
        )));
    }
    Ok(Status::from_findings(report.fails()))
}

/// A suite's own report (tau2's tasks), as JSON or text.
fn write_own(
    own: &crate::suite::OwnVerification,
    format: OutputFormat,
    context: &mut Context<'_>,
) -> Result<Status, Error> {
    let mut stdout = std::io::BufWriter::new(&mut *context.out);
    let written = match format {
        OutputFormat::Json => serde_json::to_writer(&mut stdout, &own.json)
            .map_err(std::io::Error::other)
            .and_then(|_| writeln!(stdout)),
        OutputFormat::Human => stdout.write_all(own.human.as_bytes()),
    };
    written
        .and_then(|_| stdout.flush())
        .map_err(|e| Error::Other(format!("cannot write the report: {e}")))?;
    Ok(Status::from_findings(own.fails))
}
