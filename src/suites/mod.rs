//! The benchmark families, one folder each, every one behind the seam in
//! `suite/`.

use crate::suite::Suite;

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
        let extension = path.extension()?.to_str()?;
        all().into_iter().find(|s| s.extension() == extension)
    })
}
