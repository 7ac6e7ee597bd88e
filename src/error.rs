//! The error every command reports when it cannot run (exit code 2).
//!
//! Findings (a call that differs, a lint error) are not errors: commands
//! return them as exit code 1 through their normal result.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Input that could not be parsed, with the place it went wrong.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// Input that parsed but is unusable (wrong shape, unreadable, too big).
    #[error("{}: {message}", path.display())]
    Input { path: PathBuf, message: String },
    /// Bad command-line use.
    #[error("{0}")]
    Usage(String),
    /// Anything else that stops a command.
    #[error("{0}")]
    Other(String),
}

impl Error {
    pub fn input(path: impl AsRef<Path>, message: impl Into<String>) -> Self {
        Error::Input {
            path: path.as_ref().to_path_buf(),
            message: message.into(),
        }
    }

    pub fn syntax(
        path: impl AsRef<Path>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        Error::Syntax {
            path: path.as_ref().to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }
}

/// One error for a batch that reports every file: the only failure as it
/// is, or every failure one a line under `heading` (given their number);
/// `None` when nothing failed.
pub fn every_failure(
    mut errors: Vec<Error>,
    heading: impl FnOnce(usize) -> String,
) -> Option<Error> {
    match errors.len() {
        0 => None,
        1 => errors.pop(),
        n => Some(Error::Other(format!(
            "{}:\n{}",
            heading(n),
            errors
                .iter()
                .map(|e| format!("  {e}"))
                .collect::<Vec<_>>()
                .join("\n")
        ))),
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
