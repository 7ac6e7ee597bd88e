//! Conversations are independent: verifying them in parallel gives exactly
//! the report a single thread gives, in the same order.

use talkforge::formats::discover;
use talkforge::sim::Databases;
use talkforge::suite::Suite;
use talkforge::suites::tooltalk::ToolTalk;
use talkforge::verify::verify_files;

fn report_json(threads: usize, files: &[std::path::PathBuf], databases: &Databases) -> String {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let report = pool.install(|| verify_files(files, &ToolTalk, databases, &Default::default()));
    serde_json::to_string(&report).unwrap()
}

#[test]
fn parallel_verify_equals_serial_verify() {
    let Some(up) = talkforge::test_support::upstream("tooltalk") else {
        return;
    };
    let files = discover(&[up.join("easy"), up.join("tooltalk")], &["json"]).unwrap();
    let databases = ToolTalk.load_databases(&up.join("databases")).unwrap();
    let serial = report_json(1, &files, &databases);
    assert!(serial.contains("\"differs\":[{"));
    for threads in [2, 8] {
        assert_eq!(
            report_json(threads, &files, &databases),
            serial,
            "{threads} threads"
        );
    }
}
