//! Counting a dataset: conversations, gold calls, and how they spread over
//! subsets, plugins and tools. It parses every file and executes nothing, so
//! it doubles as the parse-only baseline the benchmarks compare against.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use rayon::prelude::*;
use serde::Serialize;

use crate::dialogue::Conversation;
use crate::suite::{Catalog, Suite};
use crate::{Error, Result};

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
    fn empty(catalog: &Catalog) -> Self {
        let mut stats = Stats::default();
        for spec in catalog.tools() {
            stats.by_tool.insert(spec.name.to_string(), 0);
            stats.conversations_by_tool.insert(spec.name.to_string(), 0);
        }
        for plugin in catalog.groups() {
            stats.by_plugin.insert(plugin.name.to_string(), 0);
        }
        stats
    }

    fn add(&mut self, catalog: &Catalog, subset: String, conversation: &Conversation) {
        self.conversations += 1;
        *self.by_subset.entry(subset).or_default() += 1;
        let mut used: Vec<&str> = Vec::new();
        for turn in &conversation.conversation {
            self.turns += 1;
            match turn.role {
                crate::dialogue::Role::User => self.user_turns += 1,
                crate::dialogue::Role::Assistant => self.assistant_turns += 1,
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
            if let Some(spec) = catalog.tool(name) {
                *self.by_plugin.entry(spec.group.to_string()).or_default() += 1;
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

impl Stats {
    /// Add another count (another worker's, another suite's) to this one.
    pub fn merge(&mut self, other: Stats) {
        self.conversations += other.conversations;
        self.gold_calls += other.gold_calls;
        self.turns += other.turns;
        self.user_turns += other.user_turns;
        self.assistant_turns += other.assistant_turns;
        self.turns_with_calls += other.turns_with_calls;
        self.failing_calls += other.failing_calls;
        self.action_calls += other.action_calls;
        for (k, n) in other.by_subset {
            *self.by_subset.entry(k).or_default() += n;
        }
        for (k, n) in other.by_tool {
            *self.by_tool.entry(k).or_default() += n;
        }
        for (k, n) in other.by_plugin {
            *self.by_plugin.entry(k).or_default() += n;
        }
        for (k, n) in other.conversations_by_tool {
            *self.conversations_by_tool.entry(k).or_default() += n;
        }
    }
}

/// The subset a file belongs to: the folder it sits in.
pub fn subset_of(path: &Path) -> String {
    crate::formats::folder_name(path).unwrap_or_else(|| ".".to_string())
}

/// Count every file; parsing runs in parallel and each worker keeps only
/// its running counts, so memory does not grow with the dataset. The counts
/// do not depend on the order. Every unreadable file is reported (exit 2),
/// in file order; one bad file does not hide the others.
pub fn stats_files(files: &[PathBuf], suite: &dyn Suite) -> Result<Stats> {
    let (stats, errors) = stats_of_readable(files, suite);
    match crate::error::every_failure(errors, |n| format!("{n} files cannot be read")) {
        Some(e) => Err(e),
        None => Ok(stats),
    }
}

/// The statistics of the files that can be read, and the error of each
/// one that cannot, in file order.
pub fn stats_of_readable(files: &[PathBuf], suite: &dyn Suite) -> (Stats, Vec<Error>) {
    let catalog = suite.catalog();
    type Partial = (Stats, Vec<(usize, Error)>);
    let (stats, mut errors) = files
        .par_iter()
        .enumerate()
        .fold(
            || (Stats::empty(catalog), Vec::new()),
            |(mut stats, mut errors): Partial, (i, path)| {
                match suite.read_dialogues(path) {
                    Ok(dialogues) => {
                        for conversation in &dialogues {
                            stats.add(catalog, subset_of(path), conversation);
                        }
                    }
                    Err(e) => errors.push((i, e)),
                }
                (stats, errors)
            },
        )
        .reduce(
            || (Stats::empty(catalog), Vec::new()),
            |(mut a, mut ea), (b, eb)| {
                a.merge(b);
                ea.extend(eb);
                (a, ea)
            },
        );
    errors.sort_by_key(|(i, _)| *i);
    (stats, errors.into_iter().map(|(_, e)| e).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ToolTalk's catalog, from the default registry.
    fn catalog() -> &'static crate::suite::Catalog {
        crate::suites::registry()
            .by_name("tooltalk")
            .expect("registered")
            .catalog()
    }

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
        let mut stats = Stats::empty(catalog());
        stats.add(
            catalog(),
            "easy".into(),
            &conversation(&[
                ("AddAlarm", None),
                ("AddAlarm", Some("boom")),
                ("Nope", None),
            ]),
        );
        stats.add(
            catalog(),
            "hard".into(),
            &conversation(&[("QueryCalendar", None)]),
        );
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
        assert_eq!(stats.by_tool.len(), catalog().tools().len() + 1);
    }

    #[test]
    fn subset_is_the_parent_folder() {
        assert_eq!(subset_of(Path::new("conversations/hard/x.json")), "hard");
        assert_eq!(subset_of(Path::new("x.json")), ".");
    }

    #[test]
    fn merged_partial_counts_equal_one_count() {
        let a = conversation(&[("AddAlarm", None), ("Nope", Some("x"))]);
        let b = conversation(&[("QueryCalendar", None), ("Other", None)]);
        let mut whole = Stats::empty(catalog());
        whole.add(catalog(), "easy".into(), &a);
        whole.add(catalog(), "hard".into(), &b);
        let mut left = Stats::empty(catalog());
        left.add(catalog(), "easy".into(), &a);
        let mut right = Stats::empty(catalog());
        right.add(catalog(), "hard".into(), &b);
        left.merge(right);
        assert_eq!(left, whole);
    }

    #[test]
    fn the_first_unreadable_file_in_order_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let good = serde_json::to_string(&conversation(&[("AddAlarm", None)])).unwrap();
        let mut files = Vec::new();
        for i in 0..40 {
            let path = dir.path().join(format!("{i:02}.json"));
            let text = if i == 7 || i == 30 { "{ broken" } else { &good };
            std::fs::write(&path, text).unwrap();
            files.push(path);
        }
        let err = stats_files(
            &files,
            crate::suites::registry().by_name("tooltalk").unwrap(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("07.json"), "{err}");
        files.retain(|p| !p.ends_with("07.json") && !p.ends_with("30.json"));
        assert_eq!(
            stats_files(
                &files,
                crate::suites::registry().by_name("tooltalk").unwrap()
            )
            .unwrap()
            .conversations,
            38
        );
    }
}
