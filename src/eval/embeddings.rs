//! Text similarity from an OpenAI-compatible `/v1/embeddings` endpoint:
//! the cosine of the two texts' embeddings against the reference's
//! threshold as is (the reference's own measure is an embedding cosine).
//!
//! Embeddings come from the LLM client's [`Embedder`] (kept in memory and
//! in the client's cache folder). A failing endpoint cannot answer
//! "similar or not"; the failure is kept, the comparison counts as "not
//! similar", and the run stops with the error after the conversation (see
//! [`Similarity::failure`]).

use std::path::PathBuf;
use std::sync::Mutex;

use super::run::Similarity;
use crate::llm::client::Client;
use crate::llm::embed::{cosine, Embedder};
use crate::suite::TextSimilarity;

pub struct Embeddings {
    embedder: Embedder,
    failure: Mutex<Option<String>>,
}

impl Embeddings {
    /// Embeddings of `model` through `client` (counted on its meter),
    /// cached in `cache` (None: in memory only).
    pub fn new(client: Client, model: String, cache: Option<PathBuf>) -> Self {
        Embeddings {
            embedder: Embedder::new(client.cached_in(cache), model),
            failure: Mutex::new(None),
        }
    }
}

impl Similarity for Embeddings {
    fn name(&self) -> String {
        format!("embeddings:{}", self.embedder.model())
    }

    fn failure(&self) -> Option<String> {
        self.failure.lock().expect("lock").clone()
    }
}

impl TextSimilarity for Embeddings {
    fn similar(&self, prediction: Option<&str>, gold: &str, reference_threshold: f64) -> bool {
        let Some(prediction) = prediction else {
            return false;
        };
        if prediction == gold {
            return true;
        }
        match self.embedder.embed(&[prediction, gold]) {
            Ok(v) => cosine(&v[0], &v[1]) >= reference_threshold,
            Err(e) => {
                self.failure.lock().expect("lock").get_or_insert(e);
                false
            }
        }
    }
}
