//! The rule registry: every rule's stable name, default severity and
//! documentation, and the function that runs it.

use std::fmt;

use super::document::Document;
use super::view::View;
use super::{Diagnostic, Snippet};
use crate::dialogue::Conversation;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }

    pub fn from_name(name: &str) -> Option<Severity> {
        match name {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a per-file rule is given: the document, for conversations that
/// have the model's shape their reading, and, for dialogues that could be
/// read as such, the dialogue view shared by the tool rules.
pub struct FileInput<'a> {
    /// The suite the file belongs to, as every command reads it.
    pub suite: &'static dyn crate::suite::Suite,
    pub document: &'a Document<'a>,
    pub conversation: Option<&'a Conversation>,
    pub view: Option<&'a View<'a>>,
    /// The dates the suite's databases hold, when they were loaded.
    pub date_range: Option<crate::suite::DateRange>,
}

impl<'a> FileInput<'a> {
    /// The conversation of a ToolTalk file that has the model's shape.
    pub fn conversation_of(document: &'a Document<'a>) -> Option<&'a Conversation> {
        match document {
            Document::Conversation(file) => file.typed.as_ref(),
            Document::Lines(_) | Document::Pool(_) | Document::Tasks(_) => None,
        }
    }
}

/// The names a file claims, for rules that look across files.
#[derive(Debug, Clone)]
pub struct FileIds {
    /// Index of the file in the run's file order.
    pub file: usize,
    pub path: String,
    /// (field, value, JSON pointer) of each identifier the file declares.
    pub ids: Vec<(&'static str, String, String)>,
    /// Where each identifier's JSON pointer is in the file, found while the
    /// file was open, so that cross-file findings need not read it again.
    pub places: Vec<(String, Option<Position>)>,
}

/// A place in a file: 1-based line and column, and the line to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
    pub snippet: Snippet,
}

#[derive(Clone, Copy)]
pub enum Check {
    /// Looks at one file at a time.
    File(fn(&FileInput<'_>, &mut Vec<Diagnostic>)),
    /// Looks across the files of a run: diagnostics with the file index.
    Dataset(fn(&[FileIds]) -> Vec<(usize, Diagnostic)>),
}

/// One rule.
#[derive(Clone, Copy)]
pub struct Rule {
    /// Stable kebab-case name; tools and CI match on it.
    pub name: &'static str,
    pub severity: Severity,
    /// One line: what it finds.
    pub summary: &'static str,
    /// The full documentation (what it finds, why it matters, an example),
    /// taken from the rule's doc comment.
    pub doc: &'static str,
    pub check: Check,
}

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rule").field("name", &self.name).finish()
    }
}

impl Rule {
    /// The documentation as printed by `--explain`: the doc comment
    /// without its one-space indent.
    pub fn explain(&self) -> String {
        let mut out = format!("# {} ({})\n\n", self.name, self.severity);
        for line in self.doc.lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out
    }
}

/// Declare a rule from its doc comment: the comment becomes both the
/// item's rustdoc and the text `--explain` prints.
#[macro_export]
macro_rules! declare_rule {
    (
        $(#[doc = $doc:expr])*
        name: $name:literal,
        severity: $severity:ident,
        summary: $summary:literal,
        check: $check:expr $(,)?
    ) => {
        $(#[doc = $doc])*
        pub static RULE: $crate::lint::registry::Rule = $crate::lint::registry::Rule {
            name: $name,
            severity: $crate::lint::registry::Severity::$severity,
            summary: $summary,
            doc: concat!($($doc, "\n"),*),
            check: $check,
        };

        /// The rule's stable name.
        pub const NAME: &str = $name;
    };
}

/// Every rule, in documentation order.
pub fn all_rules() -> &'static [&'static Rule] {
    use super::rules::*;
    static RULES: [&Rule; 23] = [
        &schema::RULE,
        &turn_order::RULE,
        &ends_on_user_turn::RULE,
        &unknown_tool::RULE,
        &unknown_argument::RULE,
        &missing_argument::RULE,
        &argument_type::RULE,
        &unreachable_argument::RULE,
        &auth_order::RULE,
        &session_token::RULE,
        &metadata_mismatch::RULE,
        &username_mismatch::RULE,
        &timestamp_out_of_range::RULE,
        &duplicate_id::RULE,
        &placeholder_text::RULE,
        &scenario_unknown_tool::RULE,
        &scenario_missing_required_tool::RULE,
        &unknown_id::RULE,
        &duplicate_task::RULE,
        &shared_gold::RULE,
        &write_without_effect::RULE,
        &db_unchanged_by_raise::RULE,
        &communicate_not_in_output::RULE,
    ];
    &RULES
}

/// A rule by name.
pub fn rule(name: &str) -> Option<&'static Rule> {
    all_rules().iter().copied().find(|r| r.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_case_and_documented() {
        let mut seen = std::collections::HashSet::new();
        for r in all_rules() {
            assert!(seen.insert(r.name), "{} twice", r.name);
            assert!(
                r.name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{}",
                r.name
            );
            let doc = r.explain();
            for section in ["## Why", "## Example"] {
                assert!(doc.contains(section), "{} lacks {section}", r.name);
            }
            assert!(!r.summary.is_empty());
        }
    }

    #[test]
    fn explain_strips_the_doc_comment_indent() {
        let text = rule("unknown-tool").unwrap().explain();
        assert!(text.starts_with("# unknown-tool (error)\n\n"));
        assert!(text.lines().any(|l| l == "## Why"));
    }
}
