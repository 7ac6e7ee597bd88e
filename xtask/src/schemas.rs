//! `cargo xtask schemas`: write schemas/ from the serde types, or (with
//! `--check`) fail when a committed schema differs from them.

use std::path::Path;

use anyhow::{bail, Context};
use talkforge::schema::SchemaKind;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write nothing; fail when a committed schema differs from the types.
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut stale = Vec::new();
    for kind in SchemaKind::all(&talkforge::suites::registry()) {
        let path = dir.join(kind.file_name());
        let want = kind.text();
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have == want {
            continue;
        }
        if args.check {
            stale.push(kind.file_name());
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, want).with_context(|| format!("writing {}", path.display()))?;
        println!("wrote schemas/{}", kind.file_name());
    }
    if !stale.is_empty() {
        bail!(
            "schemas out of date (run `cargo xtask schemas`): {}",
            stale.join(", ")
        );
    }
    Ok(())
}
