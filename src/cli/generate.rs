//! `talkforge generate`.

use std::path::PathBuf;

use super::{OutputFormat, Status};
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(long)]
    pub dry_run: bool,
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t)]
    pub format: OutputFormat,
}

pub fn run(_args: &Args) -> Result<Status, Error> {
    super::not_implemented("generate")
}
