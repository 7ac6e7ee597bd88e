//! The dataset card's tables, generated from the dataset (`talkforge card
//! --write`) and held current by `talkforge check`, so that no count in
//! the card is ever edited by hand.
//!
//! The card is the Markdown file `[dataset] card` names in talkforge.toml.
//! Each table stands between a start marker and an end marker, which
//! `card --write` keeps and fills:
//!
//! ```markdown
//! <!-- talkforge card: subsets -->
//! (conversations, turns, user turns, gold calls and failing calls per subset)
//! <!-- talkforge card: end -->
//!
//! <!-- talkforge card: coverage -->
//! (per tool: its calls and conversations in each subset)
//! <!-- talkforge card: end -->
//! ```

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::dialogue::{Conversation, Role};
use crate::policy::Policy;
use crate::suite::{Catalog, Suite};
use crate::{Error, Result};

const END: &str = "<!-- talkforge card: end -->";

/// The tables, by the name their start marker gives them. `suites` are
/// the suites of the policy's subsets, in its order (a subset's tools are
/// its suite's); `fallback` is the suite whose catalog the coverage table
/// lists when the policy names no subset. With subsets of several suites,
/// the coverage block holds one table per suite, each over its subsets.
pub fn tables(
    policy: &Policy,
    root: &Path,
    suites: &[&'static dyn Suite],
    fallback: &'static dyn Suite,
    conversations: &[(PathBuf, Conversation)],
) -> Vec<(&'static str, String)> {
    let subsets: Vec<(&str, Vec<&Conversation>)> = policy
        .subsets
        .iter()
        .map(|subset| {
            let members = subset
                .members(root, conversations)
                .into_iter()
                .map(|(_, c)| c)
                .collect();
            (subset.folder.as_str(), members)
        })
        .collect();
    let mut distinct: Vec<&'static dyn Suite> = Vec::new();
    for suite in suites {
        if distinct.iter().all(|s| s.name() != suite.name()) {
            distinct.push(*suite);
        }
    }
    let coverage = match distinct.as_slice() {
        [] => coverage_table(fallback.catalog(), &subsets),
        [suite] => coverage_table(suite.catalog(), &subsets),
        several => several
            .iter()
            .map(|suite| {
                let own: Vec<(&str, Vec<&Conversation>)> = subsets
                    .iter()
                    .zip(suites)
                    .filter(|(_, s)| s.name() == suite.name())
                    .map(|((folder, members), _)| (*folder, members.clone()))
                    .collect();
                format!(
                    "**{}**\n\n{}",
                    suite.name(),
                    coverage_table(suite.catalog(), &own)
                )
            })
            .collect::<Vec<_>>()
            .join("\n"),
    };
    vec![("subsets", subsets_table(&subsets)), ("coverage", coverage)]
}

#[derive(Default, Clone, Copy)]
struct Counts {
    conversations: usize,
    turns: usize,
    user_turns: usize,
    gold_calls: usize,
    failing: usize,
}

impl Counts {
    fn of(conversations: &[&Conversation]) -> Counts {
        let mut counts = Counts {
            conversations: conversations.len(),
            ..Counts::default()
        };
        for conversation in conversations {
            counts.turns += conversation.conversation.len();
            counts.user_turns += conversation
                .conversation
                .iter()
                .filter(|t| t.role == Role::User)
                .count();
            for (_, _, call) in conversation.gold_calls() {
                counts.gold_calls += 1;
                counts.failing += usize::from(call.exception.is_some());
            }
        }
        counts
    }

    fn add(self, other: Counts) -> Counts {
        Counts {
            conversations: self.conversations + other.conversations,
            turns: self.turns + other.turns,
            user_turns: self.user_turns + other.user_turns,
            gold_calls: self.gold_calls + other.gold_calls,
            failing: self.failing + other.failing,
        }
    }
}

fn subsets_table(subsets: &[(&str, Vec<&Conversation>)]) -> String {
    let mut out = String::from(
        "| subset | conversations | turns | user turns | gold calls | calls that fail on purpose |\n\
         |--------|--------------:|------:|-----------:|-----------:|---------------------------:|\n",
    );
    let mut total = Counts::default();
    let mut row = |name: &str, c: Counts| {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} |",
            c.conversations, c.turns, c.user_turns, c.gold_calls, c.failing
        );
    };
    for (folder, members) in subsets {
        let counts = Counts::of(members);
        total = total.add(counts);
        row(&format!("`{folder}/`"), counts);
    }
    row("total", total);
    out
}

fn coverage_table(catalog: &Catalog, subsets: &[(&str, Vec<&Conversation>)]) -> String {
    let mut out = String::from("| plugin | tool |");
    let mut rule = String::from("|--------|------|");
    for (folder, _) in subsets {
        let _ = write!(out, " {folder} calls | {folder} conversations |");
        rule.push_str("------:|------:|");
    }
    out.push('\n');
    out.push_str(&rule);
    out.push('\n');
    let mut tools = catalog.tools().to_vec();
    tools.sort_by_key(|tool| (tool.group, tool.name));
    for tool in tools {
        let _ = write!(out, "| {} | {} |", tool.group, tool.name);
        for (_, members) in subsets {
            let calls: usize = members
                .iter()
                .map(|c| {
                    c.gold_calls()
                        .filter(|(_, _, call)| call.request.api_name == tool.name)
                        .count()
                })
                .sum();
            let conversations = members
                .iter()
                .filter(|c| {
                    c.gold_calls()
                        .any(|(_, _, call)| call.request.api_name == tool.name)
                })
                .count();
            let _ = write!(out, " {calls} | {conversations} |");
        }
        out.push('\n');
    }
    out
}

/// `card` with each table put between its markers; an error names the
/// card and the marker it lacks.
pub fn fill(path: &Path, card: &str, tables: &[(&'static str, String)]) -> Result<String> {
    let mut text = card.to_string();
    for (name, table) in tables {
        let start = format!("<!-- talkforge card: {name} -->");
        let missing = || {
            Error::input(
                path,
                format!("the card has no `{start}` ... `{END}` block for its {name} table"),
            )
        };
        let from = text.find(&start).ok_or_else(missing)? + start.len();
        let to = from + text[from..].find(END).ok_or_else(missing)?;
        text.replace_range(from..to, &format!("\n{table}"));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_go_between_their_markers_and_the_rest_stays() {
        let card = "# Card\n\n<!-- talkforge card: subsets -->\nold\n<!-- talkforge card: end -->\n\nprose\n";
        let filled = fill(Path::new("c.md"), card, &[("subsets", "| new |\n".into())]).unwrap();
        assert_eq!(
            filled,
            "# Card\n\n<!-- talkforge card: subsets -->\n| new |\n<!-- talkforge card: end -->\n\nprose\n"
        );
        assert_eq!(
            fill(
                Path::new("c.md"),
                &filled,
                &[("subsets", "| new |\n".into())]
            )
            .unwrap(),
            filled
        );
        let error = fill(
            Path::new("c.md"),
            "# Card\n",
            &[("coverage", String::new())],
        )
        .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("c.md: the card has no `<!-- talkforge card: coverage -->`"),
            "{error}"
        );
    }
}
