//! `cargo xtask`: project chores that are not part of the shipped tool.

use clap::{Parser, Subcommand};

mod bench;
mod scale;
mod schemas;
mod tau2;

#[derive(Debug, Parser)]
#[command(name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Regenerate schemas/ from the serde types (`--check`: fail on drift).
    Schemas(schemas::Args),
    /// Print throughput and memory figures over the upstream datasets.
    Bench(bench::Args),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Schemas(args) => schemas::run(&args),
        Command::Bench(args) => bench::run(&args),
    }
}
