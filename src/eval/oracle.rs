//! The oracle: answers every step with the next gold call of the turn
//! (without the argument the suite's world puts in itself, ToolTalk's
//! session token), then with the gold text. A correct simulator and
//! comparators give it a perfect score.

use crate::suite::predict::{PredictError, Prediction, Predictor, ProposedCall, TurnInput};
use crate::suite::Suite;

#[derive(Debug, Default, Clone, Copy)]
pub struct Oracle {
    /// The argument the world gives (the gold calls record it, a model
    /// never sends it): [`Suite::injected_argument`].
    injected: Option<&'static str>,
}

impl Oracle {
    /// The oracle of `suite`'s dialogues.
    pub fn for_suite(suite: &dyn Suite) -> Self {
        Oracle {
            injected: suite.injected_argument(),
        }
    }
}

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
                if let Some(name) = self.injected {
                    parameters.remove(name);
                }
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
