//! The linter: a registry of rules (one per file under `rules/`, in the
//! manner of ruff), run over ToolTalk conversations, API-Bank dialogues and
//! scenario pools, with findings placed at the file, line and column of
//! what they are about and printed as text, JSON, SARIF or GitHub
//! annotations.

pub mod config;
pub mod document;
pub mod engine;
pub mod output;
pub mod registry;
pub mod rules;
pub mod view;

pub use config::Config;
pub use document::{Document, InputFormat};
pub use engine::{lint_files, lint_paths, Options, Report};
pub use registry::{all_rules, rule, Rule, Severity};

/// What a rule reports before it is placed in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub rule: &'static str,
    pub message: String,
    /// For conversations: the turn's position in `conversation`; for
    /// API-Bank: the line's 0-based position in the file.
    pub turn: Option<usize>,
    /// For conversations: the position in the turn's `apis`; for API-Bank:
    /// the index among the file's API lines.
    pub call: Option<usize>,
    /// For tasks (tau2): the task's id (`turn` is its position in the
    /// file, `call` the action's index in its `actions`).
    pub task_id: Option<String>,
    pub argument: Option<String>,
    pub at: Option<Anchor>,
    /// A place known directly (1-based line and column), when there is no
    /// pointer to follow.
    pub place: Option<(usize, usize)>,
    /// Lower than the rule's default (a rule's milder cases).
    pub severity: Option<Severity>,
    /// A hint shown under the source line (e.g. the closest text found).
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn new(rule: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            rule,
            message: message.into(),
            turn: None,
            call: None,
            task_id: None,
            argument: None,
            at: None,
            place: None,
            severity: None,
            help: None,
        }
    }

    pub fn turn(mut self, turn: usize) -> Self {
        self.turn = Some(turn);
        self
    }

    pub fn call(mut self, turn: usize, call: usize) -> Self {
        self.turn = Some(turn);
        self.call = Some(call);
        self
    }

    /// About a task (by its position in the file and its id).
    pub fn task(mut self, position: usize, id: impl Into<String>) -> Self {
        self.turn = Some(position);
        self.task_id = Some(id.into());
        self
    }

    pub fn argument(mut self, name: impl Into<String>) -> Self {
        self.argument = Some(name.into());
        self
    }

    pub fn at(mut self, anchor: Anchor) -> Self {
        self.at = Some(anchor);
        self
    }

    pub fn place(mut self, line: usize, column: usize) -> Self {
        self.place = Some((line, column));
        self
    }

    /// Report this one as a warning whatever the rule's default.
    pub fn warning(mut self) -> Self {
        self.severity = Some(Severity::Warning);
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// Where in the file a diagnostic points: a JSON pointer, inside the whole
/// file (conversations, pools) or inside one line (API-Bank).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    /// For API-Bank: the 0-based line position the pointer is relative to.
    pub line: Option<usize>,
    pub pointer: String,
    /// Point at the member's key rather than its value.
    pub key: bool,
}

impl Anchor {
    pub fn value(pointer: impl Into<String>) -> Anchor {
        Anchor {
            line: None,
            pointer: pointer.into(),
            key: false,
        }
    }

    pub fn key(pointer: impl Into<String>) -> Anchor {
        Anchor {
            key: true,
            ..Anchor::value(pointer)
        }
    }

    pub fn in_line(mut self, line: Option<usize>) -> Anchor {
        self.line = line;
        self
    }
}

/// Escape one JSON pointer token.
pub fn pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A finding, placed in its file.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub file: String,
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    pub turn: Option<usize>,
    pub call: Option<usize>,
    /// For tasks: the task's id.
    pub task_id: Option<String>,
    pub argument: Option<String>,
    /// 1-based.
    pub line: Option<usize>,
    /// 1-based, in characters.
    pub column: Option<usize>,
    pub help: Option<String>,
    /// The source line and how many characters of it to underline.
    pub snippet: Option<Snippet>,
}

/// The source line under a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    /// The line, shared by the findings on it (a line may have thousands).
    pub text: std::sync::Arc<str>,
    /// Byte offset in `text` of the finding's column.
    pub at: usize,
    /// Characters to underline.
    pub width: usize,
}
