//! `talkforge verify`: replay every gold call and compare.

use std::io::Write;
use std::path::PathBuf;

use super::{OutputFormat, Status};
use crate::formats::discover_alongside;
use crate::json::stream::ArraySpool;
use crate::sim::Databases;
use crate::verify::verify_in_order;
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
    let (files, databases) =
        discover_alongside(&args.paths, &["json"], || Databases::load(&args.databases));
    let databases = databases?;
    let files = files?;
    let mut stdout = std::io::BufWriter::new(std::io::stdout());
    let counts = match args.format {
        OutputFormat::Json => {
            // The differences are spooled (a copied dataset can have
            // thousands) and spliced in after the counts.
            let mut spool = ArraySpool::new();
            let mut spool_error = None;
            let render = crate::verify::Difference::render_element;
            let counts = verify_in_order(&files, &databases, render, |element| {
                if spool_error.is_none() {
                    spool_error = spool.push(&element).err();
                }
            });
            if let Some(e) = spool_error {
                return Err(Error::Other(format!(
                    "cannot keep the differences in a temporary file: {e}"
                )));
            }
            let _ = spool
                .write_document(&counts.report(), "differs", &mut stdout)
                .and_then(|()| writeln!(stdout));
            counts
        }
        OutputFormat::Human => {
            let counts = verify_in_order(
                &files,
                &databases,
                |d| {
                    format!(
                        "{} turn {} call {} ({}) differs:\n{}\n",
                        d.file, d.turn, d.call, d.api_name, d.diff
                    )
                },
                |text| {
                    let _ = stdout.write_all(text.as_bytes());
                },
            );
            let _ = writeln!(
                stdout,
                "{} conversations, {} gold calls: {} reproduce, {} differ",
                counts.conversations, counts.calls, counts.reproduced, counts.differs
            );
            counts
        }
    };
    let _ = stdout.flush();
    drop(stdout);
    for error in &counts.errors {
        eprintln!("error: {error}");
    }
    if !counts.errors.is_empty() {
        return Err(Error::Other(format!(
            "{} of {} files could not be verified",
            counts.errors.len(),
            files.len()
        )));
    }
    Ok(Status::from_findings(counts.differs > 0))
}
