//! What API-Bank's level 3 tells the players: the assistant's setting
//! (`prompts/apibank-level3-assistant.j2`: calls in the paper's text
//! form, found with ToolSearcher), the simulated user's brief
//! (`prompts/apibank-level3-user.j2`: the scenario's first utterance and
//! key information, to be told only when asked), the brief a person
//! playing the user is shown, and the oracle's calls.

use super::Scenario;
use crate::run::conversation::user::Brief;
use crate::suites::apibank::call_text::render_api_request;

const ASSISTANT_PROMPT: &str = include_str!("../../../../prompts/apibank-level3-assistant.j2");
const USER_PROMPT: &str = include_str!("../../../../prompts/apibank-level3-user.j2");

/// The assistant's prompt template, its name and text (provenance records
/// its hash).
pub const ASSISTANT: (&str, &str) = ("prompts/apibank-level3-assistant.j2", ASSISTANT_PROMPT);

/// The simulated user's prompt template, its name and text.
pub const USER: (&str, &str) = ("prompts/apibank-level3-user.j2", USER_PROMPT);

/// The assistant's system prompt (the same for every scenario).
pub fn assistant() -> String {
    ASSISTANT_PROMPT.to_string()
}

/// The simulated user's instructions for `scenario`.
pub fn user(scenario: &Scenario) -> Result<String, String> {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.set_keep_trailing_newline(false);
    env.render_str(
        USER_PROMPT,
        minijinja::context! {
            scene => scenario.scene,
            first_utterance => scenario.first_utterance,
            key_info => scenario.key_info,
        },
    )
    .map_err(|e| format!("{}: {e}", USER.0))
}

/// What a person playing the user of `scenario` is shown.
pub fn brief(scenario: &Scenario) -> Brief {
    Brief {
        title: match scenario.name == scenario.scene {
            true => scenario.scene.clone(),
            false => format!("{} ({})", scenario.scene, scenario.name),
        },
        knows: scenario.key_info.clone(),
        first_utterance: scenario.first_utterance.clone(),
    }
}

/// The ground truth itself, as the oracle says it: the scenario's calls
/// as written, one a message in the paper's form. It checks the scenarios
/// and the loop, not a model: every scenario whose calls read back as
/// written completes in one turn.
pub fn oracle_calls(scenario: &Scenario) -> Vec<String> {
    scenario
        .ground_truth
        .iter()
        .map(|call| render_api_request(&call.api_name, &call.param_dict))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompts_and_the_brief_of_a_scenario() {
        let scenario = super::super::sheet::parse(
            std::path::Path::new("Alarm.txt"),
            "Scene: Alarm\nFirst Utterance: Wake me up.\nKey Info:\nusername Ann\nAPI Calls:\nGetToday()\n",
        )
        .unwrap();
        insta::assert_snapshot!("level3_user_prompt", user(&scenario).unwrap());
        insta::assert_snapshot!("level3_assistant_prompt", assistant().trim_end());
        assert_eq!(
            brief(&scenario),
            Brief {
                title: "Alarm".into(),
                knows: "username Ann".into(),
                first_utterance: "Wake me up.".into(),
            }
        );
        assert_eq!(oracle_calls(&scenario), ["[GetToday()]"]);
    }
}
