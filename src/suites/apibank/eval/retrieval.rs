//! ToolSearcher's picks during evaluation. The reference's ToolSearcher
//! ranks the APIs with a sentence-embedding model, and the dialogues
//! record what it picked for their keywords; the model's picks cannot be
//! recomputed offline. So a search for keywords that a gold ToolSearcher
//! call of the dialogue searched for is answered with the API that call
//! retrieved (what the reference's model picks for exactly those words),
//! and any other search goes to the run's retriever (`--retriever`).

use std::collections::HashMap;
use std::sync::Arc;

use super::super::apis::tool_search::{recorded_pick, Entry, Retriever};
use crate::dialogue::Conversation;

/// The known picks of one dialogue, in front of the run's retriever.
#[derive(Debug)]
pub struct KnownPicks {
    picks: HashMap<String, String>,
    fallback: Arc<dyn Retriever>,
}

impl KnownPicks {
    /// The picks `dialogue`'s gold ToolSearcher calls recorded.
    pub fn new(dialogue: &Conversation, fallback: Arc<dyn Retriever>) -> Self {
        let picks = dialogue
            .gold_calls()
            .filter(|(_, _, gold)| gold.request.api_name == "ToolSearcher")
            .filter_map(|(_, _, gold)| {
                let keywords = gold.request.parameters.get("keywords")?.as_str()?;
                Some((keywords.to_string(), recorded_pick(&gold.response)?))
            })
            .collect();
        KnownPicks { picks, fallback }
    }
}

impl Retriever for KnownPicks {
    fn name(&self) -> String {
        format!("recorded picks, else {}", self.fallback.name())
    }

    fn scores(&self, keywords: &str, library: &[Entry]) -> Result<Vec<f64>, String> {
        self.fallback.scores(keywords, library)
    }

    fn best(&self, keywords: &str, library: &[Entry]) -> Result<Option<usize>, String> {
        let known = self
            .picks
            .get(keywords)
            .and_then(|name| library.iter().position(|entry| entry.name == name));
        match known {
            Some(index) => Ok(Some(index)),
            None => self.fallback.best(keywords, library),
        }
    }
}
