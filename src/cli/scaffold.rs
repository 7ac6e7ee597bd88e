//! `talkforge scaffold`.

use std::path::PathBuf;

use super::{OutputFormat, Status};
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(long)]
    pub scenario: String,
    #[arg(long)]
    pub out: PathBuf,
    #[arg(skip)]
    pub _format: Option<OutputFormat>,
}

pub fn run(_args: &Args) -> Result<Status, Error> {
    super::not_implemented("scaffold")
}
