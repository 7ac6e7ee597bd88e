//! Sentence embeddings through the LLM client, each text asked once: kept
//! in memory for the run, and on disk when the client has a cache folder
//! (one file per endpoint, model and text, named by the SHA-256 of the
//! three: `{"base_url", "model", "text", "embedding"}`), so a rerun asks
//! only for texts it has not seen. Used by `evaluate --similarity
//! embeddings` and API-Bank's ToolSearcher with `--retriever embeddings`.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use serde_json::json;

use super::cache;
use super::client::Client;

pub struct Embedder {
    client: Client,
    model: String,
    memory: Mutex<HashMap<String, Arc<Vec<f32>>>>,
}

impl fmt::Debug for Embedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Embedder")
            .field("base_url", &self.client.base_url())
            .field("model", &self.model)
            .finish()
    }
}

impl Embedder {
    pub fn new(client: Client, model: impl Into<String>) -> Self {
        Embedder {
            client,
            model: model.into(),
            memory: Mutex::new(HashMap::new()),
        }
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    pub fn base_url(&self) -> &str {
        self.client.base_url()
    }

    /// The cache key: endpoint, model and text (two servers may serve
    /// different vectors under one model name).
    fn key(&self, text: &str) -> String {
        let url = self.client.base_url();
        cache::sha256_hex(format!("{url}\n{}\n{text}", self.model).as_bytes())
    }

    /// The embeddings of `texts`, from memory, the disk cache or the
    /// endpoint (once, for every text not found, from a worker thread).
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Arc<Vec<f32>>>, String> {
        let keys: Vec<String> = texts.iter().map(|t| self.key(t)).collect();
        let mut found: Vec<Option<Arc<Vec<f32>>>> = {
            let memory = self.memory.lock().unwrap_or_else(|e| e.into_inner());
            keys.iter().map(|k| memory.get(k).cloned()).collect()
        };
        let mut from_disk = false;
        for (slot, key) in found.iter_mut().zip(&keys) {
            if slot.is_none() {
                *slot = self.read_disk(key).map(Arc::new);
                from_disk |= slot.is_some();
            }
        }
        let mut missing: Vec<usize> = Vec::new();
        for i in (0..texts.len()).filter(|&i| found[i].is_none()) {
            if !missing.iter().any(|&j| texts[j] == texts[i]) {
                missing.push(i);
            }
        }
        if !missing.is_empty() {
            let inputs: Vec<String> = missing.iter().map(|&i| texts[i].to_string()).collect();
            let fetched = self
                .client
                .embeddings_blocking(&self.model, &inputs)
                .map_err(|e| e.to_string())?;
            for (&i, vector) in missing.iter().zip(fetched) {
                self.write_disk(&keys[i], texts[i], &vector)?;
                let vector = Arc::new(vector);
                for j in (0..texts.len()).filter(|&j| texts[j] == texts[i]) {
                    found[j] = Some(vector.clone());
                }
            }
        } else if from_disk {
            // A request the cache answered; its entries keep no usage.
            self.client.record(&self.model, true, None);
        }
        let vectors: Vec<Arc<Vec<f32>>> = found.into_iter().flatten().collect();
        let mut memory = self.memory.lock().unwrap_or_else(|e| e.into_inner());
        for (key, vector) in keys.into_iter().zip(&vectors) {
            memory.insert(key, vector.clone());
        }
        Ok(vectors)
    }

    fn read_disk(&self, key: &str) -> Option<Vec<f32>> {
        let path = self.client.cache()?.join(format!("{key}.json"));
        let mut entry: serde_json::Value = cache::read(&path)?;
        serde_json::from_value(entry.get_mut("embedding")?.take()).ok()
    }

    fn write_disk(&self, key: &str, text: &str, vector: &[f32]) -> Result<(), String> {
        let Some(dir) = self.client.cache() else {
            return Ok(());
        };
        let entry = json!({"base_url": self.client.base_url(), "model": self.model, "text": text, "embedding": vector});
        cache::write(&dir.join(format!("{key}.json")), &entry).map_err(|e| e.to_string())
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
