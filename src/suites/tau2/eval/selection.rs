//! Which tasks of a tasks file are evaluated: a split named in the
//! `split_tasks.json` beside it (`{"train": [ids], "test": [...], "base":
//! [...]}`), and `--task-ids`.

use std::collections::BTreeMap;
use std::path::Path;

use crate::suite::tasks::TaskSelection;
use crate::{Error, Result};

/// The file of splits beside a tasks file.
pub const SPLITS_FILE: &str = "split_tasks.json";

/// The ids `selection` keeps among those of the tasks file at `path`
/// (None: every id).
pub fn allowed(path: &Path, selection: &TaskSelection) -> Result<Option<Vec<String>>> {
    let mut allowed: Option<Vec<String>> = None;
    if let Some(split) = &selection.split {
        let splits_path = path.parent().map_or_else(
            || Path::new(SPLITS_FILE).to_path_buf(),
            |d| d.join(SPLITS_FILE),
        );
        if !splits_path.is_file() {
            return Err(Error::input(
                &splits_path,
                format!("no such file: --split {split} reads the splits beside the tasks file"),
            ));
        }
        let text = crate::formats::read::read_text(&splits_path)?;
        let splits: BTreeMap<String, Vec<String>> = serde_json::from_str(&text)
            .map_err(|e| crate::formats::read::json_error(&splits_path, &e))?;
        let ids = splits.get(split).ok_or_else(|| {
            Error::input(
                &splits_path,
                format!(
                    "has no split {split:?} (it has {})",
                    splits.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            )
        })?;
        allowed = Some(ids.clone());
    }
    if !selection.task_ids.is_empty() {
        allowed = Some(match allowed {
            Some(ids) => ids
                .into_iter()
                .filter(|id| selection.task_ids.contains(id))
                .collect(),
            None => selection.task_ids.clone(),
        });
    }
    Ok(allowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_and_task_ids_narrow_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = dir.path().join("tasks.json");
        std::fs::write(
            dir.path().join(SPLITS_FILE),
            r#"{"train": ["1", "2"], "test": ["3"]}"#,
        )
        .unwrap();
        let pick = |split: Option<&str>, ids: &[&str]| {
            allowed(
                &tasks,
                &TaskSelection {
                    split: split.map(str::to_string),
                    task_ids: ids.iter().map(|s| s.to_string()).collect(),
                },
            )
        };
        assert_eq!(pick(None, &[]).unwrap(), None);
        assert_eq!(
            pick(Some("train"), &[]).unwrap(),
            Some(vec!["1".into(), "2".into()])
        );
        assert_eq!(
            pick(Some("train"), &["2", "3"]).unwrap(),
            Some(vec!["2".into()])
        );
        assert_eq!(pick(None, &["3"]).unwrap(), Some(vec!["3".into()]));
        let err = pick(Some("dev"), &[]).unwrap_err().to_string();
        assert!(
            err.contains("no split \"dev\" (it has test, train)"),
            "{err}"
        );
    }
}
