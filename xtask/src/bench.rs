//! `cargo xtask bench`.

#[derive(Debug, clap::Args)]
pub struct Args {
    /// How many copies of upstream ToolTalk to benchmark over.
    #[arg(long, default_value_t = 100)]
    pub copies: usize,
}

pub fn run(_args: &Args) -> anyhow::Result<()> {
    anyhow::bail!("`cargo xtask bench` is not written yet")
}
