//! Answers made elsewhere, read from a JSONL file. Each kind keeps its
//! own line format ([`Lines`]: ToolTalk's predictions, API-Bank's
//! `{file, turn, occurrence, output, reply}`); reading, refusing a line
//! that answers nothing evaluated, and answering are the same for all.
//!
//! A request with no recorded answer is answered with empty text, as a
//! model that said nothing; a recorded answer with calls gives the calls
//! not yet made at the request's step, then its text.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::{Answer, Answerer, Key, Request, Settings};
use crate::formats::read::read_text;
use crate::{Error, Result};

/// A kind's replay line format.
pub trait Lines {
    /// The answerer's name in reports, for a file at `path`.
    fn name(&self, path: &Path) -> String;

    /// The answers one line (numbered from 1) records; an error names the
    /// file and line.
    fn parse(&self, path: &Path, line_no: usize, line: &str) -> Result<Vec<(Key, Answer)>>;

    /// Why `key` answers nothing being evaluated, if it does not.
    fn check(&self, key: &Key) -> std::result::Result<(), String>;

    /// What a second line for `key` is told.
    fn duplicate(&self, key: &Key) -> String;

    /// What a unit without any line is called, when every unit evaluated
    /// needs one (a request for it is then an error).
    fn every_unit(&self) -> Option<&'static str> {
        None
    }
}

#[derive(Debug, Clone)]
pub struct Replay {
    name: String,
    path: PathBuf,
    sha256: String,
    answers: HashMap<Key, Answer>,
    /// Units with at least one line, when every unit needs one: what a
    /// unit is called, and them.
    units: Option<(&'static str, HashSet<String>)>,
}

impl Replay {
    /// Read `path` in `lines`' format, refusing (exit 2, naming the line)
    /// a malformed line, a second line for one key and a line that
    /// answers nothing evaluated.
    pub fn load(path: &Path, lines: &dyn Lines) -> Result<Self> {
        let text = read_text(path)?;
        let mut answers = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            if line.trim().is_empty() {
                continue;
            }
            for (key, answer) in lines.parse(path, line_no, line)? {
                let bad = |message: String| Error::syntax(path, line_no, 1, message);
                lines.check(&key).map_err(bad)?;
                if answers.contains_key(&key) {
                    return Err(bad(lines.duplicate(&key)));
                }
                answers.insert(key, answer);
            }
        }
        let units = lines
            .every_unit()
            .map(|what| (what, answers.keys().map(|k| k.unit.clone()).collect()));
        Ok(Replay {
            name: lines.name(path),
            path: path.to_path_buf(),
            sha256: crate::llm::sha256_hex(text.as_bytes()),
            answers,
            units,
        })
    }
}

impl Answerer for Replay {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn settings(&self) -> Settings {
        Settings {
            predictions: Some(self.path.display().to_string()),
            predictions_sha256: Some(self.sha256.clone()),
            ..Settings::default()
        }
    }

    fn answer(&self, request: &Request<'_>) -> Result<Answer> {
        let key = &request.key;
        if let Some((what, units)) = &self.units {
            if !units.contains(&key.unit) {
                return Err(Error::Other(format!(
                    "{}: no predictions for {what} {:?}",
                    self.path.display(),
                    key.unit
                )));
            }
        }
        let Some(recorded) = self.answers.get(key) else {
            return Ok(Answer::default());
        };
        Ok(match recorded.calls.get(request.step..) {
            Some(calls) if !calls.is_empty() => Answer {
                calls: calls.to_vec(),
                ..Answer::default()
            },
            _ => Answer::text(recorded.text.clone()),
        })
    }
}
