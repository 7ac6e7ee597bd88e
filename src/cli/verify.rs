//! `talkforge verify`: replay every gold call and compare.

use std::io::Write;
use std::path::PathBuf;

use super::{OutputFormat, Status};
use crate::formats::discover;
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
    let report = verify_files(&files, suite, &databases);
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
            let _ = writeln!(
                stdout,
                "{} conversations, {} gold calls: {} reproduce, {} differ",
                report.conversations,
                report.calls,
                report.reproduced,
                report.differs.len()
            );
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
