//! The API-Bank paper's text form of an API call,
//! `[ApiName(key='value', ...)]` (also how talkforge asks models to write
//! calls in drafts, for every suite):
//! reading one out of what a model wrote, and writing one.
//!
//! Reading takes what models write in practice: text before and after the
//! call (`API-Request: [...]`, a code fence, an explanation), quotes of
//! either kind with backslash escapes, a quote of the other kind inside a
//! value, unquoted lists, dicts, numbers and constants, spaces and line
//! breaks anywhere between the parts, and a call without its square
//! brackets when the text holds no bracketed one. Values come out as the
//! dialogues' `param_dict` holds them: text, a quoted value without its
//! quotes, anything else as written (`['a', 'b']`, `3`, `True`); the world
//! converts them to the API's types as the reference's `ToolManager` does.
//!
//! Where this differs from the reference's regular expressions
//! (`api_call_extraction.py`): they stop a quoted value at the first quote
//! of either kind (`text="I'm here"` reads `I`), read only a call on one
//! line, let the greedy match run to the last `)]` of the line, and drop
//! arguments they cannot read without a word. Here a value ends at its own
//! closing quote, and an argument that cannot be read, a positional
//! argument or a name given twice is a parse failure with its reason. On
//! the calls the upstream dialogues record the two read the same
//! arguments (tested).

use std::fmt;
use std::ops::Range;

use serde_json::{Map, Value};

/// A call read from a model's text.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiRequest {
    pub api_name: String,
    /// The arguments in the order written, every value a JSON string as
    /// `param_dict` holds it.
    pub param_dict: Map<String, Value>,
    /// Where the call stands in the text (brackets included when written).
    pub span: Range<usize>,
}

/// Why no call could be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseFailure {
    /// The text holds nothing shaped like `Name(...)`.
    NoCall,
    /// A call starts but its parentheses, brackets or quotes never close.
    Unclosed { api_name: String },
    /// An argument that is not `name=value`.
    BadArgument { api_name: String, reason: String },
}

impl fmt::Display for ParseFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseFailure::NoCall => {
                write!(f, "no API call of the form [ApiName(key='value', ...)]")
            }
            ParseFailure::Unclosed { api_name } => {
                write!(f, "the call to {api_name} is never closed")
            }
            ParseFailure::BadArgument { api_name, reason } => {
                write!(
                    f,
                    "the call to {api_name} has an unreadable argument: {reason}"
                )
            }
        }
    }
}

impl std::error::Error for ParseFailure {}

/// The first API call in `text`: a bracketed one when there is one,
/// otherwise the first `Name(...)` whose name starts with a capital letter
/// (API names do; a word before a parenthesis in prose rarely does).
///
/// What each place where a call may start reads is found in one pass over
/// the text, however many such places there are (see [`Calls`]): reading
/// each of them to its end in turn costs the square of the text's length
/// when they run into each other, as repeated unclosed calls do.
pub fn parse_api_request(text: &str) -> Result<ApiRequest, ParseFailure> {
    let Some(ends) = Ends::of(text) else {
        return Err(ParseFailure::NoCall);
    };
    for bracketed in [true, false] {
        let starts = candidates(text, bracketed);
        let outcomes = Calls::new(text, &ends, bracketed).outcomes(&starts);
        let first_read = outcomes.iter().position(|o| *o == Outcome::Call);
        let first_failed = outcomes.iter().position(|o| *o == Outcome::Failure);
        // The first call read wins; otherwise the first failure says why.
        if let Some(at) = first_read.or(first_failed) {
            match read_call(text, &ends, starts[at], bracketed) {
                Some(Ok(request)) => return Ok(request),
                Some(Err(failure)) => return Err(failure),
                None => debug_assert!(false, "a call was found at {}", starts[at]),
            }
        }
    }
    Err(ParseFailure::NoCall)
}

/// The call in the paper's form, `[Name(key='value', ...)]`: a value that
/// is a list or dict literal is written bare, as models write it, any
/// other in single quotes (escaped where needed). Reading the text back
/// gives the same `param_dict`.
pub fn render_api_request(api_name: &str, param_dict: &Map<String, Value>) -> String {
    let arguments: Vec<String> = param_dict
        .iter()
        .map(|(key, value)| {
            let text = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if is_bare_literal(&text) {
                format!("{key}={text}")
            } else {
                format!("{key}={}", quoted(&text))
            }
        })
        .collect();
    format!("[{api_name}({})]", arguments.join(", "))
}

/// Byte offsets where a call may start: at a `[` (bracketed) or at the
/// first letter of a capitalised word followed by `(`.
fn candidates(text: &str, bracketed: bool) -> Vec<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len())
        .filter(|&i| {
            if bracketed {
                bytes[i] == b'['
            } else {
                bytes[i].is_ascii_uppercase() && (i == 0 || !is_word_byte(bytes[i - 1])) && {
                    let end = word_end(bytes, i);
                    bytes[end..]
                        .iter()
                        .find(|b| !b.is_ascii_whitespace())
                        .is_some_and(|&b| b == b'(')
                }
            }
        })
        .collect()
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn word_end(bytes: &[u8], start: usize) -> usize {
    start
        + bytes[start..]
            .iter()
            .take_while(|&&b| is_word_byte(b))
            .count()
}

/// The call starting at `start`, None when nothing call-shaped starts
/// there.
fn read_call(
    text: &str,
    ends: &Ends,
    start: usize,
    bracketed: bool,
) -> Option<Result<ApiRequest, ParseFailure>> {
    let mut scanner = Scanner {
        text,
        ends,
        pos: start,
    };
    let api_name = scanner.call_name(bracketed)?.to_string();
    let param_dict = match scanner.arguments(&api_name) {
        Ok(arguments) => arguments,
        Err(failure) => return Some(Err(failure)),
    };
    let mut end = scanner.pos;
    if bracketed {
        scanner.skip_ws();
        if !scanner.eat(']') {
            // `[Name(...)` with something else after: not the paper's form,
            // the bracketless pass may still read it.
            return None;
        }
        end = scanner.pos;
    }
    Some(Ok(ApiRequest {
        api_name,
        param_dict,
        span: start..end,
    }))
}

struct Scanner<'t> {
    text: &'t str,
    ends: &'t Ends,
    pos: usize,
}

impl<'t> Scanner<'t> {
    /// `[Name(` (bracketed) or `Name(` at `pos`: the name, the scanner
    /// after the parenthesis.
    fn call_name(&mut self, bracketed: bool) -> Option<&'t str> {
        if bracketed {
            self.pos += 1;
            self.skip_ws();
        }
        let api_name = self.word()?;
        if !api_name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return None;
        }
        self.skip_ws();
        self.eat('(').then_some(api_name)
    }

    fn rest(&self) -> &'t str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
        tick(rest.len() - rest.trim_start().len());
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn word(&mut self) -> Option<&'t str> {
        let end = word_end(self.text.as_bytes(), self.pos);
        (end > self.pos).then(|| {
            let word = &self.text[self.pos..end];
            self.pos = end;
            word
        })
    }

    /// `key=value, ...)` up to and including the closing parenthesis.
    fn arguments(&mut self, api_name: &str) -> Result<Map<String, Value>, ParseFailure> {
        let bad = |reason: String| ParseFailure::BadArgument {
            api_name: api_name.to_string(),
            reason,
        };
        let unclosed = || ParseFailure::Unclosed {
            api_name: api_name.to_string(),
        };
        let mut arguments = Map::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Err(unclosed()),
                Some(')') => {
                    self.pos += 1;
                    return Ok(arguments);
                }
                _ => {}
            }
            let position = arguments.len() + 1;
            let Some(key) = self.word() else {
                return Err(bad(format!("argument {position} has no name")));
            };
            self.skip_ws();
            if !(self.eat('=') || self.eat(':')) {
                return Err(bad(format!("argument {position} ({key}) has no value")));
            }
            self.skip_ws();
            let value = match self.peek() {
                Some(',' | ')') => return Err(bad(format!("argument {key} has no value"))),
                _ => self.value().ok_or_else(unclosed)?,
            };
            if arguments
                .insert(key.to_string(), Value::String(value))
                .is_some()
            {
                return Err(bad(format!("argument {key} is given twice")));
            }
            self.skip_ws();
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(')') => {}
                None => return Err(unclosed()),
                Some(other) => {
                    return Err(bad(format!("unexpected {other:?} after argument {key}")));
                }
            }
        }
    }

    /// One value, None when a quote or bracket never closes.
    fn value(&mut self) -> Option<String> {
        let (start, end) = self.value_span()?;
        Some(match self.text[start..].chars().next() {
            Some(quote @ ('\'' | '"')) => unescape(&self.text[start + 1..end - 1], quote),
            _ => self.text[start..end].trim_end().to_string(),
        })
    }

    /// Where the value at `pos` stands (a quoted one with its quotes), the
    /// scanner moved past it; None when a quote or bracket never closes.
    ///
    /// A quoted value ends at its own closing quote. A bare one is a
    /// literal (list, dict, number, constant) up to the comma or
    /// parenthesis that ends it outside any brackets or quotes.
    fn value_span(&mut self) -> Option<(usize, usize)> {
        let start = self.pos;
        let end = match self.peek()? {
            quote @ ('\'' | '"') => self.ends.quote_close(quote, start + 1)? + 1,
            _ => self.ends.bare_value_end(start)?,
        };
        self.pos = end;
        Some((start, end))
    }
}

/// A quoted value's text with its escapes resolved: `\n`, `\t`, and a
/// backslash before a backslash or a quote stand for that character; any
/// other backslash is kept.
fn unescape(body: &str, quote: char) -> String {
    let mut value = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        tick(1);
        if c != '\\' {
            value.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => value.push('\n'),
            Some('t') => value.push('\t'),
            Some(escaped @ ('\\' | '\'' | '"')) => value.push(escaped),
            Some(other) => {
                value.push('\\');
                value.push(other);
            }
            // The closing quote ends a body, never an escape.
            None => debug_assert!(false, "a body ending in a lone backslash before {quote}"),
        }
    }
    value
}

/// Where scans starting at each byte offset of a text end, filled from the
/// end of the text backwards so that each offset is worked out once: a
/// scan that starts where another one passed ends where that one did.
struct Ends {
    /// Per quote kind (`'` then `"`): the closing quote of a quoted body
    /// starting at each offset (the body after its opening quote).
    quote: [Vec<u32>; 2],
    /// The bracket (`]`, `}` or `)`) that closes a group whose inside
    /// starts at each offset: brackets of any kind nest, quotes are
    /// skipped.
    group: Vec<u32>,
    /// Where a bare value starting at each offset stops: the `,` or `)`
    /// outside brackets and quotes, or the end of the text (a `]` or `}`
    /// that closes nothing is part of the value).
    bare: Vec<u32>,
}

/// A scan that runs off the end of the text with a quote or bracket open.
const UNCLOSED: u32 = u32::MAX;

impl Ends {
    /// None for a text too long for 32-bit offsets.
    fn of(text: &str) -> Option<Ends> {
        let len = u32::try_from(text.len()).ok().filter(|&n| n < UNCLOSED)?;
        let size = text.len() + 1;
        let mut ends = Ends {
            quote: [vec![UNCLOSED; size], vec![UNCLOSED; size]],
            group: vec![UNCLOSED; size],
            bare: vec![UNCLOSED; size],
        };
        ends.bare[text.len()] = len;
        // The length of the character after the current one.
        let mut next_len = 0;
        for (at, c) in text.char_indices().rev() {
            tick(1);
            let next = at + c.len_utf8();
            for (kind, quote) in ['\'', '"'].into_iter().enumerate() {
                let close = &mut ends.quote[kind];
                close[at] = match c {
                    _ if c == quote => at as u32,
                    // An escape takes the character after it, if any.
                    '\\' if next < text.len() => close[next + next_len],
                    '\\' => UNCLOSED,
                    _ => close[next],
                };
            }
            // What comes after a quoted or bracketed part starting here.
            let after_part = |ends: &Ends| -> Option<usize> {
                let close = match c {
                    '\'' => ends.quote[0][next],
                    '"' => ends.quote[1][next],
                    '[' | '{' | '(' => ends.group[next],
                    _ => return Some(next),
                };
                (close != UNCLOSED).then(|| close as usize + 1)
            };
            let after = after_part(&ends);
            ends.group[at] = match c {
                ']' | '}' | ')' => at as u32,
                _ => after.map_or(UNCLOSED, |after| ends.group[after]),
            };
            ends.bare[at] = match c {
                ',' | ')' => at as u32,
                _ => after.map_or(UNCLOSED, |after| ends.bare[after]),
            };
            next_len = c.len_utf8();
        }
        Some(ends)
    }

    fn quote_close(&self, quote: char, body: usize) -> Option<usize> {
        let kind = usize::from(quote == '"');
        Some(self.quote[kind][body])
            .filter(|&e| e != UNCLOSED)
            .map(|e| e as usize)
    }

    fn bare_value_end(&self, start: usize) -> Option<usize> {
        Some(self.bare[start])
            .filter(|&e| e != UNCLOSED)
            .map(|e| e as usize)
    }
}

/// What reading a call at one candidate place gives, as [`read_call`]
/// would: nothing call-shaped, a call, or a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Nothing,
    Call,
    Failure,
}

/// The argument lists of the candidate calls in a text, read once.
///
/// An argument list is a chain of links, each read from its offset alone:
/// an argument (its name, its value, where the next link starts), or its
/// end (a closing parenthesis, or something that cannot be read). Two
/// candidates whose chains reach the same offset share the rest of it, so
/// each link is read once, and what a candidate reads follows from its
/// chain: it fails when the chain ends in a failure or names an argument
/// twice, it reads a call when the chain is closed (and, bracketed, a `]`
/// follows), and otherwise reads nothing.
struct Calls<'t> {
    text: &'t str,
    ends: &'t Ends,
    bracketed: bool,
    /// The link read at each offset (an index into `links`), once read.
    at: Vec<u32>,
    links: Vec<Link>,
}

#[derive(Debug, Clone, Copy)]
enum Link {
    /// `name=value` (its name's span), then the link at `next`.
    Argument { name: (usize, usize), next: usize },
    /// The closing parenthesis; `closed`: what follows it completes the
    /// call (a `]` when bracketed).
    End { closed: bool },
    /// Something that stops the list being read.
    Unreadable,
}

const UNREAD: u32 = u32::MAX;

impl<'t> Calls<'t> {
    fn new(text: &'t str, ends: &'t Ends, bracketed: bool) -> Self {
        Calls {
            text,
            ends,
            bracketed,
            at: Vec::new(),
            links: Vec::new(),
        }
    }

    /// What reading at each of `starts` gives.
    fn outcomes(mut self, starts: &[usize]) -> Vec<Outcome> {
        if starts.is_empty() {
            return Vec::new();
        }
        self.at = vec![UNREAD; self.text.len() + 1];
        let lists: Vec<Option<u32>> = starts
            .iter()
            .map(|&start| {
                let mut scanner = self.scanner(start);
                scanner.call_name(self.bracketed)?;
                Some(self.read_chain(scanner.pos))
            })
            .collect();
        let (closed, repeats) = self.chain_facts();
        lists
            .into_iter()
            .map(|list| match list {
                None => Outcome::Nothing,
                Some(link) if repeats[link as usize] => Outcome::Failure,
                Some(link) => match closed[link as usize] {
                    Some(true) => Outcome::Call,
                    Some(false) => Outcome::Nothing,
                    None => Outcome::Failure,
                },
            })
            .collect()
    }

    fn scanner(&self, pos: usize) -> Scanner<'t> {
        Scanner {
            text: self.text,
            ends: self.ends,
            pos,
        }
    }

    /// Read the links from `offset` up to one already read or the end of
    /// the list; the first link's index.
    fn read_chain(&mut self, offset: usize) -> u32 {
        let mut offset = offset;
        let mut first = None;
        loop {
            if self.at[offset] != UNREAD {
                return first.unwrap_or(self.at[offset]);
            }
            let link = self.read_link(offset);
            let index = self.links.len() as u32;
            self.links.push(link);
            self.at[offset] = index;
            first.get_or_insert(index);
            match link {
                Link::Argument { next, .. } => offset = next,
                _ => return first.unwrap_or(index),
            }
        }
    }

    /// One link, as [`Scanner::arguments`] reads it.
    fn read_link(&self, offset: usize) -> Link {
        let mut scanner = self.scanner(offset);
        scanner.skip_ws();
        match scanner.peek() {
            None => return Link::Unreadable,
            Some(')') => {
                scanner.pos += 1;
                let closed = !self.bracketed || {
                    scanner.skip_ws();
                    scanner.eat(']')
                };
                return Link::End { closed };
            }
            _ => {}
        }
        let name_start = scanner.pos;
        if scanner.word().is_none() {
            return Link::Unreadable;
        }
        let name = (name_start, scanner.pos);
        scanner.skip_ws();
        if !(scanner.eat('=') || scanner.eat(':')) {
            return Link::Unreadable;
        }
        scanner.skip_ws();
        if matches!(scanner.peek(), None | Some(',' | ')')) || scanner.value_span().is_none() {
            return Link::Unreadable;
        }
        scanner.skip_ws();
        match scanner.peek() {
            Some(',') => Link::Argument {
                name,
                next: scanner.pos + 1,
            },
            Some(')') => Link::Argument {
                name,
                next: scanner.pos,
            },
            _ => Link::Unreadable,
        }
    }

    /// Per link: how the chain from it ends (`Some(closed)` at a closing
    /// parenthesis, None when unreadable), and whether it names an argument
    /// twice.
    ///
    /// Links form trees whose roots are the ends (an argument's parent is
    /// its next link); a walk down from each root keeps count of the names
    /// on the way back up to it.
    fn chain_facts(&self) -> (Vec<Option<bool>>, Vec<bool>) {
        let n = self.links.len();
        let parent = |link: &Link| match *link {
            Link::Argument { next, .. } => Some(self.at[next] as usize),
            _ => None,
        };
        // Children of each link, grouped by parent (counting sort).
        let mut first_child = vec![0usize; n + 1];
        for link in &self.links {
            if let Some(p) = parent(link) {
                first_child[p + 1] += 1;
            }
        }
        for i in 0..n {
            first_child[i + 1] += first_child[i];
        }
        let mut children = vec![0usize; first_child[n]];
        let mut filled = first_child.clone();
        for (i, link) in self.links.iter().enumerate() {
            if let Some(p) = parent(link) {
                children[filled[p]] = i;
                filled[p] += 1;
            }
        }
        let mut closed = vec![None; n];
        let mut repeats = vec![false; n];
        let mut names: rustc_hash::FxHashMap<&str, usize> = Default::default();
        let name_of = |i: usize| match self.links[i] {
            Link::Argument { name, .. } => Some(&self.text[name.0..name.1]),
            _ => None,
        };
        // (link, entered): on entering, take the parent's facts and count
        // the name; on leaving, uncount it.
        let mut stack = Vec::new();
        for root in (0..n).filter(|&i| parent(&self.links[i]).is_none()) {
            closed[root] = match self.links[root] {
                Link::End { closed } => Some(closed),
                _ => None,
            };
            stack.extend(
                children[first_child[root]..first_child[root + 1]]
                    .iter()
                    .map(|&c| (c, false)),
            );
            while let Some((i, entered)) = stack.pop() {
                let name = name_of(i).unwrap_or_default();
                if entered {
                    if let Some(count) = names.get_mut(name) {
                        *count -= 1;
                    }
                    continue;
                }
                let up = parent(&self.links[i]).unwrap_or(root);
                closed[i] = closed[up];
                let count = names.entry(name).or_insert(0);
                repeats[i] = repeats[up] || *count > 0;
                *count += 1;
                stack.push((i, true));
                stack.extend(
                    children[first_child[i]..first_child[i + 1]]
                        .iter()
                        .map(|&c| (c, false)),
                );
            }
        }
        (closed, repeats)
    }
}

#[cfg(test)]
thread_local! {
    /// Characters the scanners of this thread have stepped over (for the
    /// tests that check the work is linear in the text).
    static STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn tick(_steps: usize) {
    #[cfg(test)]
    STEPS.with(|n| n.set(n.get() + _steps));
}

/// A list or dict literal written bare reads back as the same text.
fn is_bare_literal(text: &str) -> bool {
    let balanced = || {
        let Some(ends) = Ends::of(text) else {
            return false;
        };
        let mut scanner = Scanner {
            text,
            ends: &ends,
            pos: 0,
        };
        scanner.value().as_deref() == Some(text) && scanner.pos == text.len()
    };
    ((text.starts_with('[') && text.ends_with(']'))
        || (text.starts_with('{') && text.ends_with('}')))
        && balanced()
}

/// `text` in single quotes, with what would end it escaped.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            other => out.push(other),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> (String, Vec<(String, String)>) {
        let request = parse_api_request(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let args = request
            .param_dict
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect();
        (request.api_name, args)
    }

    fn args(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn reads_the_papers_form() {
        assert_eq!(
            parsed("[GetUserToken(username='JohnDoe', password='pass123')]"),
            (
                "GetUserToken".into(),
                args(&[("username", "JohnDoe"), ("password", "pass123")])
            )
        );
        assert_eq!(parsed("[GetToday()]"), ("GetToday".into(), vec![]));
    }

    #[test]
    fn reads_text_around_the_call_and_code_fences() {
        let text = "Sure! I will look that up.\nAPI-Request: [ToolSearcher(keywords='weather')]\nThen I answer.";
        assert_eq!(
            parsed(text),
            ("ToolSearcher".into(), args(&[("keywords", "weather")]))
        );
        let fenced = "```\n[QueryStock(stock_code=\"AAPL\", date=\"2023-03-01\")]\n```";
        assert_eq!(
            parsed(fenced),
            (
                "QueryStock".into(),
                args(&[("stock_code", "AAPL"), ("date", "2023-03-01")])
            )
        );
    }

    #[test]
    fn reads_either_quote_with_the_other_inside_and_escapes() {
        assert_eq!(
            parsed(r#"[AddReminder(content="I'm off, call Bob", time='2023-03-01 09:00:00')]"#).1,
            args(&[
                ("content", "I'm off, call Bob"),
                ("time", "2023-03-01 09:00:00")
            ])
        );
        assert_eq!(
            parsed(r"[AddReminder(content='it\'s a \\ test')]").1,
            args(&[("content", r"it's a \ test")])
        );
        // A bracket or parenthesis inside a quoted value ends nothing.
        assert_eq!(
            parsed("[Calculator(formula='(5+3)*2]')]").1,
            args(&[("formula", "(5+3)*2]")])
        );
    }

    #[test]
    fn keeps_lists_dicts_numbers_and_constants_as_written() {
        assert_eq!(
            parsed("[AddMeeting(attendees=['John', \"Jane\"], n=3, ok=True, x=-2.5)]").1,
            args(&[
                ("attendees", "['John', \"Jane\"]"),
                ("n", "3"),
                ("ok", "True"),
                ("x", "-2.5")
            ])
        );
        assert_eq!(
            parsed("[RecordHealthData(user_id='1', health_data=[{'name': 'heart_rate', 'value': '80'}])]").1,
            args(&[
                ("user_id", "1"),
                ("health_data", "[{'name': 'heart_rate', 'value': '80'}]")
            ])
        );
    }

    #[test]
    fn reads_spaces_and_line_breaks_between_the_parts() {
        let text = "[ ModifyPassword (\n  token = 'a1',\n  old_password : \"x\" ,\n  new_password='y',\n) ]";
        assert_eq!(
            parsed(text),
            (
                "ModifyPassword".into(),
                args(&[
                    ("token", "a1"),
                    ("old_password", "x"),
                    ("new_password", "y")
                ])
            )
        );
    }

    #[test]
    fn reads_a_call_without_brackets_only_when_none_has_them() {
        assert_eq!(
            parsed("I will call QueryBalance(token='t') now").0,
            "QueryBalance"
        );
        assert_eq!(
            parsed("First (briefly) GetToday() then [QueryBalance(token='t')]").0,
            "QueryBalance"
        );
        // Prose with parentheses is no call.
        assert_eq!(
            parse_api_request("the answer (as you asked) is 4 [see above]"),
            Err(ParseFailure::NoCall)
        );
    }

    #[test]
    fn takes_the_first_of_several_calls() {
        let request = parse_api_request(
            "[GetUserToken(username='a', password='b')] [QueryBalance(token='t')]",
        )
        .unwrap();
        assert_eq!(request.api_name, "GetUserToken");
        assert_eq!(request.span, 0..42);
    }

    #[test]
    fn says_why_a_call_cannot_be_read() {
        let failure = |text: &str| parse_api_request(text).unwrap_err().to_string();
        assert_eq!(
            failure(""),
            "no API call of the form [ApiName(key='value', ...)]"
        );
        assert_eq!(
            failure("[ToolSearcher('weather')]"),
            "the call to ToolSearcher has an unreadable argument: argument 1 has no name"
        );
        assert_eq!(
            failure("[AddAlarm(time='08:00', time='09:00')]"),
            "the call to AddAlarm has an unreadable argument: argument time is given twice"
        );
        assert_eq!(
            failure("[AddAlarm(time='08:00)]"),
            "the call to AddAlarm is never closed"
        );
        assert_eq!(
            failure("[AddAlarm(time=)]"),
            "the call to AddAlarm has an unreadable argument: argument time has no value"
        );
        assert_eq!(
            failure("[AddAlarm(time='8' 'x')]"),
            "the call to AddAlarm has an unreadable argument: unexpected '\\'' after argument time"
        );
    }

    /// Characters stepped over to parse `text`, and the result.
    fn steps_to_parse(text: &str) -> (usize, Result<ApiRequest, ParseFailure>) {
        let before = STEPS.with(std::cell::Cell::get);
        let result = parse_api_request(text);
        (STEPS.with(std::cell::Cell::get) - before, result)
    }

    #[test]
    fn repeated_unclosed_calls_are_read_in_one_pass() {
        for unit in [
            "[AddAlarm(token=(",
            "[AddAlarm(token='",
            "[AddAlarm(token=[",
            "AddAlarm(token=(",
            "[A(x=[",
        ] {
            let text = unit.repeat(4000);
            let (steps, result) = steps_to_parse(&text);
            assert!(result.is_err(), "{unit}: {result:?}");
            assert!(
                steps <= 40 * text.len(),
                "{unit} x4000 ({} bytes): {steps} steps",
                text.len()
            );
        }
        // Every candidate's value runs over the same long argument list.
        let n = 3000;
        let mut text = "[A(x=[".repeat(n);
        text.push('1');
        text.push_str(&"]".repeat(3 * n));
        for i in 0..n {
            text.push_str(&format!(", k{i}=1"));
        }
        text.push(')');
        let (steps, _) = steps_to_parse(&text);
        assert!(
            steps <= 40 * text.len(),
            "{} bytes: {steps} steps",
            text.len()
        );
    }

    /// The reading before [`Calls`] and [`Ends`]: every candidate read in
    /// turn, each value scanned character by character.
    fn parse_by_trying_each(text: &str) -> Result<ApiRequest, ParseFailure> {
        let ends = Ends::of(text).unwrap();
        let mut first_failure = None;
        for bracketed in [true, false] {
            for start in candidates(text, bracketed) {
                match read_call(text, &ends, start, bracketed) {
                    Some(Ok(request)) => return Ok(request),
                    Some(Err(failure)) => {
                        first_failure.get_or_insert(failure);
                    }
                    None => {}
                }
            }
            if let Some(failure) = first_failure {
                return Err(failure);
            }
        }
        Err(ParseFailure::NoCall)
    }

    /// A bare value's end found by scanning, as the reader did before
    /// [`Ends`].
    fn bare_value_end_by_scanning(text: &str, start: usize) -> Option<usize> {
        let mut pos = start;
        let mut depth = 0usize;
        while let Some(c) = text[pos..].chars().next() {
            match c {
                '\'' | '"' => {
                    pos = quote_close_by_scanning(text, pos + 1, c)? + 1;
                    continue;
                }
                '[' | '{' | '(' => depth += 1,
                ']' | '}' | ')' if depth > 0 => depth -= 1,
                ',' | ')' if depth == 0 => break,
                _ => {}
            }
            pos += c.len_utf8();
        }
        (depth == 0).then_some(pos)
    }

    fn quote_close_by_scanning(text: &str, body: usize, quote: char) -> Option<usize> {
        let mut chars = text[body..].char_indices();
        while let Some((i, c)) = chars.next() {
            if c == quote {
                return Some(body + i);
            }
            if c == '\\' {
                chars.next()?;
            }
        }
        None
    }

    /// Texts made of the pieces calls are made of, drawn at random.
    fn random_texts(count: usize) -> Vec<String> {
        let pieces = [
            "[", "]", "(", ")", "{", "}", ",", "'", "\"", "\\", " ", "\n", "=", ":", "A", "x",
            "AddAlarm", "k", "1", "é", "[A(", "x=", "y=", "x='a'", ")]", "B(",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..count)
            .map(|_| {
                let len = (next() % 24) as usize;
                (0..len)
                    .map(|_| pieces[(next() % pieces.len() as u64) as usize])
                    .collect()
            })
            .collect()
    }

    #[test]
    fn reads_what_trying_each_candidate_in_turn_reads() {
        let mut calls = 0;
        for text in random_texts(60_000) {
            let ends = Ends::of(&text).unwrap();
            for (at, _) in text.char_indices().chain([(text.len(), ' ')]) {
                assert_eq!(
                    ends.bare_value_end(at),
                    bare_value_end_by_scanning(&text, at),
                    "{text:?} at {at}"
                );
                for quote in ['\'', '"'] {
                    assert_eq!(
                        ends.quote_close(quote, at),
                        quote_close_by_scanning(&text, at, quote),
                        "{text:?} at {at}"
                    );
                }
            }
            let read = parse_api_request(&text);
            calls += usize::from(read.is_ok());
            assert_eq!(read, parse_by_trying_each(&text), "{text:?}");
        }
        // The texts hold calls, not only failures.
        assert!(calls > 1000, "{calls} calls read");
    }

    #[test]
    fn rendering_reads_back_to_the_same_arguments() {
        let mut dict = Map::new();
        for (k, v) in [
            ("content", "Bob's \"party\"\nat 5"),
            ("attendees", "['John', 'Jane']"),
            ("note", "[not a list"),
            ("empty", ""),
        ] {
            dict.insert(k.into(), Value::String(v.into()));
        }
        let text = render_api_request("AddMeeting", &dict);
        assert_eq!(
            text,
            r#"[AddMeeting(content='Bob\'s "party"\nat 5', attendees=['John', 'Jane'], note='[not a list', empty='')]"#
        );
        assert_eq!(parse_api_request(&text).unwrap().param_dict, dict);
    }
}
