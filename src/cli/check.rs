//! `talkforge check`: the main job over this repository's dataset.

use std::path::PathBuf;

use super::{Context, OutputFormat, Status};
use crate::check::{check_repository_with, render, Outcome};
use crate::errata::Errata;
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Repository root holding conversations/, databases/ and scenarios/.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Errata files: known problems of gold results, passing as known;
    /// one that no longer applies fails (a dialogue's own `errata` always count).
    #[arg(long, value_name = "FILE")]
    pub errata: Vec<PathBuf>,
    /// Check only this suite's files, with its databases [default: every
    /// suite's, each subset read by its own (talkforge.toml) or by file name].
    #[arg(long)]
    pub suite: Option<String>,
    /// Whose words API-Bank's tool searches answer with: the reference's
    /// (what upstream recordings hold) or this project's catalog
    /// [default: each subset's `tool-descriptions` in talkforge.toml, else
    /// the reference's].
    #[arg(long, value_enum)]
    pub tool_descriptions: Option<crate::suite::ToolDescriptions>,
    /// Human-readable text, or one JSON document on stdout.
    #[arg(long, value_enum, default_value_t)]
    pub format: OutputFormat,
}

pub fn run(args: &Args, context: &mut Context<'_>) -> Result<Status, Error> {
    let forced = context.suite_named(args.suite.as_deref())?;
    let errata = Errata::load(&args.errata)?;
    let report = check_repository_with(
        context.registry,
        forced,
        &args.root,
        &errata,
        args.tool_descriptions,
    )?;
    match args.format {
        OutputFormat::Json => context.println(format_args!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| Error::Other(e.to_string()))?
        )),
        OutputFormat::Human => context.print(format_args!("{}", render(&report))),
    }
    match report.outcome {
        Outcome::Passed => Ok(Status::Clean),
        Outcome::Failed => Ok(Status::Findings),
        // The summary is out; the exit code still says some input was unreadable.
        Outcome::Broken => Err(Error::Other(
            "some input could not be read (see above)".into(),
        )),
    }
}
