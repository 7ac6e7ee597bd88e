//! API-Bank's evaluation at levels 1 and 2, as the paper's Table 3 scores
//! it: API-call accuracy (correct call samples / call samples) and the
//! ROUGE-L of the reply after an API's result.
//!
//! - [`samples`]: which samples a dialogue makes, as the reference's
//!   evaluator builds them;
//! - [`prompt`] and [`predict`]: what a sample asks of the answerer
//!   ([`crate::run::answer`]: the oracle, a replay file, a model) and
//!   what a model is sent; API-Bank's replay line format;
//! - [`score`]: the reference and the lenient scoring, how each reads a
//!   call out of the text ([`reference_parse`]: the reference's
//!   patterns), runs it and asks the gold API's own correctness check;
//!   [`retrieval`]: ToolSearcher's picks;
//! - [`rouge`]: ROUGE-L as the `rouge` 1.0.1 package computes it;
//! - [`run`]: evaluating a set of files with resume, and [`report`]: the
//!   summary and `report.md`; [`level_runs`]: runs at levels 1 and 2
//!   side by side (`talkforge report`).

pub mod level_runs;
pub mod predict;
pub mod prompt;
pub mod reference_parse;
pub mod report;
pub mod retrieval;
pub mod rouge;
pub mod run;
pub mod samples;
pub mod score;

use crate::suite::levels::{Level, LevelProtocol, LevelRun};
use crate::Result;

/// API-Bank's levels 1 and 2.
pub struct ApiBankLevels;

/// The levels `--level` takes.
pub const LEVELS: &[Level] = &[
    Level {
        number: 1,
        summary: "call the right API, given the documentation of the APIs the dialogue uses",
    },
    Level {
        number: 2,
        summary: "find the API with ToolSearcher (its documentation alone is given), then call it",
    },
];

impl LevelProtocol for ApiBankLevels {
    fn levels(&self) -> &'static [Level] {
        LEVELS
    }

    fn evaluate(&self, run: &LevelRun<'_>) -> Result<crate::run::summary::Outcome> {
        run::evaluate(run)
    }

    fn report_kind(&self) -> &'static dyn crate::report::runs::RunKind {
        crate::report::runs::kind::<report::LevelFigures>()
    }
}
