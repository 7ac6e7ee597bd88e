//! `talkforge report RUN_DIR...`: several evaluation folders side by side.
//!
//! Exit status: 0 when the report is written, 2 when a folder cannot be
//! read or the runs evaluated different datasets (unless
//! `--allow-different-datasets`).

use std::io::Write;
use std::path::PathBuf;

use super::Status;
use crate::eval::runs::{json, load_runs, markdown};
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

pub fn run(args: &Args) -> Result<Status, Error> {
    let runs = load_runs(&args.runs, args.allow_different_datasets)?;
    let text = match args.format {
        ReportFormat::Markdown => markdown(&runs),
        ReportFormat::Json => {
            let mut text = serde_json::to_string_pretty(&json(&runs))
                .map_err(|e| Error::Other(e.to_string()))?;
            text.push('\n');
            text
        }
        ReportFormat::Html => crate::eval::html::render(&runs)?,
    };
    match &args.output {
        Some(path) => crate::formats::atomic_write(path, text.as_bytes())?,
        None => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(text.as_bytes());
            let _ = stdout.flush();
        }
    }
    Ok(Status::Clean)
}
