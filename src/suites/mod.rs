//! The benchmark families, one folder each, every one behind the seam in
//! `suite/`, and the registry the command line runs with: a family is one
//! line here.

use crate::suite::Registry;

pub mod apibank;
pub mod tau2;
pub mod tooltalk;

/// Every family, in the order `--suite` lists them.
pub fn registry() -> Registry {
    Registry::new(vec![&tooltalk::ToolTalk, &apibank::ApiBank, &tau2::Tau2])
}

#[cfg(test)]
mod report_sections {
    use crate::report::runs::{report, Kind, Run};
    use crate::report::{Block, Report};

    /// The sections every kind shares.
    const SHARED: [&str; 4] = ["pass-hat", "state-check", "failures", "not-evaluated"];

    /// Each kind's report over two runs, as `report` builds it.
    fn reports() -> Vec<(&'static str, Report)> {
        fn of<K: Kind>(runs: &[Run<K>]) -> (&'static str, Report) {
            (K::NAME, report(runs))
        }
        let conversation = |dir: &str, model: &str| {
            let summary = crate::eval::report::tests::sample_summary(model);
            crate::eval::runs::Run::new(std::path::Path::new(dir), summary)
        };
        use crate::run::with_user::runs::tests::run as scenarios;
        use crate::suites::apibank::eval::level_runs::tests::run as level;
        vec![
            of(&[conversation("a", "x"), conversation("b", "y")]),
            of(&[level("a", "oracle", false), level("b", "replay", true)]),
            of(&[
                scenarios("a", "llm:a", Some(4)),
                scenarios("b", "llm:b", None),
            ]),
        ]
    }

    /// Every kind's shared sections appear in Markdown, HTML and JSON
    /// with the same ids and titles; one that does not apply says "Not
    /// applicable" in every format, with the same reason in JSON.
    #[test]
    fn every_kind_has_the_shared_sections_in_every_format() {
        for (kind, report) in reports() {
            let md = report.markdown().unwrap();
            let html = report.html().unwrap();
            let json = report.json();
            let json_sections = json["sections"].as_array().unwrap();
            for id in SHARED {
                let section = report.sections.iter().find(|s| s.id == id);
                let section = section.unwrap_or_else(|| panic!("{kind}: no {id}"));
                let in_json = json_sections.iter().find(|s| s["id"] == id);
                let in_json = in_json.unwrap_or_else(|| panic!("{kind}: no {id} in JSON"));
                assert_eq!(in_json["title"], section.title.as_str(), "{kind} {id}");
                let md_part = part(&md, &format!("## {}\n", section.title), "\n## ");
                let html_part = part(&html, &format!("<section id=\"{id}\">"), "</section>");
                let not_applicable = section.blocks.iter().find_map(|b| match b {
                    Block::NotApplicable { why } => Some(why),
                    _ => None,
                });
                match not_applicable {
                    Some(why) => {
                        assert!(
                            md_part.contains("Not applicable: "),
                            "{kind} {id}: {md_part}"
                        );
                        assert!(html_part.contains("Not applicable: "), "{kind} {id}");
                        let blocks = in_json["blocks"].as_array().unwrap();
                        assert_eq!(blocks[0]["type"], "not_applicable", "{kind} {id}");
                        assert_eq!(blocks[0]["why"], why.as_str(), "{kind} {id}");
                    }
                    None => {
                        assert!(!md_part.contains("Not applicable"), "{kind} {id}");
                        assert!(!html_part.contains("Not applicable"), "{kind} {id}");
                    }
                }
            }
        }
    }

    /// The part of `text` from `start` to the next `end` (all of what
    /// follows when there is none); fails when `start` is absent.
    fn part<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
        let from = text
            .find(start)
            .unwrap_or_else(|| panic!("{start:?} missing from:\n{text}"))
            + start.len();
        let rest = &text[from..];
        &rest[..rest.find(end).unwrap_or(rest.len())]
    }
}
