//! `talkforge tools`.

use std::path::PathBuf;

use super::{OutputFormat, Status};
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(long, default_value = "markdown")]
    pub format: String,
    #[arg(skip)]
    pub _unused: Option<(PathBuf, OutputFormat)>,
}

pub fn run(_args: &Args) -> Result<Status, Error> {
    super::not_implemented("tools")
}
