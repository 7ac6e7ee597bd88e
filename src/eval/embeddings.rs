//! Text similarity from an OpenAI-compatible `/v1/embeddings` endpoint:
//! the cosine of the two texts' embeddings against the reference's
//! threshold as is (the reference's own measure is an embedding cosine).
//!
//! Embeddings come from the LLM client's [`Embedder`] (kept in memory and
//! in the client's cache folder). A failing endpoint cannot answer
//! "similar or not"; the failure is kept, the comparison counts as "not
//! similar", and the run stops with the error after the conversation (see
//! [`Embeddings::failure`]).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::llm::client::Client;
pub use crate::llm::embed::cosine;
use crate::llm::embed::Embedder;
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

    pub fn name(&self) -> String {
        format!("embeddings:{}", self.embedder.model())
    }

    /// The first error the endpoint gave, if any.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().expect("lock").clone()
    }

    /// The cosine of two texts' embeddings.
    pub fn cosine(&self, a: &str, b: &str) -> Result<f64, String> {
        let vectors = self.embed(&[a, b])?;
        Ok(cosine(&vectors[0], &vectors[1]))
    }

    /// Embeddings of `texts`, from memory, the disk cache or the endpoint.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Arc<Vec<f32>>>, String> {
        self.embedder.embed(texts)
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
        match self.cosine(prediction, gold) {
            Ok(c) => c >= reference_threshold,
            Err(e) => {
                self.failure.lock().expect("lock").get_or_insert(e);
                false
            }
        }
    }
}
