//! `cargo xtask schemas`.

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write nothing; fail when a committed schema differs from the types.
    #[arg(long)]
    pub check: bool,
}

pub fn run(_args: &Args) -> anyhow::Result<()> {
    anyhow::bail!("`cargo xtask schemas` is not written yet")
}
