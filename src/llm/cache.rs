//! The on-disk cache of LLM answers: one JSON file per request, named by a
//! hash of the endpoint and the request body. The API key travels in a
//! header only, so it never reaches a key or an entry.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::{Error, Result};

/// Hex SHA-256, for cache keys and content digests.
pub fn sha256_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(64);
    for b in Sha256::digest(bytes) {
        hex.push(DIGITS[usize::from(b >> 4)] as char);
        hex.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    hex
}

/// Where the answer to `body` sent to `base_url` is kept in `dir`: two
/// servers may answer one request differently, so the endpoint is part of
/// the key.
pub fn entry_path(dir: &Path, base_url: &str, body: &impl Serialize) -> PathBuf {
    let body = serde_json::to_string(body).expect("requests serialize");
    let key = sha256_hex(format!("{base_url}\n{body}").as_bytes());
    dir.join(format!("{key}.json"))
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
