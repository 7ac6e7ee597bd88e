//! Text from the data (file and scenario names, model names, failure
//! reasons) put into Markdown reports so that it reads as text: raw HTML
//! in it is escaped as the HTML report escapes it, a `|` does not split a
//! table cell, a line break does not end a table row, and a code span
//! cannot be closed early by a backtick in the text.

/// `text` as Markdown text: `&`, `<` and `>` as entities, `|` escaped,
/// line breaks as spaces.
pub fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("\\|"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// `text` as a Markdown code span (shown as written: HTML in a code span
/// is not rendered), fenced with more backticks than any run of them in
/// the text; `|` escaped and line breaks as spaces, for table cells.
pub fn code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let inner = text.replace('|', "\\|").replace(['\n', '\r'], " ");
    // A span starting or ending with a backtick needs a space inside the
    // fence, which CommonMark strips.
    let pad = if inner.starts_with('`') || inner.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{inner}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_stays_text_and_cells_stay_whole() {
        assert_eq!(
            text("<img src=x onerror=alert(1)> & a|b\nc"),
            "&lt;img src=x onerror=alert(1)&gt; &amp; a\\|b c"
        );
        assert_eq!(code("plain.json"), "`plain.json`");
        assert_eq!(code("a`<b>`c"), "``a`<b>`c``");
        assert_eq!(code("`x``"), "``` `x`` ```");
        assert_eq!(code("a|b"), "`a\\|b`");
    }
}
