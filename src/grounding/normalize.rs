//! Text normalisation for grounding: lower case, words split on anything
//! that is not a letter or digit, numbers spelled out read as numbers.

/// A word of a text and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word<'a> {
    pub text: &'a str,
    /// Byte range in the original text.
    pub start: usize,
    pub end: usize,
}

/// The bytes of ASCII words (letters and digits), looked up rather than
/// compared: every text the evidence holds is split into words.
const WORD_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    table
};

/// The words of `text`: maximal runs of letters and digits.
pub fn words(text: &str) -> Vec<Word<'_>> {
    if text.is_ascii() {
        let bytes = text.as_bytes();
        let mut out = Vec::with_capacity(bytes.len() / 5);
        let mut i = 0;
        while i < bytes.len() {
            if WORD_BYTE[bytes[i] as usize] {
                let start = i;
                while i < bytes.len() && WORD_BYTE[bytes[i] as usize] {
                    i += 1;
                }
                out.push(Word {
                    text: &text[start..i],
                    start,
                    end: i,
                });
            } else {
                i += 1;
            }
        }
        return out;
    }
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        if c.is_ascii_alphanumeric() || (!c.is_ascii() && c.is_alphanumeric()) {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            out.push(Word {
                text: &text[s..i],
                start: s,
                end: i,
            });
        }
    }
    if let Some(s) = start {
        out.push(Word {
            text: &text[s..],
            start: s,
            end: text.len(),
        });
    }
    out
}

/// Lower-cased words, joined by single spaces.
pub fn normalized(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for w in words(text) {
        if !out.is_empty() {
            out.push(' ');
        }
        if w.text.is_ascii() {
            // The same as the general path below, without a char at a time.
            let start = out.len();
            out.push_str(w.text);
            out[start..].make_ascii_lowercase();
        } else {
            out.extend(w.text.chars().flat_map(char::to_lowercase));
        }
    }
    out
}

/// Lower-cased words run together (`"John Smith"` -> `"johnsmith"`), for
/// values written without the spaces or punctuation of the text.
pub fn compact(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A crude stem so that "meetings" finds "meeting" and "picking" finds
/// "pick".
pub fn stem(word: &str) -> &str {
    if word.len() > 5 && word.ends_with("ing") {
        &word[..word.len() - 3]
    } else if word.len() > 4 && word.ends_with("ed") && !word.ends_with("eed") {
        &word[..word.len() - 2]
    } else if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") {
        &word[..word.len() - 1]
    } else {
        word
    }
}

/// Words that carry no content: a value is not unreachable because the
/// text lacks its "the" or "with".
pub fn is_stopword(word: &str) -> bool {
    matches!(
        word,
        "a" | "an"
            | "the"
            | "of"
            | "to"
            | "for"
            | "in"
            | "on"
            | "at"
            | "and"
            | "or"
            | "with"
            | "my"
            | "your"
            | "our"
            | "their"
            | "his"
            | "her"
            | "is"
            | "be"
            | "by"
            | "from"
            | "about"
            | "s"
    )
}

/// The value of a number word ("seven", "twenty"), if it is one.
pub fn number_word(word: &str) -> Option<i64> {
    Some(match word {
        "zero" => 0,
        "one" | "a" | "an" | "single" | "once" => 1,
        "two" | "couple" | "twice" | "pair" => 2,
        "three" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        "nine" => 9,
        "ten" => 10,
        "eleven" => 11,
        "twelve" | "dozen" => 12,
        "thirteen" => 13,
        "fourteen" => 14,
        "fifteen" => 15,
        "sixteen" => 16,
        "seventeen" => 17,
        "eighteen" => 18,
        "nineteen" => 19,
        "twenty" => 20,
        "thirty" => 30,
        "forty" => 40,
        "fifty" => 50,
        "sixty" => 60,
        "seventy" => 70,
        "eighty" => 80,
        "ninety" => 90,
        "hundred" => 100,
        _ => return None,
    })
}

/// Numbers written in a text, as digits ("1,200", "3.5") or words
/// ("twenty five").
pub fn numbers(text: &str) -> Vec<f64> {
    let lower = lowercase(text);
    let mut out = Vec::new();
    let spans: Vec<(usize, usize)> = words(&lower).iter().map(|w| (w.start, w.end)).collect();
    numbers_in(&lower, &spans, &mut out);
    out
}

/// [`numbers`] of a lower-case text whose words are already split.
pub fn numbers_in(lower: &str, spans: &[(usize, usize)], out: &mut Vec<f64>) {
    let text = |k: usize| &lower[spans[k].0..spans[k].1];
    let mut i = 0;
    while i < spans.len() {
        let w = text(i);
        if w.bytes().all(|b| b.is_ascii_digit()) {
            // Glue "1,200" and "3.5" back together.
            let mut end = spans[i].1;
            let mut j = i;
            while j + 1 < spans.len()
                && spans[j + 1].0 == end + 1
                && matches!(&lower[end..end + 1], "," | ".")
                && text(j + 1).bytes().all(|b| b.is_ascii_digit())
            {
                j += 1;
                end = spans[j].1;
            }
            let raw = &lower[spans[i].0..end];
            let parsed = if raw.contains(',') {
                raw.replace(',', "").parse::<f64>()
            } else {
                raw.parse::<f64>()
            };
            if let Ok(n) = parsed {
                out.push(n);
            }
            // The pieces count too ("3.5" also says 3 and 5).
            if j > i {
                for k in i..=j {
                    if let Ok(n) = text(k).parse::<f64>() {
                        out.push(n);
                    }
                }
            } else if let Ok(n) = w.parse::<f64>() {
                out.push(n);
            }
            i = j + 1;
            continue;
        }
        if let Some(n) = (w.len() <= 9).then(|| number_word(w)).flatten() {
            if (20..100).contains(&n) && n % 10 == 0 {
                if let Some(next) = (i + 1 < spans.len()).then(|| text(i + 1)) {
                    if let Some(unit) = number_word(next) {
                        if (1..10).contains(&unit) && next != "a" && next != "an" {
                            out.push((n + unit) as f64);
                        }
                    }
                }
            }
            out.push(n as f64);
        }
        i += 1;
    }
}

/// Lower case, without the general machinery when the text is ASCII.
pub fn lowercase(text: &str) -> std::borrow::Cow<'_, str> {
    if text.is_ascii() {
        if text.bytes().any(|b| b.is_ascii_uppercase()) {
            std::borrow::Cow::Owned(text.to_ascii_lowercase())
        } else {
            std::borrow::Cow::Borrowed(text)
        }
    } else {
        std::borrow::Cow::Owned(text.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_on_punctuation_and_keep_offsets() {
        let ws = words("Hi, j.hester@gahoo.com!");
        let texts: Vec<_> = ws.iter().map(|w| w.text).collect();
        assert_eq!(texts, ["Hi", "j", "hester", "gahoo", "com"]);
        assert_eq!((ws[1].start, ws[1].end), (4, 5));
    }

    #[test]
    fn the_word_table_holds_ascii_letters_and_digits() {
        for b in 0..=255u8 {
            assert_eq!(WORD_BYTE[b as usize], b.is_ascii_alphanumeric(), "{b}");
        }
    }

    #[test]
    fn normalized_and_compact_forms() {
        assert_eq!(
            normalized("  Client   MEETING, today! "),
            "client meeting today"
        );
        assert_eq!(compact("708-340-0190"), "7083400190");
        assert_eq!(normalized("Café Zoë"), "café zoë");
        assert_eq!(normalized("CAFÉ, ZOË and ÅSA"), "café zoë and åsa");
        assert_eq!(normalized("ΣΟΦΊΑ Big-Apple"), "σοφία big apple");
    }

    #[test]
    fn numbers_in_digits_and_words() {
        assert_eq!(numbers("pay 1,200 dollars"), [1200.0, 1.0, 200.0]);
        assert_eq!(numbers("3.5 hours"), [3.5, 3.0, 5.0]);
        assert_eq!(numbers("twenty five people"), [25.0, 20.0, 5.0]);
        assert_eq!(numbers("two adults and a child"), [2.0, 1.0]);
        assert!(numbers("no numbers here").is_empty());
    }

    #[test]
    fn stems_plurals_and_verb_endings_only() {
        assert_eq!(stem("meetings"), "meeting");
        assert_eq!(stem("class"), "class");
        assert_eq!(stem("bus"), "bus");
        assert_eq!(stem("picking"), "pick");
        assert_eq!(stem("picked"), "pick");
        assert_eq!(stem("need"), "need");
        assert_eq!(stem("ring"), "ring");
    }
}
