//! The oracle: answers every request with the gold answer its kind put in
//! it. A correct simulator and scoring give it a perfect score.

use super::{Answer, Answerer, Request};
use crate::{Error, Result};

#[derive(Debug, Default, Clone, Copy)]
pub struct Oracle;

impl Answerer for Oracle {
    fn name(&self) -> String {
        "oracle".to_string()
    }

    fn answer(&self, request: &Request<'_>) -> Result<Answer> {
        request.gold.clone().ok_or_else(|| no_gold(request))
    }

    fn answer_owned(&self, request: Request<'_>) -> Result<Answer> {
        match request.gold {
            Some(gold) => Ok(gold),
            None => Err(no_gold(&request)),
        }
    }
}

fn no_gold(request: &Request<'_>) -> Error {
    Error::Other(format!(
        "{} at {}: no gold answer for the oracle",
        request.key.unit, request.key.position
    ))
}
