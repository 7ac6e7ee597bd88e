//! `talkforge scaffold`: a conversation skeleton from a generated scenario.

use std::path::PathBuf;

use super::{Context, Status};
use crate::scaffold::UserChoice;
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
    /// The databases folder, whose Account database a user is taken from
    /// [default: the suite's own].
    #[arg(long)]
    pub databases: Option<PathBuf>,
    /// The account the conversation is with [default: the person the
    /// scenario names, when Account.json has them; else its first account].
    #[arg(long, value_name = "USERNAME")]
    pub user: Option<String>,
    /// The suite whose dialogue to write [default: the first with scenario
    /// pools].
    #[arg(long)]
    pub suite: Option<String>,
    /// Scaffold a scenario the generation filter rejected.
    #[arg(long)]
    pub allow_rejected: bool,
}

pub fn run(args: &Args, context: &mut Context<'_>) -> Result<Status, Error> {
    let suite = super::generate::pools_suite(context, args.suite.as_deref())?;
    let pools = suite.scenario_pools().expect("a suite with scenario pools");
    // A missing folder is not an error here: the skeleton then has a
    // placeholder user.
    let databases = args
        .databases
        .clone()
        .unwrap_or_else(|| PathBuf::from(suite.default_databases()));
    let crate::scaffold::Scaffold {
        conversation,
        choice,
        ..
    } = crate::scaffold::scaffold(
        pools,
        &args.scenario,
        &args.out,
        &databases,
        args.user.as_deref(),
        args.allow_rejected,
    )?;
    let who = conversation.user.username.as_deref().unwrap_or_default();
    let how = match choice {
        UserChoice::Named => format!("for {who}"),
        UserChoice::FromScenario => format!("for {who}, whom the scenario names"),
        UserChoice::FirstAccount => format!(
            "for {who}, the first account: nobody the scenario names is in Account.json (--user USERNAME picks another)"
        ),
        UserChoice::Placeholders => "with a placeholder user (no Account.json)".to_string(),
    };
    eprintln!(
        "wrote {} ({}) {how}, at {}; replace every `{}` text, then run `talkforge fill` and `talkforge lint`",
        args.out.display(),
        crate::words::count(conversation.apis_used.len(), "tool"),
        conversation.metadata.timestamp,
        crate::scaffold::PLACEHOLDER
    );
    Ok(Status::Clean)
}
