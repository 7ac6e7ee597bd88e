//! What API-Bank's level 3 tells the players: the assistant's setting
//! (`prompts/apibank-level3-assistant.j2`: calls in the paper's text
//! form, found with ToolSearcher; its system prompt as it stands) and the
//! simulated user's brief (`prompts/apibank-level3-user.j2`: the
//! scenario's first utterance and key information, to be told only when
//! asked).

use crate::suite::interactive::Scenario;

const ASSISTANT_PROMPT: &str = include_str!("../../../../prompts/apibank-level3-assistant.j2");
const USER_PROMPT: &str = include_str!("../../../../prompts/apibank-level3-user.j2");

/// The assistant's prompt template, its name and text (provenance records
/// its hash).
pub const ASSISTANT: (&str, &str) = ("prompts/apibank-level3-assistant.j2", ASSISTANT_PROMPT);

/// The simulated user's prompt template, its name and text.
pub const USER: (&str, &str) = ("prompts/apibank-level3-user.j2", USER_PROMPT);

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
            key_info => scenario.knows,
        },
    )
    .map_err(|e| format!("{}: {e}", USER.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::interactive::Interactive;
    use crate::suites::apibank::level3::Level3;

    #[test]
    fn the_prompts_and_the_oracle_s_calls_of_a_scenario() {
        let sheet = "Scene: Alarm\nFirst Utterance: Wake me up.\nKey Info:\nusername Ann\nAPI Calls:\nGetToday()\n";
        let scenario = Level3
            .read(
                std::path::Path::new("Alarm.txt"),
                sheet,
                &Default::default(),
            )
            .unwrap();
        insta::assert_snapshot!("level3_user_prompt", user(&scenario).unwrap());
        insta::assert_snapshot!("level3_assistant_prompt", ASSISTANT.1.trim_end());
        let (_, _, call) = scenario.dialogue.gold_calls().next().unwrap();
        assert_eq!(Level3.call_text(&call.request), "[GetToday()]");
    }
}
