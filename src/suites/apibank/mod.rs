//! API-Bank (Li et al., 2023): the catalog of its 53 APIs, as the
//! dialogues call them. Its dialogues (.jsonl) are read by
//! `formats::apibank`.

pub mod catalog;

pub use crate::formats::apibank::{ApiCall, Dialogue, DialogueLine, LineKind};
pub use catalog::{api, catalog, ApiFormat, ApiParam, ApiSpec, ApiType};
