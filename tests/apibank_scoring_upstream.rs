//! The reference scoring gives api-bank's own verdict on every imperfect
//! model output of ../shared/upstream/apibank/perturbed/cases.jsonl
//! (2,616 level-1 outputs, each scored by the reference's `evaluator.py`),
//! as `../shared/checks/apibank-scoring` compares; and wherever the
//! lenient scoring judges otherwise, the sample says which correction made
//! the difference.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use assert_cmd::Command;
use serde_json::{json, Value};

/// One case: the dialogue's file name, the gold API line, the model's text
/// and the reference's verdict.
struct Case {
    file: String,
    line: u64,
    sample_id: u64,
    kind: String,
    output: String,
    reference_correct: bool,
    reason: String,
}

fn cases(dir: &Path) -> Vec<Case> {
    let text = fs::read_to_string(dir.join("cases.jsonl")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let c: Value = serde_json::from_str(line).unwrap();
            let file = Path::new(c["file"].as_str().unwrap())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            Case {
                file,
                line: c["gold_line_index"].as_u64().unwrap(),
                sample_id: c["sample_id"].as_u64().unwrap(),
                kind: c["perturbation"].as_str().unwrap().to_string(),
                output: c["model_output"].as_str().unwrap().to_string(),
                reference_correct: c["reference_correct"].as_bool().unwrap(),
                reason: c["reason"].as_str().unwrap().to_string(),
            }
        })
        .collect()
}

#[test]
fn the_reference_scoring_agrees_with_the_reference_on_every_imperfect_output() {
    let Some(perturbed) = talkforge::test_support::upstream("apibank/perturbed") else {
        return;
    };
    let upstream = perturbed.parent().unwrap();
    let cases = cases(&perturbed);
    assert!(!cases.is_empty(), "no case in {}", perturbed.display());
    // A gold line is the target of one or two samples; the cases' sample
    // ids order them as `occurrence` does.
    let mut ids: BTreeMap<(&str, u64), BTreeSet<u64>> = BTreeMap::new();
    for c in &cases {
        ids.entry((&c.file, c.line))
            .or_default()
            .insert(c.sample_id);
    }
    let occurrence = |c: &Case| {
        ids[&(c.file.as_str(), c.line)]
            .iter()
            .position(|id| *id == c.sample_id)
            .unwrap()
    };
    let mut by_kind: BTreeMap<&str, Vec<&Case>> = BTreeMap::new();
    for c in &cases {
        by_kind.entry(&c.kind).or_default().push(c);
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut disagreements = Vec::new();
    let mut compared = 0;
    for (kind, kind_cases) in by_kind {
        let predictions = tmp.path().join(format!("{kind}.jsonl"));
        let lines: String = kind_cases
            .iter()
            .map(|c| {
                json!({"file": c.file, "turn": c.line, "occurrence": occurrence(c), "output": c.output})
                    .to_string()
                    + "\n"
            })
            .collect();
        fs::write(&predictions, lines).unwrap();
        let out = Command::cargo_bin("talkforge")
            .unwrap()
            .arg("evaluate")
            .arg(upstream.join("lv1-lv2-samples/level-1-given-desc"))
            .arg("--databases")
            .arg(upstream.join("init_database"))
            .args(["--level", "1", "--predictor", "replay", "--format", "json"])
            .arg("--predictions")
            .arg(&predictions)
            .output()
            .unwrap();
        let summary: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{kind}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(summary["scoring"], "reference");
        let samples: BTreeMap<(String, u64, u64), &Value> = summary["per_sample"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let key = (
                    s["file"].as_str().unwrap().to_string(),
                    s["turn"].as_u64().unwrap(),
                    s["occurrence"].as_u64().unwrap(),
                );
                (key, s)
            })
            .collect();
        for c in kind_cases {
            let key = (c.file.clone(), c.line, occurrence(c) as u64);
            let sample = samples
                .get(&key)
                .unwrap_or_else(|| panic!("{kind}: no sample {key:?}"));
            compared += 1;
            assert_eq!(sample["correct"], sample["correct_reference"]);
            if sample["correct"] != c.reference_correct {
                disagreements.push(format!(
                    "{kind} {} line {}: {:?}: reference {} ({}), talkforge {} ({})",
                    c.file,
                    c.line,
                    c.output,
                    c.reference_correct,
                    c.reason,
                    sample["correct"],
                    sample["reason"]
                ));
            }
            // Where the scorings part, the sample says why.
            let differ = sample["correct_reference"] != sample["correct_lenient"];
            let named = &sample["scoring_difference"]["corrections"];
            assert_eq!(
                differ,
                named.as_array().is_some_and(|n| !n.is_empty()),
                "{kind} {key:?}: {sample}"
            );
        }
    }
    assert_eq!(compared, cases.len());
    assert!(
        disagreements.is_empty(),
        "{} of {} verdicts disagree with the reference:\n{}",
        disagreements.len(),
        cases.len(),
        disagreements.join("\n")
    );
}
