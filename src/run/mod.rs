//! Evaluation runs, whatever their kind: the run folder, the one driver
//! (parallel, progress, resume, failures), trials and pass^k, provenance,
//! and the one `summary.json` envelope. A kind of evaluation (whole
//! conversations, call samples, conversations with a user) says what one
//! file gives and how it is kept; the driver does the rest the same way
//! for all of them. Who answers is [`answer`]'s, the same for every kind.

pub mod answer;
pub mod conversation;
pub mod driver;
pub mod folder;
pub mod provenance;
pub mod replayed;
pub mod setup;
pub mod summary;
pub mod trials;
pub mod turn_request;
pub mod with_user;

pub use setup::Setup;
