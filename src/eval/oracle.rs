//! The oracle: answers every step with the next gold call of the turn
//! (without its session token, which the world injects), then with the
//! gold text. A correct simulator and comparators give it a perfect score.

use crate::suite::predict::{PredictError, Prediction, Predictor, ProposedCall, TurnInput};

/// The argument a world puts in for tools that need a session; the gold
/// calls record it, a model never sends it.
const SESSION_TOKEN: &str = "session_token";

#[derive(Debug, Default, Clone, Copy)]
pub struct Oracle;

impl Predictor for Oracle {
    fn name(&self) -> String {
        "oracle".to_string()
    }

    fn predict(&self, input: &TurnInput<'_>) -> Result<Prediction, PredictError> {
        let turn = input
            .conversation
            .conversation
            .get(input.turn)
            .ok_or_else(|| PredictError(format!("no turn {} in the conversation", input.turn)))?;
        let done = input.predicted.len();
        let calls = turn.calls();
        if done > calls.len() {
            return Err(PredictError(format!(
                "turn {}: {done} calls made, the gold turn has {}",
                input.turn,
                calls.len()
            )));
        }
        Ok(match calls.get(done) {
            Some(gold) => {
                let mut parameters = gold.request.parameters.clone();
                // `Map::remove` moves the last argument into the token's
                // place, the order the outputs have always recorded.
                parameters.remove(SESSION_TOKEN);
                Prediction::Calls(vec![ProposedCall {
                    api_name: gold.request.api_name.clone(),
                    parameters: Some(parameters),
                    metadata: None,
                }])
            }
            None => Prediction::Text {
                text: turn.text.clone(),
                metadata: None,
            },
        })
    }
}
