//! `talkforge stats`: how many conversations and gold calls, and how they
//! cover the subsets, plugins and tools.

use crate::words::count;
use std::path::PathBuf;

use super::{OutputFormat, Status};
use crate::formats::discover_dialogues as discover;
use crate::stats::{stats_files, Stats};
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Dialogue files or folders (searched recursively for the suite's files).
    #[arg(default_value = "conversations")]
    pub paths: Vec<PathBuf>,
    /// Human-readable text, or one JSON document on stdout.
    #[arg(long, value_enum, default_value_t)]
    pub format: OutputFormat,
    /// The suite the dialogues belong to [default: by file extension].
    #[arg(long)]
    pub suite: Option<String>,
}

pub fn run(args: &Args) -> Result<Status, Error> {
    let forced = super::suite_named(args.suite.as_deref())?;
    let files = discover(&args.paths, &crate::suites::extensions(forced))?;
    let suite = crate::suites::of_files(&files, forced)?;
    let stats = stats_files(&files, suite)?;
    match args.format {
        OutputFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&stats).map_err(|e| Error::Other(e.to_string()))?
        ),
        OutputFormat::Human => print!("{}", render(&stats)),
    }
    Ok(Status::Clean)
}

/// The one-screen human summary.
pub fn render(stats: &Stats) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let subsets: Vec<String> = stats
        .by_subset
        .iter()
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    let _ = writeln!(
        out,
        "{} ({}), {} ({}, {} failing), {}",
        count(stats.conversations, "conversation"),
        subsets.join(", "),
        count(stats.gold_calls, "gold call"),
        count(stats.action_calls, "action"),
        stats.failing_calls,
        count(stats.turns, "turn")
    );
    let _ = writeln!(out, "\n{:<14} {:>6}", "plugin", "calls");
    for (plugin, n) in &stats.by_plugin {
        let _ = writeln!(out, "{plugin:<14} {n:>6}");
    }
    let _ = writeln!(
        out,
        "\n{:<26} {:>6} {:>14}",
        "tool", "calls", "conversations"
    );
    for (name, n) in &stats.by_tool {
        let convs = stats.conversations_by_tool.get(name).copied().unwrap_or(0);
        let _ = writeln!(out, "{name:<26} {n:>6} {convs:>14}");
    }
    out
}
