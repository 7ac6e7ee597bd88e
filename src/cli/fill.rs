//! `talkforge fill`.

use std::path::PathBuf;

use super::{OutputFormat, Status};
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Conversation files or folders (searched recursively for .json).
    #[arg(default_value = "conversations")]
    pub paths: Vec<PathBuf>,
    #[arg(long, default_value = "databases")]
    pub databases: PathBuf,
    /// Write nothing; exit 1 when any file would change.
    #[arg(long)]
    pub check: bool,
    /// Also add records that recorded query results list but the databases lack.
    #[arg(long)]
    pub seed: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: OutputFormat,
}

pub fn run(_args: &Args) -> Result<Status, Error> {
    super::not_implemented("fill")
}
