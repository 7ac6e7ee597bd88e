//! `talkforge scenarios`: work with generated scenario pools.

use std::path::PathBuf;

use super::{Context, OutputFormat, Status};
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Pick N accepted scenarios per required tool, deterministically for a
    /// seed; each comes with the `FILE#N` reference `scaffold` takes.
    Sample(SampleArgs),
}

#[derive(Debug, clap::Args)]
pub struct SampleArgs {
    /// The folder of pool files.
    #[arg(long, default_value = "scenarios")]
    pub pools: PathBuf,
    /// How many scenarios to pick for each required tool.
    #[arg(long, default_value_t = 1)]
    pub per_tool: usize,
    /// Seed of the pick: the same seed and pools give the same sample.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Also write the sample to this file (JSON).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Human-readable text, or one JSON document on stdout.
    #[arg(long, value_enum, default_value_t)]
    pub format: OutputFormat,
}

pub fn run(args: &Args, context: &mut Context<'_>) -> Result<Status, Error> {
    match &args.command {
        Command::Sample(args) => sample(args, context),
    }
}

fn sample(args: &SampleArgs, context: &mut Context<'_>) -> Result<Status, Error> {
    if !args.pools.is_dir() {
        return Err(Error::input(&args.pools, "not a folder of scenario pools"));
    }
    let pools = crate::gen::sample::load_pools(&args.pools)?;
    if pools.is_empty() {
        return Err(Error::input(
            &args.pools,
            "holds no scenario pool (`talkforge generate --out DIR` writes them)",
        ));
    }
    let picked = crate::gen::sample::sample(&pools, args.per_tool, args.seed);
    let doc = serde_json::json!({"pools": pools.len(), "sampled": picked});
    if let Some(out) = &args.out {
        let text = format!("{}\n", serde_json::to_string_pretty(&doc).expect("json"));
        crate::formats::atomic_write(out, text.as_bytes())?;
    }
    match args.format {
        OutputFormat::Json => context.println(format_args!(
            "{}",
            serde_json::to_string_pretty(&doc).expect("json")
        )),
        OutputFormat::Human => {
            context.println(format_args!("required tool\tscenario\ttext"));
            for s in &picked {
                context.println(format_args!(
                    "{}\t{}\t{}",
                    s.required_tool, s.reference, s.text
                ));
            }
            eprintln!(
                "{} from {}",
                crate::words::count(picked.len(), "scenario"),
                crate::words::count(pools.len(), "pool")
            );
            let mut counts = std::collections::BTreeMap::new();
            for (_, pool) in &pools {
                counts.entry(pool.required_tool.as_str()).or_insert(0);
            }
            for s in &picked {
                *counts.entry(s.required_tool.as_str()).or_insert(0) += 1;
            }
            for (tool, n) in counts.into_iter().filter(|&(_, n)| n < args.per_tool) {
                eprintln!("warning: only {n} accepted scenarios require {tool}");
            }
        }
    }
    Ok(Status::Clean)
}
