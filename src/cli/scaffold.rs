//! `talkforge scaffold`: a conversation skeleton from a generated scenario.

use std::path::PathBuf;

use super::Status;
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A scenario pool file, optionally with `#N` (0-based) to pick a
    /// scenario; without it the pool's first accepted scenario.
    #[arg(long, value_name = "FILE[#N]")]
    pub scenario: String,
    /// The conversation file to write; never overwritten.
    #[arg(long)]
    pub out: PathBuf,
    /// Where the Account database is (a user is taken from it).
    #[arg(long, default_value = "databases")]
    pub databases: PathBuf,
    /// Scaffold a scenario the generation filter rejected.
    #[arg(long)]
    pub allow_rejected: bool,
}

pub fn run(args: &Args) -> Result<Status, Error> {
    let conversation = crate::scaffold::scaffold(
        &args.scenario,
        &args.out,
        &args.databases,
        args.allow_rejected,
    )?;
    eprintln!(
        "wrote {} ({} tools); replace every `{}` text, then run `talkforge fill` and `talkforge lint`",
        args.out.display(),
        conversation.apis_used.len(),
        crate::scaffold::PLACEHOLDER
    );
    Ok(Status::Clean)
}
