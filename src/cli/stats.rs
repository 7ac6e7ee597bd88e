//! `talkforge stats`: how many conversations and gold calls, and how they
//! cover the subsets, plugins and tools.

use crate::words::count;
use indexmap::IndexMap;
use std::path::PathBuf;

use super::{Context, OutputFormat, Status};
use crate::formats::discover_dialogues as discover;
use crate::stats::{stats_of_readable, Stats};
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Dialogue files or folders (searched recursively for the suite's files).
    #[arg(default_value = "conversations")]
    pub paths: Vec<PathBuf>,
    /// Human-readable text, or one JSON document on stdout.
    #[arg(long, value_enum, default_value_t)]
    pub format: OutputFormat,
    /// The suite the dialogues belong to [default: each file's subset's in
    /// the nearest talkforge.toml, else by file extension; files of several
    /// suites are counted per suite].
    #[arg(long)]
    pub suite: Option<String>,
    /// List every tool of the catalog in the human output, those no gold
    /// call uses too (JSON always has them all).
    #[arg(long)]
    pub all_tools: bool,
}

pub fn run(args: &Args, context: &mut Context<'_>) -> Result<Status, Error> {
    let forced = context.suite_named(args.suite.as_deref())?;
    let files = discover(&args.paths, &context.registry.endings(forced))?;
    // Each suite counts its own files (a repository may hold several).
    let groups = crate::dataset::by_suite(context.registry, &files, forced)?;
    // One bad file never hides the others: their statistics are printed,
    // the bad files listed (under `errors` in JSON, on stderr), exit 2.
    let mut errors = Vec::new();
    let mut by_suite: IndexMap<String, Stats> = IndexMap::new();
    for (suite, files) in &groups {
        let (stats, failed) = stats_of_readable(files, *suite);
        errors.extend(failed);
        by_suite.insert(suite.name().to_string(), stats);
    }
    let stats = by_suite
        .values()
        .cloned()
        .reduce(|mut all, stats| {
            all.merge(stats);
            all
        })
        .unwrap_or_default();
    match args.format {
        OutputFormat::Json => {
            #[derive(serde::Serialize)]
            struct Report<'a> {
                #[serde(flatten)]
                stats: &'a Stats,
                /// Each suite's counts, when the files are of several.
                #[serde(skip_serializing_if = "Option::is_none")]
                by_suite: Option<&'a IndexMap<String, Stats>>,
                #[serde(skip_serializing_if = "Vec::is_empty")]
                errors: Vec<String>,
            }
            let report = Report {
                stats: &stats,
                by_suite: (by_suite.len() > 1).then_some(&by_suite),
                errors: errors.iter().map(Error::to_string).collect(),
            };
            context.println(format_args!(
                "{}",
                serde_json::to_string_pretty(&report).map_err(|e| Error::Other(e.to_string()))?
            ));
        }
        OutputFormat::Human if by_suite.len() > 1 => {
            for (suite, stats) in &by_suite {
                context.println(format_args!("== {suite} =="));
                context.println(format_args!("{}", render(stats, args.all_tools)));
            }
            context.print(format_args!(
                "total: {}, {}\n",
                count(stats.conversations, "conversation"),
                count(stats.gold_calls, "gold call")
            ));
        }
        OutputFormat::Human => context.print(format_args!("{}", render(&stats, args.all_tools))),
    }
    match crate::error::every_failure(errors, |n| format!("{n} files cannot be read")) {
        Some(e) => Err(e),
        None => Ok(Status::Clean),
    }
}

/// The one-screen human summary: the tools the gold calls use, or with
/// `all_tools` every tool of the catalog.
pub fn render(stats: &Stats, all_tools: bool) -> String {
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
    let mut unused = 0;
    for (name, n) in &stats.by_tool {
        if *n == 0 && !all_tools {
            unused += 1;
            continue;
        }
        let convs = stats.conversations_by_tool.get(name).copied().unwrap_or(0);
        let _ = writeln!(out, "{name:<26} {n:>6} {convs:>14}");
    }
    if unused > 0 {
        let _ = writeln!(
            out,
            "({} of the catalog no gold call uses; --all-tools lists them)",
            count(unused, "tool")
        );
    }
    out
}
