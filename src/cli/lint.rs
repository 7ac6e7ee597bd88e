//! `talkforge lint`.

use std::path::PathBuf;

use super::{OutputFormat, Status};
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(default_value = "conversations")]
    pub paths: Vec<PathBuf>,
    #[arg(long, default_value = "auto")]
    pub input_format: String,
    #[arg(long, default_value = "human")]
    pub format: String,
    #[arg(long, value_delimiter = ',')]
    pub select: Vec<String>,
    #[arg(long, value_delimiter = ',')]
    pub ignore: Vec<String>,
    #[arg(long)]
    pub explain: Option<String>,
    #[arg(long, default_value = "databases")]
    pub databases: PathBuf,
    #[arg(skip)]
    pub _format: Option<OutputFormat>,
}

pub fn run(_args: &Args) -> Result<Status, Error> {
    super::not_implemented("lint")
}
