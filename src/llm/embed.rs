//! Sentence embeddings from an OpenAI-compatible endpoint, for the worlds
//! whose tool searches rank by meaning (API-Bank's ToolSearcher with
//! `--retriever embeddings`).

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use async_openai::types::{CreateEmbeddingRequest, CreateEmbeddingResponse, EmbeddingInput};

use super::endpoint::Endpoint;

/// Sentence embeddings from an OpenAI-compatible `/v1/embeddings`
/// endpoint, kept in memory, so each text is sent once per run.
pub struct Embedder {
    endpoint: Endpoint,
    model: String,
    memory: Mutex<HashMap<String, Vec<f32>>>,
}

impl fmt::Debug for Embedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Embedder")
            .field("base_url", &self.endpoint.base_url())
            .field("model", &self.model)
            .finish()
    }
}

impl Embedder {
    pub fn new(endpoint: Endpoint, model: impl Into<String>) -> Self {
        Embedder {
            endpoint,
            model: model.into(),
            memory: Mutex::new(HashMap::new()),
        }
    }

    /// The embeddings of `texts`, asking the endpoint (once, for all
    /// texts not seen before) only for what memory lacks.
    pub fn model(&self) -> &str {
        &self.model
    }

    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        let missing: Vec<String> = {
            let memory = self.memory.lock().unwrap_or_else(|e| e.into_inner());
            let mut missing: Vec<String> = Vec::new();
            for text in texts {
                if !memory.contains_key(*text) && !missing.iter().any(|m| m == text) {
                    missing.push(text.to_string());
                }
            }
            missing
        };
        if !missing.is_empty() {
            let request = CreateEmbeddingRequest {
                model: self.model.clone(),
                input: EmbeddingInput::StringArray(missing.clone()),
                ..Default::default()
            };
            let response: CreateEmbeddingResponse =
                self.endpoint.post("embeddings", &request, "embeddings")?;
            let mut data = response.data;
            data.sort_by_key(|e| e.index);
            if data.len() != missing.len() {
                return Err(format!(
                    "{}: asked for {} embeddings, got {}",
                    self.endpoint.base_url(),
                    missing.len(),
                    data.len()
                ));
            }
            let mut memory = self.memory.lock().unwrap_or_else(|e| e.into_inner());
            for (text, embedding) in missing.into_iter().zip(data) {
                memory.insert(text, embedding.embedding);
            }
        }
        let memory = self.memory.lock().unwrap_or_else(|e| e.into_inner());
        Ok(texts.iter().map(|t| memory[*t].clone()).collect())
    }
}
