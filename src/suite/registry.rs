//! The suites a run knows, and the one rule that says which suite and
//! format read a file: the longest ending of a file name among every
//! registered format's wins (`x.lv3.json` is API-Bank's scenario, not a
//! ToolTalk conversation); between endings of one length, the suite
//! registered first. `suites::registry()` is the command line's; a test
//! registers its own.

use std::path::{Path, PathBuf};

use super::format::{FileFormat, FormatKind};
use super::{Evaluation, Suite};
use crate::eval::summary::Conversations;
use crate::report::runs::{self, RunKind};
use crate::run::with_user::summary::ScenarioFigures;
use crate::{Error, Result};

/// Registered suites, in the order `--suite` lists them.
#[derive(Clone)]
pub struct Registry {
    suites: Vec<&'static dyn Suite>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.suites.iter().map(|s| s.name()))
            .finish()
    }
}

impl Registry {
    /// A registry of these suites; the first is the default where a
    /// command has no file to tell (`tools`).
    pub fn new(suites: Vec<&'static dyn Suite>) -> Registry {
        assert!(!suites.is_empty(), "a registry needs a suite");
        Registry { suites }
    }

    pub fn suites(&self) -> &[&'static dyn Suite] {
        &self.suites
    }

    /// The suite a command falls back on.
    pub fn first(&self) -> &'static dyn Suite {
        self.suites[0]
    }

    /// A suite by its `--suite` name.
    pub fn by_name(&self, name: &str) -> Option<&'static dyn Suite> {
        self.suites.iter().copied().find(|s| s.name() == name)
    }

    /// The suite `--suite` names, if any; an unknown name is a usage error.
    pub fn named(&self, name: Option<&str>) -> Result<Option<&'static dyn Suite>> {
        let Some(name) = name else { return Ok(None) };
        self.by_name(name).map(Some).ok_or_else(|| {
            let known: Vec<&str> = self.suites.iter().map(|s| s.name()).collect();
            Error::Usage(format!(
                "unknown suite {name:?} (known: {})",
                known.join(", ")
            ))
        })
    }

    /// The suite and format that read `path`: within the suite `forced`
    /// names (`--suite`), the format whose ending fits longest, else its
    /// first format; without one, the format whose ending fits longest
    /// among every suite's.
    pub fn for_path(
        &self,
        path: &Path,
        forced: Option<&'static dyn Suite>,
    ) -> Option<(&'static dyn Suite, &'static FileFormat)> {
        if let Some(suite) = forced {
            return Some((suite, suite.format_of(path)));
        }
        let mut best: Option<(usize, &'static dyn Suite, &'static FileFormat)> = None;
        for &suite in &self.suites {
            for &format in suite.formats() {
                if let Some(length) = format.fits(path) {
                    if best.is_none_or(|(longest, _, _)| length > longest) {
                        best = Some((length, suite, format));
                    }
                }
            }
        }
        best.map(|(_, suite, format)| (suite, format))
    }

    /// The suite whose files `files` are: the one `--suite` forced, else
    /// the one that reads them (the first suite when there are no files).
    /// Files of two suites are refused: one databases folder serves one
    /// suite.
    pub fn of_files(
        &self,
        files: &[PathBuf],
        forced: Option<&'static dyn Suite>,
    ) -> Result<&'static dyn Suite> {
        let mut suite: Option<&'static dyn Suite> = forced;
        for file in files {
            let Some((found, _)) = self.for_path(file, forced) else {
                return Err(Error::input(file, "no suite reads this file (try --suite)"));
            };
            match suite {
                Some(s) if s.name() != found.name() => {
                    return Err(Error::Usage(format!(
                        "{} belongs to the {} suite and other files to the {} suite: pick one with --suite, or give each suite's files on their own",
                        file.display(),
                        found.name(),
                        s.name()
                    )))
                }
                _ => suite = Some(found),
            }
        }
        Ok(suite.unwrap_or(self.first()))
    }

    /// The kinds of run `report` reads, each once, in the order of the
    /// suites: a suite's evaluation's (whole conversations, or its levels'
    /// own), then conversations with a user where it has scenarios for one.
    pub fn report_kinds(&self) -> Vec<&'static dyn RunKind> {
        let mut kinds: Vec<&'static dyn RunKind> = Vec::new();
        for suite in &self.suites {
            let evaluation = match suite.evaluation() {
                Evaluation::Conversations => Some(runs::kind::<Conversations>()),
                Evaluation::Levels(levels) => Some(levels.report_kind()),
                Evaluation::Tasks(tasks) => Some(tasks.report_kind()),
            };
            let with_user = suite.interactive().map(|_| runs::kind::<ScenarioFigures>());
            for kind in evaluation.into_iter().chain(with_user) {
                if kinds.iter().all(|k| k.name() != kind.name()) {
                    kinds.push(kind);
                }
            }
        }
        kinds
    }

    /// The name endings of the files a run looks for in folders: the
    /// forced suite's, or every suite's.
    pub fn endings(&self, forced: Option<&'static dyn Suite>) -> Vec<&'static str> {
        let suites = match forced {
            Some(suite) => vec![suite],
            None => self.suites.clone(),
        };
        let mut endings: Vec<&'static str> = Vec::new();
        for ending in suites
            .iter()
            .flat_map(|s| s.formats().iter())
            .flat_map(|f| f.endings.iter().copied())
        {
            if !endings.contains(&ending) {
                endings.push(ending);
            }
        }
        endings
    }

    /// The files that sit beside a file a suite reads by its whole name
    /// and are its data, never dialogues (tau2's `db.json` beside
    /// `tasks.json`): each such name with the file it goes with.
    pub fn companions(&self) -> Vec<(&'static str, &'static str)> {
        self.suites
            .iter()
            .flat_map(|s| s.companions().iter().copied())
            .collect()
    }
}

/// A suite's formats seen from a path.
impl dyn Suite + '_ {
    /// The suite's format for `path`: the one whose ending fits longest,
    /// else its first (a file named otherwise, read with `--suite`).
    pub fn format_of(&self, path: &Path) -> &'static FileFormat {
        let formats = self.formats();
        formats
            .iter()
            .copied()
            .filter_map(|f| f.fits(path).map(|length| (length, f)))
            .fold(
                None,
                |best: Option<(usize, &'static FileFormat)>, (length, f)| match best {
                    Some((longest, _)) if longest >= length => best,
                    _ => Some((length, f)),
                },
            )
            .map_or(formats[0], |(_, f)| f)
    }

    /// One file's text (read from `path`) in the model.
    pub fn parse_dialogue(&self, path: &Path, text: &str) -> Result<crate::dialogue::Conversation> {
        (self.format_of(path).parse)(path, text)
    }

    /// Read one file into the model.
    pub fn read_dialogue(&self, path: &Path) -> Result<crate::dialogue::Conversation> {
        self.format_of(path).read(path)
    }

    /// Every dialogue of one file (many for a file of tasks).
    pub fn read_dialogues(&self, path: &Path) -> Result<Vec<crate::dialogue::Conversation>> {
        self.format_of(path)
            .dialogues(path, &crate::formats::read::read_text(path)?)
    }

    /// Read one file to record results in it (`fill`).
    pub fn load_dialogue(&self, path: &Path) -> Result<crate::formats::LoadedConversation> {
        (self.format_of(path).load)(path)
    }

    /// Whether `fill` records results in the file (a scenario records none).
    pub fn records_results(&self, path: &Path) -> bool {
        self.format_of(path).records_results()
    }

    /// The name endings of the suite's formats of one kind.
    pub fn endings(&self, kind: FormatKind) -> Vec<&'static str> {
        self.formats()
            .iter()
            .filter(|f| f.kind == kind)
            .flat_map(|f| f.endings.iter().copied())
            .collect()
    }
}
