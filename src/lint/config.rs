//! `talkforge.toml`: which rules run, at what severity, and which are
//! switched off for which paths.
//!
//! ```toml
//! [lint]
//! select = ["unknown-tool", "unreachable-argument"]   # default: all rules
//! ignore = ["metadata-mismatch"]
//!
//! [lint.severity]
//! unreachable-argument = "warning"
//!
//! [lint.per-file-ignores]
//! "conversations/legacy/**" = ["unreachable-argument"]
//! ```
//!
//! The same table may be written `[tool.talkforge.lint]`. Globs are
//! relative to the folder holding the file: `*` stays within a folder,
//! `**` crosses folders, `?` is one character; a glob without `/` matches
//! a file name anywhere.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde::Deserialize;

use super::registry::{rule, Rule, Severity};
use crate::{Error, Result};

pub const FILE_NAME: &str = "talkforge.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct LintTable {
    #[serde(default)]
    select: Option<Vec<String>>,
    #[serde(default)]
    ignore: Vec<String>,
    #[serde(default)]
    severity: BTreeMap<String, String>,
    #[serde(default)]
    per_file_ignores: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
struct ToolTable {
    #[serde(default)]
    talkforge: Option<TalkforgeTable>,
}

#[derive(Debug, Default, Deserialize)]
struct TalkforgeTable {
    #[serde(default)]
    lint: Option<LintTable>,
}

#[derive(Debug, Default, Deserialize)]
struct FileTable {
    #[serde(default)]
    lint: Option<LintTable>,
    #[serde(default)]
    tool: Option<ToolTable>,
}

/// The lint settings of a project.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Where the file was (None: defaults).
    pub path: Option<PathBuf>,
    pub select: Option<Vec<&'static Rule>>,
    pub ignore: Vec<&'static Rule>,
    pub severity: Vec<(&'static Rule, Severity)>,
    pub per_file_ignores: Vec<(Glob, Vec<&'static Rule>)>,
}

impl Config {
    /// The nearest `talkforge.toml` in `start` or a folder above it.
    pub fn discover(start: &Path) -> Result<Config> {
        let start = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
        for dir in start.ancestors() {
            let candidate = dir.join(FILE_NAME);
            if candidate.is_file() {
                return Config::load(&candidate);
            }
        }
        Ok(Config::default())
    }

    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::input(path, e.to_string()))?;
        Config::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Config> {
        let file: FileTable = toml::from_str(text).map_err(|e| {
            let (line, column) = e
                .span()
                .map(|s| crate::formats::read::line_column(text, s.start))
                .unwrap_or((1, 1));
            Error::syntax(path, line, column, e.message().to_owned())
        })?;
        let table = file
            .lint
            .or_else(|| file.tool.and_then(|t| t.talkforge).and_then(|t| t.lint))
            .unwrap_or_default();
        // Absolute first: the parent of a bare "talkforge.toml" is "",
        // which no path is under.
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let base = absolute.parent().map(Path::to_path_buf).unwrap_or_default();
        let rules = |names: &[String]| -> Result<Vec<&'static Rule>> {
            names.iter().map(|n| named(path, n)).collect()
        };
        let mut config = Config {
            path: Some(path.to_path_buf()),
            select: table.select.as_deref().map(rules).transpose()?,
            ignore: rules(&table.ignore)?,
            ..Config::default()
        };
        for (name, level) in &table.severity {
            let severity = Severity::from_name(level).ok_or_else(|| {
                Error::input(
                    path,
                    format!("severity of `{name}` must be \"error\" or \"warning\", not {level:?}"),
                )
            })?;
            config.severity.push((named(path, name)?, severity));
        }
        for (pattern, names) in &table.per_file_ignores {
            let glob = Glob::new(&base, pattern)
                .map_err(|e| Error::input(path, format!("bad glob {pattern:?}: {e}")))?;
            config.per_file_ignores.push((glob, rules(names)?));
        }
        Ok(config)
    }

    /// The severity a rule reports at.
    pub fn severity_of(&self, rule: &Rule) -> Option<Severity> {
        self.severity
            .iter()
            .find(|(r, _)| r.name == rule.name)
            .map(|(_, s)| *s)
    }

    /// Whether `rule` is switched off for `file`.
    pub fn ignores(&self, file: &Path, rule: &str) -> bool {
        self.per_file_ignores
            .iter()
            .any(|(glob, rules)| rules.iter().any(|r| r.name == rule) && glob.matches(file))
    }
}

fn named(path: &Path, name: &str) -> Result<&'static Rule> {
    rule(name).ok_or_else(|| Error::input(path, format!("unknown lint rule `{name}`")))
}

/// A path pattern relative to a folder.
#[derive(Debug, Clone)]
pub struct Glob {
    base: PathBuf,
    regex: Regex,
    name_only: bool,
}

impl Glob {
    pub fn new(base: &Path, pattern: &str) -> std::result::Result<Glob, regex::Error> {
        let pattern = pattern.trim_start_matches("./");
        let mut re = String::from("^");
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '*' if chars.peek() == Some(&'*') => {
                    chars.next();
                    if chars.peek() == Some(&'/') {
                        chars.next();
                        re.push_str("(?:.*/)?");
                    } else {
                        re.push_str(".*");
                    }
                }
                '*' => re.push_str("[^/]*"),
                '?' => re.push_str("[^/]"),
                c => re.push_str(&regex::escape(&c.to_string())),
            }
        }
        re.push('$');
        Ok(Glob {
            base: base.to_path_buf(),
            regex: Regex::new(&re)?,
            name_only: !pattern.contains('/'),
        })
    }

    pub fn matches(&self, file: &Path) -> bool {
        if self.name_only {
            return file
                .file_name()
                .is_some_and(|n| self.regex.is_match(&n.to_string_lossy()));
        }
        let absolute = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
        let relative = absolute.strip_prefix(&self.base).unwrap_or(file);
        let text = relative.to_string_lossy().replace('\\', "/");
        self.regex.is_match(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_lint_table() {
        let config = Config::parse(
            Path::new("/repo/talkforge.toml"),
            r#"
            [lint]
            ignore = ["metadata-mismatch"]
            [lint.severity]
            unreachable-argument = "warning"
            [lint.per-file-ignores]
            "legacy/**" = ["turn-order"]
            "#,
        )
        .unwrap();
        assert_eq!(config.ignore[0].name, "metadata-mismatch");
        let unreachable = rule("unreachable-argument").unwrap();
        assert_eq!(config.severity_of(unreachable), Some(Severity::Warning));
        assert!(config.ignores(Path::new("/repo/legacy/a/b.json"), "turn-order"));
        assert!(!config.ignores(Path::new("/repo/legacy/a/b.json"), "schema"));
        assert!(!config.ignores(Path::new("/repo/new/b.json"), "turn-order"));
    }

    #[test]
    fn a_bare_file_name_is_relative_to_the_current_folder() {
        let text = "[lint.per-file-ignores]\n\"legacy/**\" = [\"turn-order\"]\n";
        let config = Config::parse(Path::new("talkforge.toml"), text).unwrap();
        let here = std::env::current_dir().unwrap();
        assert!(config.ignores(&here.join("legacy/a/b.json"), "turn-order"));
        assert!(config.ignores(Path::new("legacy/a/b.json"), "turn-order"));
        assert!(!config.ignores(&here.join("new/b.json"), "turn-order"));
        let nested = Config::parse(Path::new("conf/talkforge.toml"), text).unwrap();
        assert!(nested.ignores(&here.join("conf/legacy/b.json"), "turn-order"));
        assert!(!nested.ignores(&here.join("legacy/b.json"), "turn-order"));
    }

    #[test]
    fn accepts_the_tool_section_spelling() {
        let config = Config::parse(
            Path::new("talkforge.toml"),
            "[tool.talkforge.lint]\nignore = [\"schema\"]\n",
        )
        .unwrap();
        assert_eq!(config.ignore[0].name, "schema");
    }

    #[test]
    fn refuses_unknown_rules_keys_and_levels() {
        let err = |text: &str| {
            Config::parse(Path::new("t.toml"), text)
                .unwrap_err()
                .to_string()
        };
        assert!(err("[lint]\nignore = [\"no-such-rule\"]\n")
            .contains("unknown lint rule `no-such-rule`"));
        assert!(err("[lint.severity]\nschema = \"fatal\"\n").contains("\"fatal\""));
        assert!(err("[lint]\nignor = []\n").starts_with("t.toml:2:1"));
    }

    #[test]
    fn globs() {
        let base = Path::new("/r");
        let g = |p: &str| Glob::new(base, p).unwrap();
        assert!(g("a/*.json").matches(Path::new("/r/a/x.json")));
        assert!(!g("a/*.json").matches(Path::new("/r/a/b/x.json")));
        assert!(g("a/**/*.json").matches(Path::new("/r/a/b/c/x.json")));
        assert!(g("a/**/*.json").matches(Path::new("/r/a/x.json")));
        assert!(g("x?.json").matches(Path::new("/r/deep/x1.json")));
        assert!(!g("x?.json").matches(Path::new("/r/deep/x12.json")));
    }
}
