//! The benchmark families, one folder each, every one behind the seam in
//! `suite/`, and the registry the command line runs with: a family is one
//! line here.

use crate::suite::Registry;

pub mod apibank;
pub mod tau2;
pub mod tooltalk;

/// Every family, in the order `--suite` lists them.
pub fn registry() -> Registry {
    Registry::new(vec![&tooltalk::ToolTalk, &apibank::ApiBank])
}
