//! The project's own benchmark keeps the shape its card promises: one easy
//! conversation per tool, hard conversations with several calls over several
//! plugins led by several user turns, every tool used at least 3 times in
//! the hard set, and the card's coverage table matching the files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use talkforge::dialogue::{Conversation, Role};
use talkforge::formats::{discover, load_conversation};
use talkforge::suites::tooltalk::{catalog, tool};

fn load(subset: &str) -> Vec<(PathBuf, Conversation)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("conversations")
        .join(subset);
    discover(&[dir], &["json"])
        .unwrap()
        .into_iter()
        .map(|p| {
            let c = load_conversation(&p).unwrap().conversation;
            (p, c)
        })
        .collect()
}

#[test]
fn easy_has_exactly_one_call_of_each_tool() {
    let easy = load("easy");
    assert_eq!(easy.len(), 28);
    let mut seen = Vec::new();
    for (path, conversation) in &easy {
        let calls: Vec<_> = conversation.gold_calls().collect();
        assert_eq!(calls.len(), 1, "{}", path.display());
        let name = calls[0].2.request.api_name.clone();
        assert_eq!(
            path.file_name().unwrap().to_string_lossy(),
            format!("{name}-easy.json")
        );
        seen.push(name);
    }
    seen.sort();
    let mut all: Vec<String> = catalog()
        .tools()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    all.sort();
    assert_eq!(seen, all);
}

/// User turns whose next assistant turn makes at least one call.
fn user_turns_leading_to_calls(conversation: &Conversation) -> usize {
    conversation
        .conversation
        .windows(2)
        .filter(|w| {
            w[0].role == Role::User && w[1].role == Role::Assistant && !w[1].calls().is_empty()
        })
        .count()
}

fn hard_usage() -> BTreeMap<String, (usize, usize)> {
    let mut usage: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (_, conversation) in load("hard") {
        let mut tools: Vec<String> = Vec::new();
        for (_, _, call) in conversation.gold_calls() {
            usage.entry(call.request.api_name.clone()).or_default().0 += 1;
            if !tools.contains(&call.request.api_name) {
                tools.push(call.request.api_name.clone());
            }
        }
        for t in tools {
            usage.entry(t).or_default().1 += 1;
        }
    }
    usage
}

#[test]
fn hard_conversations_are_hard_enough() {
    let hard = load("hard");
    assert!(hard.len() >= 50, "{} hard conversations", hard.len());
    for (path, conversation) in &hard {
        let calls: Vec<_> = conversation.gold_calls().collect();
        assert!(
            calls.len() >= 3,
            "{}: {} calls",
            path.display(),
            calls.len()
        );
        let mut plugins: Vec<&str> = calls
            .iter()
            .map(|(_, _, c)| tool(&c.request.api_name).unwrap().group)
            .collect();
        plugins.sort();
        plugins.dedup();
        assert!(
            plugins.len() >= 2,
            "{}: plugins {plugins:?}",
            path.display()
        );
        assert!(
            user_turns_leading_to_calls(conversation) >= 2,
            "{}: fewer than 2 user turns lead to calls",
            path.display()
        );
    }
    let usage = hard_usage();
    for spec in catalog().tools() {
        let (calls, _) = usage.get(spec.name).copied().unwrap_or_default();
        assert!(calls >= 3, "{} is called {calls} times in hard/", spec.name);
    }
}

#[test]
fn the_dataset_card_coverage_table_is_current() {
    let card = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("conversations/README.md"),
    )
    .unwrap();
    let usage = hard_usage();
    let mut rows = 0;
    for line in card.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | plugin | tool | easy | hard calls | hard conversations |
        if cells.len() != 7 || tool(cells[2]).is_none() {
            continue;
        }
        let (calls, conversations) = usage.get(cells[2]).copied().unwrap_or_default();
        assert_eq!(cells[4], calls.to_string(), "hard calls of {}", cells[2]);
        assert_eq!(
            cells[5],
            conversations.to_string(),
            "hard conversations of {}",
            cells[2]
        );
        rows += 1;
    }
    assert_eq!(rows, 28, "the card lists every tool once");
}
