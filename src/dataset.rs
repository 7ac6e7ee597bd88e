//! One repository, several families: which suite reads each dataset file
//! and which databases folder it runs with. A `[[dataset.subset]]` of
//! talkforge.toml may name both (`suite`, `databases`); a file outside
//! every declared subset is read by the suite its name says, with that
//! suite's own databases folder. `check`, `card` and `stats` run each
//! suite over its own files ([`Part`]s); a command given files
//! (verify, fill, lint, stats) looks their subset up in the nearest
//! talkforge.toml above them ([`Lookup`]), its `--suite` and
//! `--databases` winning.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::policy::Policy;
use crate::suite::{Registry, Suite, ToolDescriptions};
use crate::{Error, Result};

/// The files of a dataset that one suite reads with one databases folder.
#[derive(Clone)]
pub struct Part {
    pub suite: &'static dyn Suite,
    pub databases: PathBuf,
    /// What a tool search answers with while these files run.
    pub tool_descriptions: ToolDescriptions,
    pub files: Vec<PathBuf>,
}

impl std::fmt::Debug for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Part")
            .field("suite", &self.suite.name())
            .field("databases", &self.databases)
            .field("tool_descriptions", &self.tool_descriptions)
            .field("files", &self.files.len())
            .finish()
    }
}

/// What talkforge.toml declares for the files of one subset.
#[derive(Clone)]
pub struct Declared {
    /// The subset's folder under `conversations/`.
    pub folder: String,
    /// Its `suite`, when it names one.
    pub suite: Option<&'static dyn Suite>,
    /// Its `databases`, joined to the repository root, when it names one.
    pub databases: Option<PathBuf>,
    /// Its `tool-descriptions`, when it names them.
    pub tool_descriptions: Option<ToolDescriptions>,
    /// The repository root (the folder holding talkforge.toml).
    pub root: PathBuf,
}

impl Declared {
    /// The databases folder the subset's files run with when `suite`
    /// reads them: the declared one, else the suite's own in the
    /// repository.
    pub fn databases_for(&self, suite: &dyn Suite) -> PathBuf {
        self.databases
            .clone()
            .unwrap_or_else(|| self.root.join(suite.default_databases()))
    }
}

/// The subsets one talkforge.toml declares, their suites resolved.
#[derive(Clone, Default)]
pub struct Declarations {
    subsets: Vec<(PathBuf, Declared)>,
}

impl Declarations {
    /// The subsets of `policy` (the `[dataset]` table of `root`'s
    /// talkforge.toml); a suite name no suite has is an error naming the
    /// file.
    pub fn new(registry: &Registry, root: &Path, policy: Option<&Policy>) -> Result<Declarations> {
        let mut subsets = Vec::new();
        for subset in policy.map_or(&[][..], |p| &p.subsets[..]) {
            let suite = match &subset.suite {
                Some(name) => Some(registry.by_name(name).ok_or_else(|| {
                    let known: Vec<&str> = registry.suites().iter().map(|s| s.name()).collect();
                    Error::input(
                        root.join(crate::lint::config::FILE_NAME),
                        format!(
                            "subset `{}`: unknown suite {name:?} (known: {})",
                            subset.folder,
                            known.join(", ")
                        ),
                    )
                })?),
                None => None,
            };
            let declared = Declared {
                folder: subset.folder.clone(),
                suite,
                databases: subset.databases.as_ref().map(|d| root.join(d)),
                tool_descriptions: subset.tool_descriptions,
                root: root.to_path_buf(),
            };
            subsets.push((subset.path(root), declared));
        }
        Ok(Declarations { subsets })
    }

    /// The declared subset whose folder holds `file` (the deepest, should
    /// two nest).
    pub fn of(&self, file: &Path) -> Option<&Declared> {
        self.subsets
            .iter()
            .filter(|(folder, _)| file.starts_with(folder))
            .max_by_key(|(folder, _)| folder.components().count())
            .map(|(_, declared)| declared)
    }

    /// The declared subset of this folder under `conversations/`.
    pub fn by_folder(&self, folder: &str) -> Option<&Declared> {
        self.subsets
            .iter()
            .map(|(_, declared)| declared)
            .find(|d| d.folder == folder)
    }
}

/// The suite that reads `file`: `declared`'s, else the one its name says.
fn suite_of(
    registry: &Registry,
    file: &Path,
    declared: Option<&Declared>,
) -> Result<&'static dyn Suite> {
    if let Some(suite) = declared.and_then(|d| d.suite) {
        return Ok(suite);
    }
    registry
        .for_path(file, None)
        .map(|(suite, _)| suite)
        .ok_or_else(|| Error::input(file, "no suite reads this file (try --suite)"))
}

/// The dataset files under `root` split into parts, one per suite and
/// databases folder, in the registry's order of suites. `only` (`--suite`)
/// keeps that suite's part(s) alone.
pub fn split(
    registry: &Registry,
    root: &Path,
    declarations: &Declarations,
    files: Vec<PathBuf>,
    only: Option<&'static dyn Suite>,
) -> Result<Vec<Part>> {
    let mut parts: Vec<Part> = Vec::new();
    for file in files {
        let declared = declarations.of(&file);
        let suite = suite_of(registry, &file, declared)?;
        if only.is_some_and(|only| only.name() != suite.name()) {
            continue;
        }
        let databases = match declared {
            Some(declared) => declared.databases_for(suite),
            None => root.join(suite.default_databases()),
        };
        let tool_descriptions = declared
            .and_then(|d| d.tool_descriptions)
            .unwrap_or_default();
        match parts.iter_mut().find(|p| {
            p.suite.name() == suite.name()
                && p.databases == databases
                && p.tool_descriptions == tool_descriptions
        }) {
            Some(part) => part.files.push(file),
            None => parts.push(Part {
                suite,
                databases,
                tool_descriptions,
                files: vec![file],
            }),
        }
    }
    let order = |suite: &dyn Suite| {
        registry
            .suites()
            .iter()
            .position(|s| s.name() == suite.name())
    };
    parts.sort_by(|a, b| (order(a.suite), &a.databases).cmp(&(order(b.suite), &b.databases)));
    Ok(parts)
}

/// Each file's declared subset, from the nearest talkforge.toml above it
/// (each settings file read once).
pub struct Lookup<'r> {
    registry: &'r Registry,
    /// A folder's nearest declarations (None: no talkforge.toml with a
    /// `[dataset]` table above it).
    by_folder: HashMap<PathBuf, Option<Arc<Declarations>>>,
}

impl<'r> Lookup<'r> {
    pub fn new(registry: &'r Registry) -> Lookup<'r> {
        Lookup {
            registry,
            by_folder: HashMap::new(),
        }
    }

    /// What the nearest talkforge.toml above `file` declares for it.
    pub fn declared(&mut self, file: &Path) -> Result<Option<Declared>> {
        let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
        let Some(folder) = file.parent() else {
            return Ok(None);
        };
        let declarations = self.declarations(folder)?;
        Ok(declarations.and_then(|d| d.of(&file).cloned()))
    }

    fn declarations(&mut self, folder: &Path) -> Result<Option<Arc<Declarations>>> {
        if let Some(known) = self.by_folder.get(folder) {
            return Ok(known.clone());
        }
        let found = if folder.join(crate::lint::config::FILE_NAME).is_file() {
            let policy = Policy::load(folder)?;
            Some(Arc::new(Declarations::new(
                self.registry,
                folder,
                policy.as_ref(),
            )?))
        } else {
            match folder.parent() {
                Some(parent) => self.declarations(parent)?,
                None => None,
            }
        };
        self.by_folder.insert(folder.to_path_buf(), found.clone());
        Ok(found)
    }
}

/// The tool descriptions the subsets of `suite` that run with the
/// databases in `databases` declare, in the nearest talkforge.toml at or
/// above `folder`: what a dialogue drafted against those databases
/// (`generate dialogues`) is written with. None when no such subset names
/// them; subsets that disagree are refused (`--tool-descriptions` picks).
pub fn declared_tool_descriptions(
    registry: &Registry,
    folder: &Path,
    suite: &dyn Suite,
    databases: &Path,
) -> Result<Option<ToolDescriptions>> {
    let folder = std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf());
    let Some(declarations) = Lookup::new(registry).declarations(&folder)? else {
        return Ok(None);
    };
    let databases = std::path::absolute(databases).unwrap_or_else(|_| databases.to_path_buf());
    let mut found: Option<(&Declared, ToolDescriptions)> = None;
    for (_, declared) in &declarations.subsets {
        let runs_here = declared.suite.is_some_and(|s| s.name() == suite.name())
            && std::path::absolute(declared.databases_for(suite)).ok() == Some(databases.clone());
        let Some(descriptions) = declared.tool_descriptions.filter(|_| runs_here) else {
            continue;
        };
        match found {
            Some((first, other)) if other != descriptions => {
                return Err(Error::Usage(format!(
                    "the subsets {} and {} run with {} and declare the {} and the {} tool descriptions (talkforge.toml): pass --tool-descriptions",
                    first.folder,
                    declared.folder,
                    databases.display(),
                    other.name(),
                    descriptions.name()
                )))
            }
            Some(_) => {}
            None => found = Some((declared, descriptions)),
        }
    }
    Ok(found.map(|(_, descriptions)| descriptions))
}

/// What a command over files (verify, fill) runs them with: the suite,
/// and what their declared subset sets (None: no subset declares the
/// files, the command's default applies).
pub struct Resolved {
    pub suite: &'static dyn Suite,
    pub databases: Option<PathBuf>,
    pub tool_descriptions: Option<ToolDescriptions>,
}

/// The one suite that reads `files`, with their declared subset's
/// databases folder and tool descriptions: `forced` (`--suite`) when
/// given, else each file's declared subset's or the suite its name says.
/// Files of two suites, or of subsets set up differently, are refused:
/// one run has one world.
pub fn one_suite(
    registry: &Registry,
    files: &[PathBuf],
    forced: Option<&'static dyn Suite>,
) -> Result<Resolved> {
    if let Some(suite) = forced {
        return Ok(Resolved {
            suite,
            databases: None,
            tool_descriptions: None,
        });
    }
    let mut lookup = Lookup::new(registry);
    let mut found: Option<(Resolved, &Path)> = None;
    for file in files {
        let declared = lookup.declared(file)?;
        let suite = suite_of(registry, file, declared.as_ref())?;
        let databases = declared.as_ref().map(|d| d.databases_for(suite));
        let tool_descriptions = declared.as_ref().and_then(|d| d.tool_descriptions);
        match &found {
            None => {
                found = Some((
                    Resolved {
                        suite,
                        databases,
                        tool_descriptions,
                    },
                    file,
                ))
            }
            Some((first, other)) if first.suite.name() != suite.name() => {
                return Err(Error::Usage(format!(
                    "{} belongs to the {} suite and {} to the {} suite: pick one with --suite, \
                     or give each suite's files on their own (`talkforge check` runs every suite of a repository)",
                    file.display(),
                    suite.name(),
                    other.display(),
                    first.suite.name()
                )))
            }
            Some((first, other)) if first.databases != databases => {
                let shown = |d: &Option<PathBuf>| {
                    d.as_ref()
                        .map_or("the default folder".to_string(), |d| d.display().to_string())
                };
                return Err(Error::Usage(format!(
                    "{} runs with the databases in {} and {} with those in {} (talkforge.toml): \
                     give each subset's files on their own, or pass --databases",
                    file.display(),
                    shown(&databases),
                    other.display(),
                    shown(&first.databases)
                )));
            }
            Some((first, other)) if first.tool_descriptions != tool_descriptions => {
                let shown = |d: Option<ToolDescriptions>| d.unwrap_or_default().name();
                return Err(Error::Usage(format!(
                    "{} runs with the {} tool descriptions and {} with the {} ones (talkforge.toml): \
                     give each subset's files on their own, or pass --tool-descriptions",
                    file.display(),
                    shown(tool_descriptions),
                    other.display(),
                    shown(first.tool_descriptions)
                )));
            }
            Some(_) => {}
        }
    }
    Ok(found.map_or(
        Resolved {
            suite: registry.first(),
            databases: None,
            tool_descriptions: None,
        },
        |(resolved, _)| resolved,
    ))
}

/// `files` grouped by the suite that reads each (`forced`, else the
/// declared subset's, else by name), in the registry's order of suites.
pub fn by_suite(
    registry: &Registry,
    files: &[PathBuf],
    forced: Option<&'static dyn Suite>,
) -> Result<Vec<(&'static dyn Suite, Vec<PathBuf>)>> {
    if let Some(suite) = forced {
        return Ok(vec![(suite, files.to_vec())]);
    }
    let mut lookup = Lookup::new(registry);
    let mut groups: Vec<(&'static dyn Suite, Vec<PathBuf>)> = Vec::new();
    for file in files {
        let declared = lookup.declared(file)?;
        let suite = suite_of(registry, file, declared.as_ref())?;
        match groups.iter_mut().find(|(s, _)| s.name() == suite.name()) {
            Some((_, group)) => group.push(file.clone()),
            None => groups.push((suite, vec![file.clone()])),
        }
    }
    let order = |suite: &dyn Suite| {
        registry
            .suites()
            .iter()
            .position(|s| s.name() == suite.name())
    };
    groups.sort_by_key(|(suite, _)| order(*suite));
    if groups.is_empty() {
        groups.push((registry.first(), Vec::new()));
    }
    Ok(groups)
}

/// The suite of each subset of `policy`, in its order: the one it names,
/// else the one that reads the files in its folder, else the registry's
/// first.
pub fn subset_suites(
    registry: &Registry,
    root: &Path,
    policy: &Policy,
    parts: &[Part],
) -> Vec<&'static dyn Suite> {
    policy
        .subsets
        .iter()
        .map(|subset| {
            if let Some(suite) = subset.suite.as_deref().and_then(|n| registry.by_name(n)) {
                return suite;
            }
            let folder = subset.path(root);
            parts
                .iter()
                .find(|p| p.files.iter().any(|f| f.starts_with(&folder)))
                .map_or(registry.first(), |p| p.suite)
        })
        .collect()
}
