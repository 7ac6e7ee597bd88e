//! A report as one self-contained HTML page (nothing fetched from the
//! network): the runs, every section's tables and lists, and charts drawn
//! as inline SVG. A short inline script records script errors and checks
//! that every chart drew something; it writes the verdict into the page's
//! `data-check` attribute, which the browser test reads.

use minijinja::HtmlEscape;

use super::render::{self, Format};
use super::{Cell, Report};
use crate::Result;

/// The name ends in .html: minijinja escapes every value put in.
const HTML: Format = Format {
    name: "report.html",
    template: include_str!("templates/report.html.j2"),
    prose,
    cell,
    escape: None,
    page: true,
};

pub fn render(report: &Report) -> Result<String> {
    render::render(report, &HTML)
}

/// A cell: code in `<code>`, linked to its place on the page.
fn cell(cell: &Cell) -> String {
    let text = escape(&cell.display());
    let text = if cell.is_code() {
        format!("<code>{text}</code>")
    } else {
        text
    };
    match cell.anchor() {
        Some(anchor) => format!("<a href=\"#{}\">{text}</a>", escape(anchor)),
        None => text,
    }
}

/// Prose as HTML: escaped, its `code` spans in `<code>`.
fn prose(text: &str) -> String {
    let parts = text.split('`').enumerate().map(|(i, part)| match i % 2 {
        1 => format!("<code>{}</code>", escape(part)),
        _ => escape(part),
    });
    parts.collect()
}

/// Text escaped for HTML, as the page's template escapes it.
pub fn escape(text: &str) -> String {
    HtmlEscape(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Cell, Chart, RunHeader, Scale, Section, Series, Table};

    #[test]
    fn a_page_escapes_the_data_and_draws_the_charts() {
        let table = Table::of(
            &["Conversation", "Run 1"],
            vec![vec![
                Cell::Code("<b>x</b>.json".into()),
                Cell::Percent(None),
            ]],
        );
        let report = Report {
            title: "Runs".into(),
            runs: vec![RunHeader {
                number: 1,
                label: "openai:<model>".into(),
                dir: "runs/a".into(),
                models: None,
                dataset: Some("abc".into()),
                evaluated: 3,
                not_evaluated: 1,
                unit: "conversation".into(),
            }],
            warnings: vec!["different datasets".into()],
            sections: vec![
                Section::new("results", "Results")
                    .table(table)
                    .chart(Chart {
                        title: "Success".into(),
                        categories: vec!["easy".into()],
                        series: vec![Series {
                            name: "run 1".into(),
                            values: vec![Some(0.5)],
                            counts: vec![Some(2)],
                        }],
                        scale: Scale::Percent,
                    }),
                Section::not_applicable("state-check", "State check", "no state <here> (`--x`)"),
            ],
        };
        let page = render(&report).unwrap();
        assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
        assert!(
            page.contains("<code>&lt;b&gt;x&lt;&#x2f;b&gt;.json</code>"),
            "{page}"
        );
        assert!(page.contains("openai:&lt;model&gt;"), "{page}");
        assert!(page.contains("<svg class=\"chart\""), "{page}");
        assert!(
            page.contains("Not applicable: no state &lt;here&gt; (<code>--x</code>)"),
            "{page}"
        );
        assert!(page.contains("<td class=\"n\">-</td>"), "{page}");
        assert!(page.contains("different datasets"), "{page}");
        assert!(!page.contains("<b>x"));
    }
}
