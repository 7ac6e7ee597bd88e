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
