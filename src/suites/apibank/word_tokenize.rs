//! Word tokenisation as NLTK's `word_tokenize` does it (NLTK 3.8, the
//! version the reference's SearchEngine ran with), which is how the
//! SearchEngine database's `tokenized_documents` and the queries against
//! them are split.
//!
//! `word_tokenize` first splits the text into sentences with Punkt, then
//! splits each sentence with NLTK's improved Treebank rules (quotes,
//! punctuation, brackets, clitics such as `n't` and `'s`, and a handful of
//! contractions such as `cannot`). The Treebank rules are reproduced here
//! one by one. Punkt's sentence splitting is approximated: it depends on
//! parameters learnt from a corpus (abbreviations, collocations) that are
//! not available offline. A word ending in `.`, `?` or `!` that is followed
//! by more text ends a sentence, unless it looks like an abbreviation (a
//! single letter, or a word with a period inside, as `e.g.`). Where the two
//! disagree (an abbreviation Punkt knows, as `dr.`), a query's last period
//! stays attached to its word instead of standing alone; search queries
//! rarely hold more than one sentence.

use std::sync::OnceLock;

use regex::Regex;

/// `nltk.word_tokenize(text)`.
pub fn word_tokenize(text: &str) -> Vec<String> {
    sentences(text).into_iter().flat_map(treebank).collect()
}

/// The approximation of Punkt described above.
fn sentences(text: &str) -> Vec<&str> {
    let mut sentences = Vec::new();
    let mut start = 0;
    let mut words = text
        .char_indices()
        .filter(|&(i, c)| {
            !c.is_whitespace() && (i == 0 || text[..i].ends_with(char::is_whitespace))
        })
        .map(|(i, _)| i)
        .peekable();
    while let Some(begin) = words.next() {
        let end = text[begin..]
            .find(char::is_whitespace)
            .map_or(text.len(), |n| begin + n);
        let word = &text[begin..end];
        let Some(next) = words.peek() else { break };
        let stem = word.trim_end_matches(['"', '\'', ')', ']', '}', '»', '”', '’']);
        let ends = stem.ends_with(['.', '?', '!']);
        let core = stem.trim_end_matches(['.', '?', '!']);
        let abbreviation = stem.ends_with('.')
            && !stem.ends_with("..")
            && (core.chars().count() == 1 || core.contains('.'));
        if ends && !abbreviation && !core.is_empty() {
            sentences.push(text[start..end].trim());
            start = *next;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() || sentences.is_empty() {
        sentences.push(rest);
    }
    sentences
}

/// A substitution: a pattern and its replacement (`${n}` groups).
struct Rule(Regex, &'static str);

fn rules(patterns: &[(&str, &'static str)]) -> Vec<Rule> {
    patterns
        .iter()
        .map(|(pattern, replacement)| {
            Rule(Regex::new(pattern).expect("valid pattern"), replacement)
        })
        .collect()
}

fn apply(rules: &[Rule], mut text: String) -> String {
    for Rule(pattern, replacement) in rules {
        if pattern.is_match(&text) {
            text = pattern.replace_all(&text, *replacement).into_owned();
        }
    }
    text
}

struct Treebank {
    starting_quotes: Vec<Rule>,
    punctuation: Vec<Rule>,
    ending_quotes: Vec<Rule>,
    contractions: Vec<Rule>,
}

fn rulebook() -> &'static Treebank {
    static RULES: OnceLock<Treebank> = OnceLock::new();
    RULES.get_or_init(|| Treebank {
        starting_quotes: rules(&[
            ("([«“‘„]|[`]+)", " ${1} "),
            (r#"^""#, "``"),
            ("(``)", " ${1} "),
            (r#"([ (\[{<])("|'{2})"#, "${1} `` "),
        ]),
        punctuation: rules(&[
            (r#"([^.])(\.)([\])}>"'»”’ ]*)\s*$"#, "${1} ${2} ${3} "),
            (r"([:,])([^\d])", " ${1} ${2}"),
            (r"([:,])$", " ${1} "),
            (r"\.{2,}", " ${0} "),
            (r"[;@#$%&]", " ${0} "),
            (r#"([^.])(\.)([\])}>"']*)\s*$"#, "${1} ${2}${3} "),
            (r"[?!]", " ${0} "),
            (r"([^'])' ", "${1} ' "),
            (r"[*]", " ${0} "),
            (r"[\]\[(){}<>]", " ${0} "),
            (r"--", " -- "),
        ]),
        ending_quotes: rules(&[
            ("([»”’])", " ${1} "),
            ("''", " '' "),
            ("\"", " '' "),
            (r"([^' ])('[sS]|'[mM]|'[dD]|') ", "${1} ${2} "),
            (r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "${1} ${2} "),
        ]),
        contractions: rules(&[
            (r"(?i)\b(can)(not)\b", " ${1} ${2} "),
            (r"(?i)\b(d)('ye)\b", " ${1} ${2} "),
            (r"(?i)\b(gim)(me)\b", " ${1} ${2} "),
            (r"(?i)\b(gon)(na)\b", " ${1} ${2} "),
            (r"(?i)\b(got)(ta)\b", " ${1} ${2} "),
            (r"(?i)\b(lem)(me)\b", " ${1} ${2} "),
            (r"(?i)\b(more)('n)\b", " ${1} ${2} "),
            // `(?=\s)` in NLTK; the space is kept by putting it back.
            (r"(?i)\b(wan)(na)(\s)", " ${1} ${2} ${3}"),
            (r"(?i) ('t)(is)\b", " ${1} ${2} "),
            (r"(?i) ('t)(was)\b", " ${1} ${2} "),
        ]),
    })
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// NLTK's `(?i)(\')(?!re|ve|ll|m|t|s|d|n)(\w)\b` -> `\1 \2`: a quote
/// before a one-character word that is not a clitic gets a space.
fn quote_before_letter(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 4);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' && i + 1 < chars.len() && is_word(chars[i + 1]) {
            let after: String = chars[i + 1..(i + 3).min(chars.len())]
                .iter()
                .collect::<String>()
                .to_lowercase();
            let clitic = ["re", "ve", "ll", "m", "t", "s", "d", "n"]
                .iter()
                .any(|clitic| after.starts_with(clitic));
            let boundary = chars.get(i + 2).is_none_or(|&next| !is_word(next));
            if !clitic && boundary {
                out.push('\'');
                out.push(' ');
                out.push(chars[i + 1]);
                i += 2;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// `NLTKWordTokenizer().tokenize(sentence)`.
fn treebank(sentence: &str) -> Vec<String> {
    let book = rulebook();
    let text = apply(&book.starting_quotes, sentence.to_string());
    let text = quote_before_letter(&text);
    let text = apply(&book.punctuation, text);
    let text = apply(&book.ending_quotes, format!(" {text} "));
    let text = apply(&book.contractions, text);
    text.split_whitespace().map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<String> {
        word_tokenize(text)
    }

    #[test]
    fn splits_punctuation_clitics_and_contractions_as_nltk() {
        assert_eq!(
            tokens("the impact of artificial intelligence on society - as ai continues, it's important."),
            [
                "the", "impact", "of", "artificial", "intelligence", "on", "society", "-", "as", "ai",
                "continues", ",", "it", "'s", "important", "."
            ]
        );
        assert_eq!(
            tokens("i cannot go (now)!"),
            ["i", "can", "not", "go", "(", "now", ")", "!"]
        );
        assert_eq!(
            tokens("don't \"quote\" me"),
            ["do", "n't", "``", "quote", "''", "me"]
        );
        assert_eq!(
            tokens("costs $3.88, 3,36 euros"),
            ["costs", "$", "3.88", ",", "3,36", "euros"]
        );
        assert_eq!(tokens("5g: a test"), ["5g", ":", "a", "test"]);
        assert_eq!(tokens("rock 'n roll"), ["rock", "'n", "roll"]);
        assert_eq!(tokens("'a test"), ["'", "a", "test"]);
    }

    #[test]
    fn sentences_end_at_a_final_period_that_is_not_an_abbreviation() {
        assert_eq!(
            tokens("covid vaccine. side effects"),
            ["covid", "vaccine", ".", "side", "effects"]
        );
        assert_eq!(tokens("e.g. this"), ["e.g.", "this"]);
        assert_eq!(tokens("see dr. x. then"), ["see", "dr", ".", "x.", "then"]);
        assert_eq!(tokens("wait... what"), ["wait", "...", "what"]);
        assert_eq!(tokens(""), Vec::<String>::new());
    }
}
