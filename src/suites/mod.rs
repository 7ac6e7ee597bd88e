//! The benchmark families, one folder each, every one behind the seam in
//! `suite/`.

use std::path::PathBuf;

use crate::suite::Suite;
use crate::{Error, Result};

pub mod apibank;
pub mod tooltalk;

/// Every suite, in the order `--suite` lists them.
pub fn all() -> [&'static dyn Suite; 2] {
    [&tooltalk::ToolTalk, &apibank::ApiBank]
}

/// A suite by its `--suite` name.
pub fn by_name(name: &str) -> Option<&'static dyn Suite> {
    all().into_iter().find(|s| s.name() == name)
}

/// The suite that reads `path`: the one `forced` names (`--suite`), else
/// the one whose dialogue files have the path's extension.
pub fn for_path(
    path: &std::path::Path,
    forced: Option<&'static dyn Suite>,
) -> Option<&'static dyn Suite> {
    forced.or_else(|| {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        let ends_in = |ending: &str| {
            name.strip_suffix(ending)
                .and_then(|rest| rest.strip_suffix('.'))
                .is_some_and(|stem| !stem.is_empty())
        };
        // The longest ending that fits: `x.lv3.json` is API-Bank's
        // scenario, not a ToolTalk conversation.
        all()
            .into_iter()
            .flat_map(|s| {
                std::iter::once(s.extension())
                    .chain(s.scenario_extensions().iter().copied())
                    .map(move |ending| (ending, s))
            })
            .filter(|(ending, _)| ends_in(ending))
            .max_by_key(|(ending, _)| ending.len())
            .map(|(_, s)| s)
    })
}

/// The suite whose dialogues `files` are: the one `--suite` forced, else
/// the one that reads their extension (the first suite when there are no
/// files). Files of two suites are refused: one databases folder serves
/// one suite.
pub fn of_files(
    files: &[PathBuf],
    forced: Option<&'static dyn Suite>,
) -> Result<&'static dyn Suite> {
    let mut suite: Option<&'static dyn Suite> = forced;
    for file in files {
        let Some(found) = for_path(file, forced) else {
            return Err(Error::input(file, "no suite reads this file (try --suite)"));
        };
        match suite {
            Some(s) if s.name() != found.name() => {
                return Err(Error::Usage(format!(
                    "{} belongs to the {} suite and other files to the {} suite: pick one with --suite, or give each suite's files on their own",
                    file.display(),
                    found.name(),
                    s.name()
                )))
            }
            _ => suite = Some(found),
        }
    }
    Ok(suite.unwrap_or(all()[0]))
}

/// The name endings of the files a run looks for (dialogues and the
/// scenarios read as dialogues): the forced suite's, or every suite's.
pub fn extensions(forced: Option<&'static dyn Suite>) -> Vec<&'static str> {
    let suites = match forced {
        Some(suite) => vec![suite],
        None => all().to_vec(),
    };
    suites
        .iter()
        .flat_map(|s| std::iter::once(s.extension()).chain(s.scenario_extensions().iter().copied()))
        .collect()
}
