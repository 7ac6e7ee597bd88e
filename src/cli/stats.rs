//! `talkforge stats`.

use std::path::PathBuf;

use super::{OutputFormat, Status};
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(default_value = "conversations")]
    pub paths: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t)]
    pub format: OutputFormat,
}

pub fn run(_args: &Args) -> Result<Status, Error> {
    super::not_implemented("stats")
}
