//! Scenario pools on the seam: a suite whose dialogues are written from
//! generated scenarios (`generate` renders prompts from its catalog; the
//! pools it writes are `formats::scenario`) says here how a dialogue
//! skeleton is made from one of them (`scaffold`).

use std::path::Path;

use crate::dialogue::Conversation;
use crate::Result;

/// How the skeleton's user was chosen (for the message scaffold prints).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserChoice {
    /// `--user` named them.
    Named,
    /// The scenario names them (their name, first name or username).
    FromScenario,
    /// Nobody the scenario names is among the accounts: the first
    /// account, to be changed with `--user` if it does not fit.
    FirstAccount,
    /// No accounts database: placeholders to write.
    Placeholders,
}

/// One pool scenario to scaffold.
#[derive(Debug, Clone, Copy)]
pub struct ScaffoldRequest<'a> {
    /// The dialogue's name (the new file's stem).
    pub name: &'a str,
    /// The scenario's text.
    pub scenario: &'a str,
    /// The pool's required tool.
    pub required: &'a str,
    /// The scenario's tools.
    pub tools: &'a [String],
    /// The databases folder users and dates are taken from.
    pub databases: &'a Path,
    /// `--user`: the account the dialogue is with.
    pub username: Option<&'a str>,
}

/// A skeleton: its model, how its user was chosen and its text in the
/// suite's dialogue format.
#[derive(Debug, Clone)]
pub struct Scaffold {
    pub conversation: Conversation,
    pub choice: UserChoice,
    pub text: String,
}

/// What a suite with scenario pools provides.
pub trait ScenarioPools: Sync {
    /// A dialogue skeleton for one scenario, placeholders
    /// (`scaffold::PLACEHOLDER`) where an author must write.
    fn scaffold(&self, request: &ScaffoldRequest<'_>) -> Result<Scaffold>;
}
