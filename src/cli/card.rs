//! `talkforge card`: the dataset card's tables, generated from the dataset
//! (see `card`); `--write` puts them in the card, which `check` then holds
//! current.

use std::path::PathBuf;

use super::{Context, Status};
use crate::dataset::{split, subset_suites, Declarations};
use crate::policy::Policy;
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The repository (holding talkforge.toml and conversations/).
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Write the tables into the card instead of printing them.
    #[arg(long)]
    pub write: bool,
    /// Only this suite's files [default: every suite's, each subset read
    /// by its own (talkforge.toml) or by file name].
    #[arg(long)]
    pub suite: Option<String>,
}

pub fn run(args: &Args, context: &mut Context<'_>) -> Result<Status, Error> {
    let root = &args.root;
    let config = root.join(crate::lint::config::FILE_NAME);
    let policy = Policy::load(root)?.ok_or_else(|| {
        Error::input(
            &config,
            "no [dataset] table: the card's subsets are named there",
        )
    })?;
    let folder = root.join("conversations");
    let only = context.suite_named(args.suite.as_deref())?;
    let files = crate::formats::discover_dialogues(
        std::slice::from_ref(&folder),
        &context.registry.endings(only),
    )?;
    let registry = context.registry;
    let declarations = Declarations::new(registry, root, Some(&policy))?;
    let parts = split(registry, root, &declarations, files, only)?;
    let dataset = crate::check::read_dataset(&parts);
    let suites = subset_suites(registry, root, &policy, &parts);
    let fallback = parts
        .first()
        .map_or(only.unwrap_or(registry.first()), |p| p.suite);
    let tables = crate::card::tables(&policy, root, &suites, fallback, &dataset);
    if !args.write {
        for (_, table) in &tables {
            context.println(format_args!("{table}"));
        }
        return Ok(Status::Clean);
    }
    let card = policy
        .card
        .as_ref()
        .map(|card| root.join(card))
        .ok_or_else(|| {
            Error::input(
                &config,
                "[dataset] names no `card` file to write the tables into",
            )
        })?;
    let text = crate::formats::read::read_text(&card)?;
    let filled = crate::card::fill(&card, &text, &tables)?;
    if filled == text {
        eprintln!("{} is current", card.display());
    } else {
        crate::formats::atomic_write(&card, filled.as_bytes())?;
        eprintln!("wrote the tables into {}", card.display());
    }
    Ok(Status::Clean)
}
