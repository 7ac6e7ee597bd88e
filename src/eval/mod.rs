//! Evaluating assistants with a suite's evaluation protocol.
//!
//! - the seam's [`protocol`](crate::suite::protocol) (what a suite's
//!   evaluation protocol, ToolTalk's Algorithms 1 and 2 under `suites/`,
//!   produces) and [`predict`](crate::suite::predict) (what the assistant
//!   sees of a turn);
//! - [`outcome`], [`failure`], [`summary`], [`report`], [`output`]: error
//!   types, why conversations failed, pooled
//!   metrics, `report.md` and the per-conversation output files;
//! - [`replay`]: the line format of predictions for whole conversations
//!   (who answers is [`crate::run::answer`]'s);
//! - text similarity for comparators: [`lexical`] (default), [`embeddings`];
//! - [`run`]: evaluating a set of files, with resume.

pub mod embeddings;
pub mod failure;
pub mod html;
pub mod lexical;
pub mod outcome;
pub mod output;
pub mod replay;
pub mod report;
pub mod run;
pub mod runs;
pub mod summary;

pub use run::Similarity;
