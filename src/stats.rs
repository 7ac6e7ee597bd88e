//! Counting a dataset: conversations, gold calls, and how they spread over
//! subsets, plugins and tools. It parses every file and executes nothing, so
//! it doubles as the parse-only baseline the benchmarks compare against.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use rayon::prelude::*;
use serde::Serialize;

use crate::dataset::load_conversation;
use crate::model::Conversation;
use crate::sim::{catalog, tool, Plugin};
use crate::Result;

/// Counts over a set of conversation files.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Stats {
    pub conversations: usize,
    pub gold_calls: usize,
    /// Conversations per subset (the name of the folder holding the file).
    pub by_subset: BTreeMap<String, usize>,
    /// Gold calls per tool: every catalog tool (0 when unused, so the gaps
    /// show), then names outside the catalog.
    pub by_tool: IndexMap<String, usize>,
    /// Gold calls per plugin, in catalog order.
    pub by_plugin: IndexMap<String, usize>,
    /// Conversations that use each tool at least once.
    pub conversations_by_tool: IndexMap<String, usize>,
    pub turns: usize,
    pub user_turns: usize,
    pub assistant_turns: usize,
    /// Assistant turns with at least one gold call.
    pub turns_with_calls: usize,
    /// Gold calls recorded with an exception.
    pub failing_calls: usize,
    /// Gold calls to action tools (those that change the world).
    pub action_calls: usize,
}

impl Stats {
    fn empty() -> Self {
        let mut stats = Stats::default();
        for spec in catalog() {
            stats.by_tool.insert(spec.name.to_string(), 0);
            stats.conversations_by_tool.insert(spec.name.to_string(), 0);
        }
        for plugin in Plugin::ALL {
            stats.by_plugin.insert(plugin.name().to_string(), 0);
        }
        stats
    }

    fn add(&mut self, subset: String, conversation: &Conversation) {
        self.conversations += 1;
        *self.by_subset.entry(subset).or_default() += 1;
        let mut used: Vec<&str> = Vec::new();
        for turn in &conversation.conversation {
            self.turns += 1;
            match turn.role {
                crate::model::Role::User => self.user_turns += 1,
                crate::model::Role::Assistant => self.assistant_turns += 1,
            }
            if !turn.calls().is_empty() {
                self.turns_with_calls += 1;
            }
        }
        for (_, _, call) in conversation.gold_calls() {
            let name = call.request.api_name.as_str();
            self.gold_calls += 1;
            *self.by_tool.entry(name.to_string()).or_default() += 1;
            if call.exception.is_some() {
                self.failing_calls += 1;
            }
            if let Some(spec) = tool(name) {
                *self
                    .by_plugin
                    .entry(spec.plugin.name().to_string())
                    .or_default() += 1;
                if spec.is_action {
                    self.action_calls += 1;
                }
            }
            if !used.contains(&name) {
                used.push(name);
            }
        }
        for name in used {
            *self
                .conversations_by_tool
                .entry(name.to_string())
                .or_default() += 1;
        }
    }
}

/// The subset a file belongs to: the folder it sits in.
pub fn subset_of(path: &Path) -> String {
    path.parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| ".".to_string())
}

/// Count every file; parsing runs in parallel, the counts do not depend on
/// the order. The first unreadable file stops the count (exit 2).
pub fn stats_files(files: &[PathBuf]) -> Result<Stats> {
    let loaded: Vec<Result<(String, Conversation)>> = files
        .par_iter()
        .map(|path| Ok((subset_of(path), load_conversation(path)?.conversation)))
        .collect();
    let mut stats = Stats::empty();
    for item in loaded {
        let (subset, conversation) = item?;
        stats.add(subset, &conversation);
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conversation(calls: &[(&str, Option<&str>)]) -> Conversation {
        let apis: Vec<serde_json::Value> = calls
            .iter()
            .map(|(name, exception)| {
                serde_json::json!({"request": {"api_name": name, "parameters": {}},
                                   "response": null, "exception": exception})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "name": "n", "conversation_id": "c", "user": {},
            "metadata": {"timestamp": "2023-09-11 09:00:00"},
            "conversation": [
                {"role": "user", "text": "hi"},
                {"role": "assistant", "text": "ok", "apis": apis},
                {"role": "user", "text": "thanks"},
                {"role": "assistant", "text": "bye"}
            ]
        }))
        .unwrap()
    }

    #[test]
    fn counts_calls_tools_plugins_and_subsets() {
        let mut stats = Stats::empty();
        stats.add(
            "easy".into(),
            &conversation(&[
                ("AddAlarm", None),
                ("AddAlarm", Some("boom")),
                ("Nope", None),
            ]),
        );
        stats.add("hard".into(), &conversation(&[("QueryCalendar", None)]));
        assert_eq!(stats.conversations, 2);
        assert_eq!(stats.gold_calls, 4);
        assert_eq!(stats.by_subset["easy"], 1);
        assert_eq!(stats.by_subset["hard"], 1);
        assert_eq!(stats.by_tool["AddAlarm"], 2);
        assert_eq!(stats.by_tool["Nope"], 1);
        assert_eq!(stats.by_tool["DeleteAccount"], 0);
        assert_eq!(stats.conversations_by_tool["AddAlarm"], 1);
        assert_eq!(stats.by_plugin["Alarm"], 2);
        assert_eq!(stats.by_plugin["Calendar"], 1);
        assert_eq!(stats.failing_calls, 1);
        assert_eq!(stats.action_calls, 2);
        assert_eq!(stats.turns, 8);
        assert_eq!(stats.user_turns, 4);
        assert_eq!(stats.turns_with_calls, 2);
        // Catalog tools first, in catalog order, unknown names after.
        assert_eq!(stats.by_tool.keys().last().unwrap(), "Nope");
        assert_eq!(stats.by_tool.len(), catalog().len() + 1);
    }

    #[test]
    fn subset_is_the_parent_folder() {
        assert_eq!(subset_of(Path::new("conversations/hard/x.json")), "hard");
        assert_eq!(subset_of(Path::new("x.json")), ".");
    }
}
