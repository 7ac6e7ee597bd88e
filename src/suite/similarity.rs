//! How comparators decide that two free texts say the same thing.
//!
//! The reference compares free text (an email body, an event description)
//! by the cosine of DistilBERT sentence embeddings against a per-tool
//! threshold. Implementations live in `eval`; comparators only ask.

pub trait TextSimilarity: Sync {
    /// Whether `prediction` says what `gold` says, where the reference would
    /// accept a cosine of at least `reference_threshold`. A missing
    /// prediction (`None`) never matches.
    fn similar(&self, prediction: Option<&str>, gold: &str, reference_threshold: f64) -> bool;
}

/// Exact string equality: strict, for tests and as a fallback.
#[derive(Debug, Default, Clone, Copy)]
pub struct ExactText;

impl TextSimilarity for ExactText {
    fn similar(&self, prediction: Option<&str>, gold: &str, _reference_threshold: f64) -> bool {
        prediction == Some(gold)
    }
}
