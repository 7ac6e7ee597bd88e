//! The oracle: answers every step with the next gold call of the turn
//! (without its session token, which the world injects), then with the
//! gold text. A correct simulator and comparators give it a perfect score.

use super::predict::{
    BorrowedCall, PredictError, Prediction, Predictor, Proposal, ProposedCall, TurnInput,
};
use crate::dialogue::Conversation;

#[derive(Debug, Default, Clone, Copy)]
pub struct Oracle;

impl Predictor for Oracle {
    fn name(&self) -> String {
        "oracle".to_string()
    }

    fn predict(&self, input: &TurnInput<'_>) -> Result<Prediction, PredictError> {
        Ok(match self.propose(input.conversation, input)? {
            Proposal::Predicted(prediction) => prediction,
            Proposal::Text(text) => Prediction::Text {
                text: text.to_string(),
                metadata: None,
            },
            Proposal::Borrowed(calls) => Prediction::Calls(
                calls
                    .into_iter()
                    .map(|call| {
                        let mut parameters = call.parameters.clone();
                        parameters.remove("session_token");
                        ProposedCall {
                            api_name: call.api_name.to_string(),
                            parameters: Some(parameters),
                            metadata: None,
                        }
                    })
                    .collect(),
            ),
        })
    }

    /// The next gold call's arguments as they are: the world leaves out
    /// their session token and puts in its own.
    fn propose<'c>(
        &self,
        conversation: &'c Conversation,
        input: &TurnInput<'_>,
    ) -> Result<Proposal<'c>, PredictError> {
        let turn = conversation
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
        match calls.get(done) {
            Some(gold) => Ok(Proposal::Borrowed(vec![BorrowedCall {
                api_name: &gold.request.api_name,
                parameters: &gold.request.parameters,
            }])),
            None => Ok(Proposal::Text(&turn.text)),
        }
    }
}
