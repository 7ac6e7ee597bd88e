//! Evaluating assistants the way ToolTalk does.
//!
//! - [`simulate`]: Algorithm 1, running a predictor through every assistant
//!   turn of a gold conversation in the simulated world;
//! - [`score`]: Algorithm 2, matching predictions with gold calls through
//!   each tool's comparator, and the per-conversation metrics;
//! - [`outcome`], [`summary`], [`report`], [`output`]: error types, pooled
//!   metrics, `report.md` and the per-conversation output files;
//! - predictors: [`oracle`], [`openai`], [`replay`];
//! - text similarity for comparators: [`lexical`] (default), [`embeddings`];
//! - [`run`]: evaluating a set of files, with resume.

pub mod embeddings;
pub mod lexical;
pub mod openai;
pub mod oracle;
pub mod outcome;
pub mod output;
pub mod predict;
pub mod replay;
pub mod report;
pub mod run;
pub mod score;
pub mod simulate;
pub mod summary;

pub use predict::{
    Arguments, ArgumentsRef, BorrowedCall, HistoryItem, PredictError, PredictedCall, Prediction,
    Predictor, Proposal, ProposedCall, TurnInput,
};
pub use run::{evaluate_files, Evaluation, RunOptions, Similarity};
pub use score::Metrics;
pub use summary::Summary;
