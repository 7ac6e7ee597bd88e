//! Evaluating assistants with a suite's evaluation protocol.
//!
//! - the seam's [`protocol`](crate::suite::protocol) (what a suite's
//!   evaluation protocol, ToolTalk's Algorithms 1 and 2 under `suites/`,
//!   produces) and [`predict`](crate::suite::predict) (what a predictor
//!   sees and answers);
//! - [`outcome`], [`failure`], [`summary`], [`report`], [`output`]: error
//!   types, why conversations failed, pooled
//!   metrics, `report.md` and the per-conversation output files;
//! - predictors: [`oracle`], [`openai`], [`replay`];
//! - text similarity for comparators: [`lexical`] (default), [`embeddings`];
//! - [`run`]: evaluating a set of files, with resume.

pub mod embeddings;
pub mod failure;
pub mod html;
pub mod lexical;
pub mod openai;
pub mod oracle;
pub mod outcome;
pub mod output;
pub use crate::run::provenance;
pub mod replay;
pub mod report;
pub mod run;
pub mod runs;
pub mod summary;

pub use crate::suite::predict::{
    HistoryItem, PredictError, PredictedCall, Prediction, Predictor, ProposedCall, TurnInput,
};
pub use crate::suite::protocol::Metrics;
pub use run::{evaluate_files, RunOptions, Similarity};
pub use summary::Summary;
