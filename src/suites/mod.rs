//! The benchmark families, one folder each, every one behind the seam in
//! `suite/`.

use crate::suite::Suite;

pub mod apibank;
pub mod tooltalk;

/// Every suite, in the order `--suite` lists them.
pub fn all() -> [&'static dyn Suite; 1] {
    [&tooltalk::ToolTalk]
}

/// A suite by its `--suite` name.
pub fn by_name(name: &str) -> Option<&'static dyn Suite> {
    all().into_iter().find(|s| s.name() == name)
}
