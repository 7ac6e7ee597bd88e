//! API-Bank (Li et al., 2023): its dialogues (.jsonl, one turn a line) and
//! the catalog of its 53 APIs, as the dialogues call them.

pub mod catalog;
pub mod dialogue;

pub use catalog::{api, catalog, ApiFormat, ApiParam, ApiSpec, ApiType};
pub use dialogue::{ApiCall, Dialogue, DialogueLine, LineKind};
