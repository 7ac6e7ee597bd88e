//! Text similarity from an OpenAI-compatible `/v1/embeddings` endpoint:
//! the cosine of the two texts' embeddings against the reference's
//! threshold as is (the reference's own measure is an embedding cosine).
//!
//! Embeddings are cached on disk, one file per (endpoint URL, model, text),
//! named by the SHA-256 of the three, so a rerun asks the endpoint only for texts it has not
//! seen. A failing endpoint cannot answer "similar or not"; the failure is
//! kept, the comparison counts as "not similar", and the run stops with the
//! error after the conversation (see [`Embeddings::failure`]).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use async_openai::types::{CreateEmbeddingRequest, CreateEmbeddingResponse, EmbeddingInput};
use serde_json::json;

use crate::llm::endpoint::{read_cache, sha256_hex, write_cache, Endpoint};
use crate::suite::TextSimilarity;

pub struct Embeddings {
    endpoint: Endpoint,
    model: String,
    cache: Option<PathBuf>,
    memory: Mutex<HashMap<String, Arc<Vec<f32>>>>,
    failure: Mutex<Option<String>>,
}

impl Embeddings {
    pub fn new(endpoint: Endpoint, model: String, cache: Option<PathBuf>) -> Self {
        Embeddings {
            endpoint,
            model,
            cache,
            memory: Mutex::new(HashMap::new()),
            failure: Mutex::new(None),
        }
    }

    pub fn name(&self) -> String {
        format!("embeddings:{}", self.model)
    }

    /// The first error the endpoint gave, if any.
    pub fn failure(&self) -> Option<String> {
        self.failure.lock().expect("lock").clone()
    }

    /// The cache key: endpoint, model and text (two servers may serve
    /// different vectors under one model name).
    fn key(&self, text: &str) -> String {
        let url = self.endpoint.base_url();
        sha256_hex(format!("{url}\n{}\n{text}", self.model).as_bytes())
    }

    /// The cosine of two texts' embeddings.
    pub fn cosine(&self, a: &str, b: &str) -> Result<f64, String> {
        let vectors = self.embed(&[a, b])?;
        Ok(cosine(&vectors[0], &vectors[1]))
    }

    /// Embeddings of `texts`, from memory, the disk cache or the endpoint.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Arc<Vec<f32>>>, String> {
        let keys: Vec<String> = texts.iter().map(|t| self.key(t)).collect();
        let mut found: Vec<Option<Arc<Vec<f32>>>> = {
            let memory = self.memory.lock().expect("lock");
            keys.iter().map(|k| memory.get(k).cloned()).collect()
        };
        for (slot, key) in found.iter_mut().zip(&keys) {
            if slot.is_none() {
                *slot = self.read_disk(key).map(Arc::new);
            }
        }
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| found[i].is_none()).collect();
        if !missing.is_empty() {
            let inputs: Vec<String> = missing.iter().map(|&i| texts[i].to_string()).collect();
            let fetched = self.fetch(inputs)?;
            for (&i, vector) in missing.iter().zip(fetched) {
                self.write_disk(&keys[i], texts[i], &vector)?;
                found[i] = Some(Arc::new(vector));
            }
        }
        let vectors: Vec<Arc<Vec<f32>>> = found.into_iter().flatten().collect();
        let mut memory = self.memory.lock().expect("lock");
        for (key, vector) in keys.into_iter().zip(&vectors) {
            memory.insert(key, vector.clone());
        }
        Ok(vectors)
    }

    fn fetch(&self, inputs: Vec<String>) -> Result<Vec<Vec<f32>>, String> {
        let count = inputs.len();
        let request = CreateEmbeddingRequest {
            model: self.model.clone(),
            input: EmbeddingInput::StringArray(inputs),
            ..Default::default()
        };
        let endpoint = &self.endpoint;
        let response: CreateEmbeddingResponse =
            endpoint.post("embeddings", &request, "embeddings")?;
        let mut data = response.data;
        data.sort_by_key(|e| e.index);
        if data.len() != count {
            return Err(format!(
                "{}: asked for {count} embeddings, got {}",
                endpoint.base_url(),
                data.len()
            ));
        }
        Ok(data.into_iter().map(|e| e.embedding).collect())
    }

    fn cache_path(&self, key: &str) -> Option<PathBuf> {
        self.cache.as_ref().map(|d| d.join(format!("{key}.json")))
    }

    fn read_disk(&self, key: &str) -> Option<Vec<f32>> {
        let value = read_cache(&self.cache_path(key)?, "embedding")?;
        serde_json::from_value(value).ok()
    }

    fn write_disk(&self, key: &str, text: &str, vector: &[f32]) -> Result<(), String> {
        let Some(path) = self.cache_path(key) else {
            return Ok(());
        };
        let entry = json!({"base_url": self.endpoint.base_url(), "model": self.model, "text": text, "embedding": vector});
        write_cache(&path, &entry).map_err(|e| e.to_string())
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

/// The cosine of two vectors; 0 when either is all zeros.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let (na, nb) = (norm(a), norm(b));
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}
