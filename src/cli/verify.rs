//! `talkforge verify`: replay every gold call and compare.

use std::io::Write;
use std::path::PathBuf;

use super::{OutputFormat, Status};
use crate::formats::discover;
use crate::suite::NotChecked;
use crate::suites::{extensions, of_files};
use crate::verify::verify_files;
use crate::Error;

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
    /// How a tool search picks its tool (API-Bank's ToolSearcher). A
    /// recorded search is answered for its recorded pick either way; where
    /// this retriever would pick another tool, verify says so apart.
    #[arg(long, value_enum, default_value_t)]
    pub retriever: super::Retriever,
    #[arg(long, value_enum, default_value_t)]
    pub format: OutputFormat,
}

pub fn run(args: &Args) -> Result<Status, Error> {
    let forced = super::suite_named(args.suite.as_deref())?;
    let files = discover(&args.paths, &extensions(forced))?;
    let suite = of_files(&files, forced)?;
    let databases_dir = args
        .databases
        .clone()
        .unwrap_or_else(|| PathBuf::from(suite.default_databases()));
    let databases = suite.load_databases(&databases_dir)?;
    let options = args.retriever.world_options();
    let report = verify_files(&files, suite, &databases, &options);
    let mut stdout = std::io::BufWriter::new(std::io::stdout());
    match args.format {
        OutputFormat::Json => {
            // Written as it is serialised: the differences can be megabytes.
            let _ = serde_json::to_writer_pretty(&mut stdout, &report)
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(stdout));
        }
        OutputFormat::Human => {
            for d in &report.differs {
                let _ = writeln!(
                    stdout,
                    "{} turn {} call {} ({}) differs:\n{}",
                    d.file, d.turn, d.call, d.api_name, d.diff
                );
            }
            for n in &report.not_checked {
                let why = match n.reason {
                    NotChecked::Random => "it draws from unseeded randomness",
                    NotChecked::External => "it asks a live web service",
                };
                let _ = writeln!(
                    stdout,
                    "{} turn {} call {} ({}) not checked: {why}",
                    n.file, n.turn, n.call, n.api_name
                );
            }
            for r in &report.retrieval {
                let _ = writeln!(
                    stdout,
                    "{} turn {} call {}: the recording retrieved {}, the {} retriever picks {}",
                    r.file,
                    r.turn,
                    r.call,
                    r.recorded,
                    options.retriever.name(),
                    r.retriever
                );
            }
            let _ = write!(
                stdout,
                "{} conversations, {} gold calls: {} reproduce, {} differ",
                report.conversations,
                report.calls,
                report.reproduced,
                report.differs.len()
            );
            if !report.not_checked.is_empty() {
                let _ = write!(stdout, ", {} not checked", report.not_checked.len());
            }
            let _ = writeln!(stdout);
        }
    }
    let _ = stdout.flush();
    drop(stdout);
    for error in &report.errors {
        eprintln!("error: {error}");
    }
    if !report.errors.is_empty() {
        return Err(Error::Other(format!(
            "{} of {} files could not be verified",
            report.errors.len(),
            files.len()
        )));
    }
    Ok(Status::from_findings(!report.differs.is_empty()))
}
