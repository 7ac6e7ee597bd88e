//! Every upstream ToolTalk gold call gets the reference's verdict: the
//! simulator reproduces the recordings the Python simulators reproduce and
//! differs exactly where the recordings were edited by hand
//! (../shared/upstream/tooltalk/gold-replay.tsv).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use talkforge::formats::discover;
use talkforge::suite::Suite;
use talkforge::suites::tooltalk::ToolTalk;
use talkforge::verify::verify_files;

/// (file name, turn, call) -> (api name, reproduces?)
type Verdicts = BTreeMap<(String, usize, usize), (String, bool)>;

fn reference_table(dir: &Path) -> Verdicts {
    let text = std::fs::read_to_string(dir.join("gold-replay.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let file = Path::new(cols[0]).file_name().unwrap().to_string_lossy();
            let key = (
                file.into_owned(),
                cols[1].parse().unwrap(),
                cols[2].parse().unwrap(),
            );
            (key, (cols[3].to_string(), cols[4] == "reproduces"))
        })
        .collect()
}

#[test]
fn every_upstream_gold_call_gets_the_reference_verdict() {
    let Some(dir) = talkforge::test_support::upstream("tooltalk") else {
        return;
    };
    let want = reference_table(&dir);
    let databases = ToolTalk.load_databases(&dir.join("databases")).unwrap();
    let files = discover(&[dir.join("easy"), dir.join("tooltalk")], &["json"]).unwrap();
    let report = verify_files(&files, &ToolTalk, &databases, &Default::default());
    assert_eq!(report.conversations, 78);
    assert_eq!(report.calls, want.len());

    let got_differs: BTreeSet<(String, usize, usize)> = report
        .differs
        .iter()
        .map(|d| {
            let file = Path::new(&d.file).file_name().unwrap().to_string_lossy();
            (file.into_owned(), d.turn, d.call)
        })
        .collect();
    let disagreements: Vec<String> = want
        .iter()
        .filter(|(key, (_, reproduces))| *reproduces == got_differs.contains(*key))
        .map(|((file, turn, call), (api, reproduces))| {
            let verdict = if *reproduces { "reproduces" } else { "differs" };
            format!("{file} turn {turn} call {call} {api}: reference {verdict}")
        })
        .collect();
    assert!(
        disagreements.is_empty(),
        "{} verdicts disagree:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    assert!(got_differs.iter().all(|k| want.contains_key(k)));
}

/// errata/tooltalk-upstream.json records exactly the reference's
/// non-reproducing golds, one entry each, and with it verify passes.
#[test]
fn the_shipped_errata_name_exactly_the_golds_that_do_not_reproduce() {
    let Some(dir) = talkforge::test_support::upstream("tooltalk") else {
        eprintln!("skipped: ../shared/upstream/tooltalk is absent");
        return;
    };
    let want: BTreeSet<(String, usize, usize)> = reference_table(&dir)
        .into_iter()
        .filter(|(_, (_, reproduces))| !reproduces)
        .map(|(key, _)| key)
        .collect();
    let errata_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("errata/tooltalk-upstream.json");
    let text = std::fs::read_to_string(&errata_path).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let entries = doc["errata"].as_array().unwrap();
    let named: BTreeSet<(String, usize, usize)> = entries
        .iter()
        .map(|e| {
            let file = Path::new(e["file"].as_str().unwrap()).file_name().unwrap();
            (
                file.to_string_lossy().into_owned(),
                e["turn"].as_u64().unwrap() as usize,
                e["call"].as_u64().unwrap() as usize,
            )
        })
        .collect();
    assert_eq!(entries.len(), 37);
    assert_eq!(named, want);
    assert!(entries
        .iter()
        .all(|e| e["reason"].as_str().unwrap().len() > 40));

    let errata = talkforge::errata::Errata::load(&[errata_path]).unwrap();
    let databases = ToolTalk.load_databases(&dir.join("databases")).unwrap();
    let files = discover(&[dir.join("easy"), dir.join("tooltalk")], &["json"]).unwrap();
    let report = talkforge::verify::verify_files_with_errata(
        &files,
        &ToolTalk,
        &databases,
        &Default::default(),
        &errata,
    );
    assert_eq!(report.differs.len(), 37);
    assert_eq!(report.known, 37);
    assert!(report.stale_errata.is_empty(), "{:?}", report.stale_errata);
    assert!(!report.fails());
    let mut matched = report.matched_errata.clone();
    matched.sort_unstable();
    assert_eq!(matched, (0..37).collect::<Vec<_>>());
}
