//! What a run's requests cost: the tokens each reply's server reported
//! (its `usage`), counted per model and per role by a run-wide [`Meter`]
//! that the LLM client feeds. Replies taken from the cache are counted
//! apart: they cost nothing in this run, and what they cost when first
//! asked is shown beside what this run spent.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

/// The tokens of one reply, as its server reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
}

impl Tokens {
    fn add(&mut self, other: Tokens) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.total_tokens += other.total_tokens;
    }

    fn minus(self, other: Tokens) -> Tokens {
        Tokens {
            prompt_tokens: self.prompt_tokens.saturating_sub(other.prompt_tokens),
            completion_tokens: self
                .completion_tokens
                .saturating_sub(other.completion_tokens),
            total_tokens: self.total_tokens.saturating_sub(other.total_tokens),
        }
    }
}

impl From<&async_openai::types::CompletionUsage> for Tokens {
    fn from(u: &async_openai::types::CompletionUsage) -> Self {
        Tokens {
            prompt_tokens: u64::from(u.prompt_tokens),
            completion_tokens: u64::from(u.completion_tokens),
            total_tokens: u64::from(u.total_tokens),
        }
    }
}

impl From<&async_openai::types::EmbeddingUsage> for Tokens {
    fn from(u: &async_openai::types::EmbeddingUsage) -> Self {
        Tokens {
            prompt_tokens: u64::from(u.prompt_tokens),
            completion_tokens: 0,
            total_tokens: u64::from(u.total_tokens),
        }
    }
}

/// What a model was asked for in a run: one model may play two parts
/// (level 3's assistant and the user it talks to), counted apart.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The assistant under evaluation.
    #[default]
    Assistant,
    /// A model playing the user (level 3).
    User,
    /// Embeddings (text similarity, tool search).
    Embeddings,
    /// Writing scenarios, drafts or seed rows (`generate`, drafting).
    Generator,
    /// Judging drafts.
    Judge,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Assistant => "assistant",
            Role::User => "user",
            Role::Embeddings => "embeddings",
            Role::Generator => "generator",
            Role::Judge => "judge",
        }
    }
}

/// One model's requests in one role over a run: `summary.json`'s `usage`
/// holds one per model and role asked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelUsage {
    /// The model asked for (the server may report a dated name).
    pub model: String,
    pub role: Role,
    /// Replies the run used, sent or cached.
    pub requests: u64,
    /// Of them, answered from the cache.
    pub cached: u64,
    /// Tokens spent in this run (replies sent).
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
    /// Tokens the cached replies cost when first asked (as far as their
    /// entries recorded it).
    pub cached_prompt_tokens: u64,
    pub cached_completion_tokens: u64,
    pub cached_total_tokens: u64,
    /// Replies whose cost is unknown (the server sent no `usage`, or a
    /// cache entry from before talkforge kept it): left out of the token
    /// figures above.
    pub without_usage: u64,
}

/// Counts per (role, model).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tally {
    requests: u64,
    cached: u64,
    spent: Tokens,
    cached_cost: Tokens,
    without_usage: u64,
}

type Tallies = BTreeMap<(Role, String), Tally>;

/// The run-wide meter: thread-safe, cheap to clone (clones count into
/// the same figures).
#[derive(Debug, Clone, Default)]
pub struct Meter(Arc<Mutex<Tallies>>);

/// The meter's figures at one moment (see [`Meter::since`]).
#[derive(Debug, Clone, Default)]
pub struct Reading(Tallies);

impl Meter {
    pub fn new() -> Meter {
        Meter::default()
    }

    /// Count one reply to a request for `model`, from the cache or not,
    /// with its server's `usage` when it sent one.
    pub fn record(&self, role: Role, model: &str, cached: bool, usage: Option<Tokens>) {
        let mut tallies = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let tally = tallies.entry((role, model.to_string())).or_default();
        tally.requests += 1;
        match (cached, usage) {
            (_, None) => tally.without_usage += 1,
            (false, Some(tokens)) => tally.spent.add(tokens),
            (true, Some(tokens)) => tally.cached_cost.add(tokens),
        }
        if cached {
            tally.cached += 1;
        }
    }

    /// The figures now, to measure a part of the run from.
    pub fn reading(&self) -> Reading {
        Reading(self.0.lock().unwrap_or_else(|e| e.into_inner()).clone())
    }

    /// Every model and role asked, in role then model order.
    pub fn usage(&self) -> Vec<ModelUsage> {
        self.since(&Reading::default())
    }

    /// What was counted after `before` (a trial of a run).
    pub fn since(&self, before: &Reading) -> Vec<ModelUsage> {
        let tallies = self.0.lock().unwrap_or_else(|e| e.into_inner());
        tallies
            .iter()
            .filter_map(|((role, model), now)| {
                let then = before
                    .0
                    .get(&(*role, model.clone()))
                    .copied()
                    .unwrap_or_default();
                let requests = now.requests - then.requests;
                (requests > 0).then(|| {
                    let spent = now.spent.minus(then.spent);
                    let cached_cost = now.cached_cost.minus(then.cached_cost);
                    ModelUsage {
                        model: model.clone(),
                        role: *role,
                        requests,
                        cached: now.cached - then.cached,
                        prompt_tokens: spent.prompt_tokens,
                        completion_tokens: spent.completion_tokens,
                        total_tokens: spent.total_tokens,
                        cached_prompt_tokens: cached_cost.prompt_tokens,
                        cached_completion_tokens: cached_cost.completion_tokens,
                        cached_total_tokens: cached_cost.total_tokens,
                        without_usage: now.without_usage - then.without_usage,
                    }
                })
            })
            .collect()
    }
}

/// The model and its role in words: "gpt-4o", "gpt-4o (user)".
pub fn who(usage: &ModelUsage) -> String {
    match usage.role {
        Role::Assistant => usage.model.clone(),
        role => format!("{} ({})", usage.model, role.name()),
    }
}

/// One line per model for a command's human output; empty when no model
/// was asked.
pub fn human(usage: &[ModelUsage]) -> String {
    let mut out = String::new();
    for u in usage {
        out += &format!(
            "tokens {}: {} spent ({} prompt, {} completion) over {} sent",
            who(u),
            u.total_tokens,
            u.prompt_tokens,
            u.completion_tokens,
            crate::words::count((u.requests - u.cached) as usize, "request"),
        );
        if u.cached > 0 {
            out += &format!(
                "; {} cached (they cost {} when asked)",
                u.cached, u.cached_total_tokens
            );
        }
        if u.without_usage > 0 {
            out += &format!(
                "; {} without a usage figure",
                crate::words::count(u.without_usage as usize, "reply")
            );
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(p: u64, c: u64) -> Option<Tokens> {
        Some(Tokens {
            prompt_tokens: p,
            completion_tokens: c,
            total_tokens: p + c,
        })
    }

    #[test]
    fn sums_per_model_and_role_with_cached_replies_apart() {
        let meter = Meter::new();
        meter.record(Role::Assistant, "m", false, tokens(10, 2));
        meter.record(Role::Assistant, "m", false, tokens(5, 1));
        meter.record(Role::Assistant, "m", true, tokens(7, 3));
        meter.record(Role::Assistant, "m", false, None);
        meter.record(Role::User, "m", false, tokens(1, 1));
        let usage = meter.usage();
        assert_eq!(usage.len(), 2);
        let a = &usage[0];
        assert_eq!((a.role, a.requests, a.cached), (Role::Assistant, 4, 1));
        assert_eq!(
            (a.prompt_tokens, a.completion_tokens, a.total_tokens),
            (15, 3, 18)
        );
        assert_eq!(a.cached_total_tokens, 10);
        assert_eq!(a.without_usage, 1);
        assert_eq!((usage[1].role, usage[1].total_tokens), (Role::User, 2));
    }

    #[test]
    fn a_part_of_the_run_is_measured_from_a_reading() {
        let meter = Meter::new();
        meter.record(Role::Assistant, "m", false, tokens(10, 2));
        let before = meter.reading();
        assert!(meter.since(&before).is_empty());
        meter.record(Role::Assistant, "m", false, tokens(1, 1));
        let part = meter.since(&before);
        assert_eq!((part[0].requests, part[0].total_tokens), (1, 2));
        assert_eq!(meter.usage()[0].total_tokens, 14);
    }

    #[test]
    fn the_same_meter_counts_from_every_thread() {
        let meter = Meter::new();
        std::thread::scope(|s| {
            for _ in 0..4 {
                let meter = meter.clone();
                s.spawn(move || {
                    for _ in 0..100 {
                        meter.record(Role::Assistant, "m", false, tokens(1, 0));
                    }
                });
            }
        });
        assert_eq!(meter.usage()[0].requests, 400);
        assert_eq!(meter.usage()[0].prompt_tokens, 400);
    }
}
