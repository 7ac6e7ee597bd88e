//! Even sampling of accepted scenarios across required tools, deterministic
//! for a seed: each tool's candidates are ordered by a hash of the seed and
//! their place, and the first N are taken.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::formats::scenario::ScenarioPool;
use crate::llm::sha256_hex;
use crate::{Error, Result};

/// One sampled scenario; `reference` is what `scaffold --scenario` takes.
#[derive(Debug, Clone, Serialize)]
pub struct Sampled {
    pub reference: String,
    pub required_tool: String,
    pub text: String,
    pub tools: Vec<String>,
}

/// Read every pool file under `dir` (sorted).
pub fn load_pools(dir: &Path) -> Result<Vec<(PathBuf, ScenarioPool)>> {
    let files = crate::formats::discover(&[dir.to_path_buf()], &["json"])?;
    let mut pools = Vec::new();
    for file in files {
        let (_, value) = crate::formats::read_json(&file)?;
        // Manifests and other JSON beside the pools are not pools.
        if value.get("raw_reply").is_none() {
            continue;
        }
        let pool: ScenarioPool = serde_json::from_value(value)
            .map_err(|e| Error::input(&file, format!("not a scenario pool: {e}")))?;
        pools.push((file, pool));
    }
    Ok(pools)
}

pub fn sample(pools: &[(PathBuf, ScenarioPool)], per_tool: usize, seed: u64) -> Vec<Sampled> {
    let mut by_tool: BTreeMap<&str, Vec<(String, Sampled)>> = BTreeMap::new();
    for (file, pool) in pools {
        for (i, s) in pool.scenarios.iter().enumerate() {
            if !s.accepted {
                continue;
            }
            let reference = format!("{}#{i}", file.display());
            let order = sha256_hex(format!("{seed}\n{}\n{i}", pool.name).as_bytes());
            by_tool.entry(&pool.required_tool).or_default().push((
                order,
                Sampled {
                    reference,
                    required_tool: pool.required_tool.clone(),
                    text: s.text.clone(),
                    tools: s.tools.clone(),
                },
            ));
        }
    }
    let mut out = Vec::new();
    for (_, mut candidates) in by_tool {
        candidates.sort_by(|a, b| a.0.cmp(&b.0));
        out.extend(candidates.into_iter().take(per_tool).map(|(_, s)| s));
    }
    out
}
