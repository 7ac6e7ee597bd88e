//! API-Bank's level 3 (planning) as an evaluation: each scenario
//! ([`crate::suites::apibank::scenarios`], the files) is talked through
//! with the assistant under test and a user, on the run layer's
//! conversation with a user (`run::with_user`). The assistant finds its
//! APIs with ToolSearcher while it talks; the score is the number of turns
//! it takes to make every ground-truth call (the paper's Table 4). Here
//! are what the players are told ([`prompts`]), how the assistant's messages read
//! and what it is told ([`messages`]), and when a call is a ground-truth call
//! ([`matching`]).

use std::path::Path;

use super::scenarios::{dialogue, parse_scenario};
use crate::dialogue::Request;
use crate::sim::Databases;
use crate::suite::interactive::{Interactive, Reading, Rule, Scenario};
use crate::suite::Execution;
use crate::Result;

pub mod matching;
pub mod messages;
pub mod prompts;

/// API-Bank's level 3, as the seam's conversational evaluation.
pub struct Level3;

impl Interactive for Level3 {
    fn level(&self) -> u8 {
        3
    }

    fn family(&self) -> &'static str {
        "API-Bank"
    }

    fn read(&self, path: &Path, text: &str, databases: &Databases) -> Result<Scenario> {
        let scenario = parse_scenario(path, text)?;
        let dialogue = dialogue::conversation(&scenario);
        crate::suite::missing_database(super::catalog(), databases, &dialogue)
            .map_err(|m| crate::Error::input(path, m))?;
        Ok(Scenario {
            name: scenario.name,
            scene: scenario.scene,
            first_utterance: scenario.first_utterance,
            knows: scenario.key_info,
            dialogue,
        })
    }

    fn prompts(&self) -> [(&'static str, &'static str); 2] {
        [prompts::ASSISTANT, prompts::USER]
    }

    fn user_prompt(&self, scenario: &Scenario) -> std::result::Result<String, String> {
        prompts::user(scenario)
    }

    /// The paper's text form.
    fn call_text(&self, call: &Request) -> String {
        super::call_text::render_api_request(&call.api_name, &call.parameters)
    }

    fn read_message(&self, text: &str) -> Reading {
        messages::read(text)
    }

    fn result_text(&self, executed: &Execution) -> String {
        messages::result_text(executed)
    }

    fn matches(&self, made: &Execution, gold: &Execution) -> Option<Rule> {
        matching::matches(made, gold)
    }
}
