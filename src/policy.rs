//! The dataset policy: the shape a repository promises its dataset has,
//! written in `talkforge.toml` and checked by `talkforge check` (so CI and
//! a maintainer's `check` agree on it).
//!
//! ```toml
//! [dataset]
//! card = "conversations/README.md"    # tables kept by `talkforge card`
//!
//! [[dataset.subset]]
//! folder = "easy"                     # under conversations/
//! file-name = "{tool}-easy.json"
//! one-per-tool = true                 # every catalog tool has one file
//! min-calls = 1
//! max-calls = 1
//!
//! [[dataset.subset]]
//! folder = "hard"
//! file-name = "{plugins}-{tool}-{n}.json"
//! min-conversations = 50
//! min-calls = 3
//! min-plugins = 2
//! min-user-turns-with-calls = 2
//! min-calls-per-tool = 3
//! ```
//!
//! A subset may name the suite that reads it and its databases folder,
//! so that one repository holds several families (see `dataset`):
//!
//! ```toml
//! [[dataset.subset]]
//! folder = "apibank-level-1"
//! suite = "apibank"                   # default: each file's by its name
//! databases = "databases/apibank"     # default: the suite's own folder
//! tool-descriptions = "project"        # default: "reference"
//! ```
//!
//! In `file-name`, `{tool}` is a tool of the catalog that the conversation
//! calls; `{plugins}` is one or more plugin names joined by `-`, distinct,
//! in alphabetical order, that include the tool's plugin when the name has
//! a `{tool}`; `{n}` is a number. Every other character stands for itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Deserialize;

use crate::dialogue::{Conversation, Role};
use crate::suite::{Catalog, Suite, ToolSpec};
use crate::{Error, Result};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Policy {
    /// The dataset card whose tables `talkforge card` writes, relative to
    /// the repository root.
    #[serde(default)]
    pub card: Option<PathBuf>,
    #[serde(default, rename = "subset")]
    pub subsets: Vec<Subset>,
}

/// What one folder under `conversations/` promises, and which suite reads
/// it with which databases.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Subset {
    pub folder: String,
    /// The suite that reads every file here [default: each file's by its
    /// name, as everywhere].
    pub suite: Option<String>,
    /// The databases folder the files run with, relative to the repository
    /// root [default: the suite's own folder there].
    pub databases: Option<PathBuf>,
    /// The documentation a tool search answers with when these files run
    /// (`project` for dialogues written here, which must not carry the
    /// reference's sentences) [default: the reference's].
    pub tool_descriptions: Option<crate::suite::ToolDescriptions>,
    /// The file name every conversation's follows (see the module docs).
    pub file_name: Option<String>,
    /// Every tool of the catalog has exactly one conversation here, the
    /// one whose `{tool}` names it.
    #[serde(default)]
    pub one_per_tool: bool,
    pub min_conversations: Option<usize>,
    /// Gold calls per conversation.
    pub min_calls: Option<usize>,
    pub max_calls: Option<usize>,
    /// Distinct plugins per conversation.
    pub min_plugins: Option<usize>,
    /// User turns per conversation whose answer makes a call.
    pub min_user_turns_with_calls: Option<usize>,
    /// Gold calls of every catalog tool over the whole subset.
    pub min_calls_per_tool: Option<usize>,
}

#[derive(Debug, Default, Deserialize)]
struct File {
    #[serde(default)]
    dataset: Option<Policy>,
}

impl Policy {
    /// The `[dataset]` table of `root/talkforge.toml`, if there is one.
    pub fn load(root: &Path) -> Result<Option<Policy>> {
        let path = root.join(crate::lint::config::FILE_NAME);
        if !path.is_file() {
            return Ok(None);
        }
        let text = crate::formats::read::read_text(&path)?;
        let file: File = toml::from_str(&text).map_err(|e| Error::input(&path, e.to_string()))?;
        let Some(policy) = file.dataset else {
            return Ok(None);
        };
        for subset in &policy.subsets {
            if let Some(template) = &subset.file_name {
                FileName::new(template).map_err(|e| Error::input(&path, e))?;
            }
        }
        if let Some(card) = &policy.card {
            inside(root, card).map_err(|e| Error::input(&path, e))?;
        }
        Ok(Some(policy))
    }

    /// Every way the dataset breaks the policy, one line each, naming the
    /// file or the subset. `conversations` are the dataset's dialogues
    /// with their paths, under `root/conversations`; `suites` the suite of
    /// each subset, in order (its tools and plugins are that suite's).
    pub fn problems(
        &self,
        root: &Path,
        suites: &[&'static dyn Suite],
        conversations: &[(PathBuf, Conversation)],
    ) -> Vec<String> {
        let mut problems = Vec::new();
        for (subset, suite) in self.subsets.iter().zip(suites) {
            let members = subset.members(root, conversations);
            subset.check(&subset.path(root), suite.catalog(), &members, &mut problems);
        }
        problems
    }
}

/// Refuse a `card` that leads out of the repository at `root`, links
/// resolved: `card --write` writes it and `check` reads it, and neither
/// may reach a file elsewhere. A card not written yet is judged by the
/// deepest folder of its path that exists.
fn inside(root: &Path, card: &Path) -> std::result::Result<(), String> {
    let leaves = || {
        format!(
            "`card` = {:?} leads out of the repository",
            card.display().to_string()
        )
    };
    let root = root
        .canonicalize()
        .map_err(|e| format!("cannot resolve the repository folder: {e}"))?;
    if card.is_absolute() {
        return Err(leaves());
    }
    let path = root.join(card);
    // The deepest part of the path that exists, resolved; what follows it
    // does not exist, so holds no link (a `..` there has no name to drop,
    // and is refused).
    let mut existing = path.as_path();
    let resolved = loop {
        match existing.canonicalize() {
            Ok(resolved) => break resolved,
            Err(_) => {
                existing.file_name().ok_or_else(leaves)?;
                existing = existing.parent().ok_or_else(leaves)?;
            }
        }
    };
    if !resolved.starts_with(&root) {
        return Err(format!("{} (to {})", leaves(), resolved.display()));
    }
    Ok(())
}

impl Subset {
    /// The subset's folder under `root/conversations`.
    pub fn path(&self, root: &Path) -> PathBuf {
        root.join("conversations").join(&self.folder)
    }

    /// The conversations of the dataset that lie in this subset's folder.
    pub fn members<'c>(
        &self,
        root: &Path,
        conversations: &'c [(PathBuf, Conversation)],
    ) -> Vec<&'c (PathBuf, Conversation)> {
        let folder = self.path(root);
        conversations
            .iter()
            .filter(|(path, _)| path.starts_with(&folder))
            .collect()
    }

    fn check(
        &self,
        folder: &Path,
        catalog: &Catalog,
        members: &[&(PathBuf, Conversation)],
        problems: &mut Vec<String>,
    ) {
        let shown = folder.display();
        if let Some(least) = self.min_conversations {
            if members.len() < least {
                problems.push(format!(
                    "{shown}: {} conversations, the policy asks for at least {least}",
                    members.len()
                ));
            }
        }
        // `Policy::load` refuses a bad template; one built otherwise is
        // reported here rather than trusted.
        let name = match self.file_name.as_deref().map(FileName::new) {
            Some(Ok(name)) => Some(name),
            Some(Err(why)) => {
                problems.push(format!("{shown}: {why}"));
                None
            }
            None => None,
        };
        let mut named_tools: BTreeMap<&str, Vec<&Path>> = BTreeMap::new();
        let mut calls_per_tool: BTreeMap<&str, usize> = BTreeMap::new();
        for (path, conversation) in members {
            let place = path.display();
            let called: Vec<&str> = conversation
                .gold_calls()
                .map(|(_, _, call)| call.request.api_name.as_str())
                .collect();
            for tool in &called {
                *calls_per_tool.entry(tool).or_default() += 1;
            }
            if let Some(name) = &name {
                let file = path.file_name().unwrap_or_default().to_string_lossy();
                match name.check(&file, catalog, &called) {
                    Ok(Some(tool)) => named_tools.entry(tool.name).or_default().push(path),
                    Ok(None) => {}
                    Err(why) => problems.push(format!(
                        "{place}: the name does not follow `{}`: {why}",
                        name.template
                    )),
                }
            }
            if let Some(least) = self.min_calls {
                if called.len() < least {
                    problems.push(format!(
                        "{place}: {} gold calls, the policy asks for at least {least}",
                        called.len()
                    ));
                }
            }
            if let Some(most) = self.max_calls {
                if called.len() > most {
                    problems.push(format!(
                        "{place}: {} gold calls, the policy allows at most {most}",
                        called.len()
                    ));
                }
            }
            if let Some(least) = self.min_plugins {
                let mut plugins: Vec<&str> = called
                    .iter()
                    .filter_map(|tool| catalog.tool(tool).map(|t| t.group))
                    .collect();
                plugins.sort_unstable();
                plugins.dedup();
                if plugins.len() < least {
                    problems.push(format!(
                        "{place}: calls tools of {} plugins ({}), the policy asks for at least {least}",
                        plugins.len(),
                        plugins.join(", ")
                    ));
                }
            }
            if let Some(least) = self.min_user_turns_with_calls {
                let leading = user_turns_leading_to_calls(conversation);
                if leading < least {
                    problems.push(format!(
                        "{place}: {leading} user turns lead to calls, the policy asks for at least {least}"
                    ));
                }
            }
        }
        if self.one_per_tool {
            for tool in catalog.tools() {
                match named_tools.get(tool.name).map(Vec::len).unwrap_or(0) {
                    1 => {}
                    0 => problems.push(format!(
                        "{shown}: no conversation is named for {}, the policy asks for one per tool",
                        tool.name
                    )),
                    n => problems.push(format!(
                        "{shown}: {n} conversations are named for {}, the policy asks for one",
                        tool.name
                    )),
                }
            }
        }
        if let Some(least) = self.min_calls_per_tool {
            for tool in catalog.tools() {
                let calls = calls_per_tool.get(tool.name).copied().unwrap_or(0);
                if calls < least {
                    problems.push(format!(
                        "{shown}: {} is called {calls} times, the policy asks for at least {least}",
                        tool.name
                    ));
                }
            }
        }
    }
}

/// User turns whose next turn is the assistant's and makes at least one
/// call.
pub fn user_turns_leading_to_calls(conversation: &Conversation) -> usize {
    conversation
        .conversation
        .windows(2)
        .filter(|w| {
            w[0].role == Role::User && w[1].role == Role::Assistant && !w[1].calls().is_empty()
        })
        .count()
}

/// A `file-name` template, compiled.
#[derive(Debug)]
struct FileName {
    template: String,
    pattern: Regex,
}

impl FileName {
    fn new(template: &str) -> std::result::Result<FileName, String> {
        let mut pattern = String::from("^");
        let mut rest = template;
        while let Some(start) = rest.find('{') {
            pattern.push_str(&regex::escape(&rest[..start]));
            let end = rest[start..]
                .find('}')
                .ok_or_else(|| format!("file-name `{template}`: a `{{` is never closed"))?;
            pattern.push_str(match &rest[start + 1..start + end] {
                "tool" => "(?P<tool>[A-Za-z0-9_]+)",
                "plugins" => "(?P<plugins>[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*)",
                "n" => "(?P<n>[0-9]+)",
                other => {
                    return Err(format!(
                        "file-name `{template}`: unknown placeholder `{{{other}}}` (known: {{tool}}, {{plugins}}, {{n}})"
                    ))
                }
            });
            rest = &rest[start + end + 1..];
        }
        pattern.push_str(&regex::escape(rest));
        pattern.push('$');
        Ok(FileName {
            template: template.to_string(),
            pattern: Regex::new(&pattern).map_err(|e| e.to_string())?,
        })
    }

    /// Whether `file` follows the template for a conversation calling
    /// `called`: the tool it names, if it names one, or why not.
    fn check(
        &self,
        file: &str,
        catalog: &Catalog,
        called: &[&str],
    ) -> std::result::Result<Option<&'static ToolSpec>, String> {
        let found = self
            .pattern
            .captures(file)
            .ok_or_else(|| "it does not have that shape".to_string())?;
        let tool = match found.name("tool") {
            Some(tool) => {
                let tool = tool.as_str();
                let Some(spec) = catalog.tool(tool) else {
                    return Err(format!("{tool} is not a tool of the catalog"));
                };
                if !called.contains(&tool) {
                    return Err(format!("it names {tool}, which no gold call uses"));
                }
                Some(spec)
            }
            None => None,
        };
        if let Some(plugins) = found.name("plugins") {
            let names: Vec<&str> = plugins.as_str().split('-').collect();
            if let Some(unknown) = names
                .iter()
                .find(|name| !catalog.groups().iter().any(|g| g.name == **name))
            {
                return Err(format!("{unknown} is not a plugin of the catalog"));
            }
            if names.windows(2).any(|pair| pair[0] >= pair[1]) {
                return Err("its plugins are not distinct and in alphabetical order".into());
            }
            if let Some(spec) = tool {
                if !names.contains(&spec.group) {
                    return Err(format!(
                        "{} belongs to {}, which the name does not list",
                        spec.name, spec.group
                    ));
                }
            }
        }
        Ok(tool)
    }
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

    #[test]
    fn a_file_name_template_checks_tools_and_plugins() {
        let hard = FileName::new("{plugins}-{tool}-{n}.json").unwrap();
        let called = ["AddAlarm", "SendEmail"];
        let named = hard.check("Alarm-Email-Weather-AddAlarm-1.json", catalog(), &called);
        assert_eq!(named.unwrap().map(|tool| tool.name), Some("AddAlarm"));
        let fails = |file: &str| hard.check(file, catalog(), &called).unwrap_err();
        assert_eq!(
            fails("Email-Alarm-AddAlarm-1.json"),
            "its plugins are not distinct and in alphabetical order"
        );
        assert_eq!(
            fails("Alarm-Email-Weather-AddAlarm.json"),
            "it does not have that shape"
        );
        assert_eq!(
            fails("Alarm-Email-CreateAlarm-1.json"),
            "CreateAlarm is not a tool of the catalog"
        );
        assert_eq!(
            fails("Alarm-Email-FindAlarms-1.json"),
            "it names FindAlarms, which no gold call uses"
        );
        assert_eq!(
            fails("Email-Weather-AddAlarm-2.json"),
            "AddAlarm belongs to Alarm, which the name does not list"
        );
        assert_eq!(
            fails("Alarm-Mail-AddAlarm-1.json"),
            "Mail is not a plugin of the catalog"
        );
        assert!(FileName::new("{tool}-{what}.json")
            .unwrap_err()
            .contains("unknown placeholder `{what}`"));
    }
}
