//! The on-disk cache of LLM answers: one JSON file per request, named by a
//! hash of the endpoint (with the trial and tag when there are) and the
//! request body. The API key travels in a header only, so it never reaches
//! a key or an entry.
//!
//! A chat entry is `{"request": <body as sent>, "response": <the server's
//! answer>}`: the answer whole, so its `model` and `usage` are kept. Entries
//! written before talkforge kept the whole answer by `generate`, the
//! drafting commands and level 3 (`{"request", "reply", "model"}`) are read
//! as a reply with no usage.

use std::path::{Path, PathBuf};

use async_openai::types::CreateChatCompletionResponse;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Hex SHA-256, for cache keys and content digests. ring's assembly,
/// already in the build for TLS, hashes about twice as fast as a portable
/// implementation on a CPU without the SHA extensions, and every file an
/// evaluation reads is hashed.
pub fn sha256_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    let mut hex = String::with_capacity(64);
    for &b in digest.as_ref() {
        hex.push(DIGITS[usize::from(b >> 4)] as char);
        hex.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    hex
}

/// Where the answer to `body` sent to `base_url` is kept in `dir`: two
/// servers may answer one request differently, so the endpoint is part of
/// the key.
pub fn entry_path<B: Serialize + ?Sized>(dir: &Path, base_url: &str, body: &B) -> PathBuf {
    let body = serde_json::to_string(body).expect("requests serialize");
    let key = sha256_hex(format!("{base_url}\n{body}").as_bytes());
    dir.join(format!("{key}.json"))
}

/// What a chat request's key holds besides its body: the endpoint, then
/// the trial of a run of several and a tag (a prompt's second draft), each
/// on its own line, when there are.
pub fn chat_key_prefix(base_url: &str, trial: Option<usize>, tag: Option<&str>) -> String {
    let mut prefix = base_url.to_string();
    if let Some(trial) = trial {
        prefix += &format!("\ntrial {trial}");
    }
    if let Some(tag) = tag {
        prefix += &format!("\n{tag}");
    }
    prefix
}

/// A chat entry's answer, in either shape; None when there is no entry,
/// it does not parse, or its answer holds nothing (kept by earlier
/// versions: asked again).
pub fn read_chat(path: &Path) -> Option<CreateChatCompletionResponse> {
    #[derive(Deserialize)]
    struct Entry {
        response: Option<CreateChatCompletionResponse>,
        reply: Option<String>,
        model: Option<String>,
    }
    let entry: Entry = read(path)?;
    let response = match (entry.response, entry.reply) {
        (Some(response), _) => response,
        (None, Some(reply)) => legacy_response(reply, entry.model)?,
        (None, None) => return None,
    };
    super::client::nothing_in(&response)
        .is_none()
        .then_some(response)
}

/// An answer holding `reply`, as the server that gave it would have sent
/// it, less what the old entry did not keep (its usage).
fn legacy_response(reply: String, model: Option<String>) -> Option<CreateChatCompletionResponse> {
    serde_json::from_value(serde_json::json!({
        "id": "", "object": "chat.completion", "created": 0,
        "model": model.unwrap_or_default(),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": null}],
    }))
    .ok()
}

/// A cache entry, if it exists and has the expected shape.
pub fn read<T: DeserializeOwned>(path: &Path) -> Option<T> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// Store a cache entry atomically.
pub fn write(path: &Path, entry: &impl Serialize) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::input(dir, format!("cannot create the cache folder: {e}")))?;
    }
    let body = serde_json::to_string(entry).expect("cache entries serialize");
    crate::formats::atomic_write(path, body.as_bytes())
}

#[cfg(test)]
mod tests {
    #[test]
    fn sha256_in_lower_case_hex() {
        // printf 'abc' | sha256sum
        assert_eq!(
            super::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
