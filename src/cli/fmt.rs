//! `talkforge fmt`: put hand-edited dialogue files back in their format's
//! canonical layout (see `formats::canonical`), or with `--check` list the
//! files that are not, for CI.
//!
//! Exit status: 0 when every file is (or now is) canonical, 1 with
//! `--check` when some would change, 2 when a file cannot be read.

use std::path::PathBuf;

use super::{Context, Status};
use crate::formats::{atomic_write, discover_dialogues};
use crate::words::count;
use crate::Error;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Dialogue files or folders (searched recursively for the suite's files).
    #[arg(default_value = "conversations")]
    pub paths: Vec<PathBuf>,
    /// The suite the dialogues belong to [default: each file's subset's in
    /// talkforge.toml, else by file extension].
    #[arg(long)]
    pub suite: Option<String>,
    /// Write nothing; list the files that would change and exit 1 if any.
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: &Args, context: &mut Context<'_>) -> Result<Status, Error> {
    let forced = context.suite_named(args.suite.as_deref())?;
    let files = discover_dialogues(&args.paths, &context.registry.endings(forced))?;
    // Each file in its own suite's layout: a repository may hold several.
    let groups = crate::dataset::by_suite(context.registry, &files, forced)?;
    let suites: Vec<_> = groups
        .iter()
        .flat_map(|(suite, group)| group.iter().map(move |path| (*suite, path)))
        .collect();
    // Every file is laid out before any is written: one that cannot be
    // read leaves the others as they were, and every such file is named.
    let mut changed = Vec::new();
    let mut failed = Vec::new();
    for (suite, path) in suites {
        let laid_out = || -> Result<Option<String>, Error> {
            let text = crate::formats::read::read_text(path)?;
            // What the readers refuse is not laid out: fmt never turns a
            // file they refuse into one they read.
            let format = suite.format_of(path);
            (format.parse)(path, &text)?;
            let canonical = (format.canonical)(path, &text)?;
            Ok((canonical != text).then_some(canonical))
        };
        match laid_out() {
            Ok(Some(canonical)) => changed.push((path, canonical)),
            Ok(None) => {}
            Err(e) => failed.push(e),
        }
    }
    if let Some(err) = crate::error::every_failure(failed, |n| {
        format!("{n} files cannot be read; nothing was reformatted")
    }) {
        return Err(err);
    }
    for (path, canonical) in &changed {
        if args.check {
            context.println(format_args!("would reformat {}", path.display()));
        } else {
            atomic_write(path, canonical.as_bytes())?;
            context.println(format_args!("reformatted {}", path.display()));
        }
    }
    let verb = if args.check {
        "would be reformatted"
    } else {
        "reformatted"
    };
    eprintln!(
        "{}: {} {verb}, {} already canonical",
        count(files.len(), "file"),
        changed.len(),
        files.len() - changed.len()
    );
    Ok(Status::from_findings(args.check && !changed.is_empty()))
}
