//! Conversations are independent: verifying them in parallel gives exactly
//! the report a single thread gives, in the same order.

use std::path::Path;

use talkforge::formats::discover;
use talkforge::sim::Databases;
use talkforge::verify::verify_files;

fn report_json(threads: usize, files: &[std::path::PathBuf], databases: &Databases) -> String {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let report = pool.install(|| verify_files(files, databases));
    serde_json::to_string(&report).unwrap()
}

#[test]
fn parallel_verify_equals_serial_verify() {
    let up = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/upstream/tooltalk");
    let (dirs, databases) = if up.is_dir() {
        (
            vec![up.join("easy"), up.join("tooltalk")],
            up.join("databases"),
        )
    } else {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        (vec![root.join("conversations")], root.join("databases"))
    };
    let files = discover(&dirs, &["json"]).unwrap();
    let databases = Databases::load(&databases).unwrap();
    let serial = report_json(1, &files, &databases);
    assert!(serial.contains("\"differs\":["));
    for threads in [2, 8] {
        assert_eq!(
            report_json(threads, &files, &databases),
            serial,
            "{threads} threads"
        );
    }
}
