//! `talkforge report RUN_DIR...`: several evaluation folders side by side.
//!
//! Each folder's kind is found among those the registry's suites list
//! (whole conversations, samples at a level, conversations with a user);
//! each kind gets its own tables, and runs of different kinds, or that
//! the kind keeps apart, are never put in one.
//!
//! Exit status: 0 when the report is written, 2 when a folder cannot be
//! read, the runs are of different kinds or levels, or they evaluated
//! different datasets (unless `--allow-different-datasets`).

use std::path::PathBuf;

use super::{Context, Status};
use crate::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum ReportFormat {
    /// Markdown tables.
    #[default]
    Markdown,
    /// One self-contained HTML page with charts and every failure's dialogue.
    Html,
    /// One JSON document.
    Json,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Evaluation folders (what `talkforge evaluate --out DIR` writes).
    #[arg(required = true, value_name = "RUN_DIR")]
    pub runs: Vec<PathBuf>,
    /// How to write the report.
    #[arg(long, value_enum, default_value_t)]
    pub format: ReportFormat,
    /// Compare runs whose datasets differ (or are unknown).
    #[arg(long)]
    pub allow_different_datasets: bool,
    /// Write the report to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(args: &Args, context: &mut Context<'_>) -> Result<Status, Error> {
    let kinds = context.registry.report_kinds();
    let report = crate::report::runs::compare(&kinds, &args.runs, args.allow_different_datasets)?;
    let text = match args.format {
        ReportFormat::Markdown => report.markdown()?,
        ReportFormat::Html => report.html()?,
        ReportFormat::Json => {
            serde_json::to_string_pretty(&report.json()).expect("a JSON value serialises") + "\n"
        }
    };
    match &args.output {
        Some(path) => crate::formats::atomic_write(path, text.as_bytes())?,
        None => {
            let _ = context.out.write_all(text.as_bytes());
            let _ = context.out.flush();
        }
    }
    Ok(Status::Clean)
}
