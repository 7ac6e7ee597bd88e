//! The run folder (`evaluate --out`): one output file per input file under
//! the kind's folder, mirroring the dataset's folders below the deepest one
//! that holds them all; `trial-T/` folders for a run of several trials;
//! `summary.json` and `report.md` beside them.

use std::path::{Component, Path, PathBuf};

use crate::formats::atomic_write;
use crate::{Error, Result};

/// The folder of trial `trial` of a run in `out` (the run folder itself
/// for a run of one trial, `trial` None).
pub fn trial_dir(out: &Path, trial: Option<usize>) -> PathBuf {
    match trial {
        Some(t) => out.join(format!("trial-{t}")),
        None => out.to_path_buf(),
    }
}

/// Where the output file of the input at `rel` goes: below `folder`, with
/// `.json` added unless the name has it already.
pub fn output_path(out: &Path, folder: &str, rel: &str) -> PathBuf {
    let name = if rel.ends_with(".json") {
        rel.to_string()
    } else {
        format!("{rel}.json")
    };
    out.join(folder).join(name)
}

/// `summary.json` (the text given) and `report.md` in `dir`.
pub fn write_summary(dir: &Path, summary: &str, report: &str) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::input(dir, format!("cannot create the folder: {e}")))?;
    atomic_write(&dir.join("summary.json"), summary.as_bytes())?;
    atomic_write(&dir.join("report.md"), report.as_bytes())
}

/// The deepest folder holding every file.
pub fn common_dir(files: &[PathBuf]) -> PathBuf {
    let mut common: Option<Vec<Component<'_>>> = None;
    for file in files {
        let parent: Vec<Component<'_>> = file
            .parent()
            .map(|p| p.components().collect())
            .unwrap_or_default();
        common = Some(match common {
            None => parent,
            Some(c) => c
                .into_iter()
                .zip(parent)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    common.unwrap_or_default().into_iter().collect()
}

/// `path` below `base`, for mirroring the dataset's folders in the run
/// folder.
pub fn relative(path: &Path, base: &Path) -> PathBuf {
    match path.strip_prefix(base) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
        _ => PathBuf::from(path.file_name().unwrap_or(path.as_os_str())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_mirror_the_folders_below_the_common_one() {
        let files = vec![
            PathBuf::from("data/easy/a.json"),
            PathBuf::from("data/hard/b.jsonl"),
        ];
        let base = common_dir(&files);
        assert_eq!(base, PathBuf::from("data"));
        let rel = relative(&files[0], &base);
        assert_eq!(rel, PathBuf::from("easy/a.json"));
        let out = Path::new("out");
        assert_eq!(
            output_path(out, "conversations", "easy/a.json"),
            PathBuf::from("out/conversations/easy/a.json")
        );
        assert_eq!(
            output_path(out, "samples", "hard/b.jsonl"),
            PathBuf::from("out/samples/hard/b.jsonl.json")
        );
        let one = vec![PathBuf::from("data/easy/a.json")];
        assert_eq!(
            relative(&one[0], &common_dir(&one)),
            PathBuf::from("a.json")
        );
    }
}
