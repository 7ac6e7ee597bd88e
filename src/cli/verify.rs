//! `talkforge verify`: replay every gold call and compare.

use std::path::PathBuf;

use super::{OutputFormat, Status};
use crate::dataset::discover;
use crate::sim::Databases;
use crate::verify::verify_files;
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Conversation files or folders (searched recursively for .json).
    #[arg(default_value = "conversations")]
    pub paths: Vec<PathBuf>,
    #[arg(long, default_value = "databases")]
    pub databases: PathBuf,
    #[arg(long, value_enum, default_value_t)]
    pub format: OutputFormat,
}

pub fn run(args: &Args) -> Result<Status, Error> {
    let databases = Databases::load(&args.databases)?;
    let files = discover(&args.paths, &["json"])?;
    let report = verify_files(&files, &databases);
    match args.format {
        OutputFormat::Json => {
            println!(
                "{}",
                serde_json::to_string_pretty(&report).map_err(|e| Error::Other(e.to_string()))?
            );
        }
        OutputFormat::Human => {
            for d in &report.differs {
                println!(
                    "{} turn {} call {} ({}) differs:\n{}",
                    d.file, d.turn, d.call, d.api_name, d.diff
                );
            }
            println!(
                "{} conversations, {} gold calls: {} reproduce, {} differ",
                report.conversations,
                report.calls,
                report.reproduced,
                report.differs.len()
            );
        }
    }
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
