//! JSON string literals written straight into a byte buffer, escaped exactly
//! as serde_json escapes them (quote, backslash, control characters), for
//! the hot paths that write many strings by hand; optionally with every
//! non-ASCII character as `\uXXXX`, as Python's `ensure_ascii` does.

/// What to do with characters outside ASCII.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonAscii {
    /// Written as they are (serde_json's own output).
    Keep,
    /// Written as `\uXXXX` UTF-16 units, lowercase hex (Python's `ensure_ascii`).
    Escape,
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// For each byte: 0 when it is written as it is, else the letter of its
/// short escape (`\n`...), or `u` for `\u00XX`. Bytes from 0x80 up are
/// parts of non-ASCII characters and handled apart.
static ESCAPES: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// Bytes written as they are, per [`NonAscii`] mode: printable ASCII but
/// the quote and the backslash, and with `Keep` every byte of a non-ASCII
/// character too. One load per byte in the scanning loop.
static PLAIN: [[bool; 256]; 2] = {
    let mut table = [[false; 256]; 2];
    let mut byte = 0;
    while byte < 256 {
        let ascii_plain = byte < 0x80 && ESCAPES[byte] == 0;
        table[NonAscii::Keep as usize][byte] = ascii_plain || byte >= 0x80;
        table[NonAscii::Escape as usize][byte] = ascii_plain;
        byte += 1;
    }
    table
};

/// Append `s` as a JSON string literal, quotes included.
pub fn push_string(out: &mut Vec<u8>, s: &str, non_ascii: NonAscii) {
    // Most strings need few escapes: room for the string and a few, once.
    out.reserve(s.len() + s.len() / 8 + 2);
    out.push(b'"');
    let bytes = s.as_bytes();
    let plain = &PLAIN[non_ascii as usize];
    let mut i = 0;
    loop {
        // Copy the run of plain bytes in one go, then escape what ends it.
        // The run is found eight bytes at a time while it lasts.
        let start = i;
        while i + 8 <= bytes.len() && plain_word(word_at(bytes, i), non_ascii) {
            i += 8;
        }
        while i < bytes.len() && plain[usize::from(bytes[i])] {
            i += 1;
        }
        out.extend_from_slice(&bytes[start..i]);
        let Some(&byte) = bytes.get(i) else { break };
        if byte >= 0x80 {
            let ch = s[i..].chars().next().expect("a char starts here");
            let mut units = [0u16; 2];
            for unit in ch.encode_utf16(&mut units) {
                push_unit(out, *unit);
            }
            i += ch.len_utf8();
            continue;
        }
        match ESCAPES[usize::from(byte)] {
            b'u' => push_unit(out, u16::from(byte)),
            letter => out.extend_from_slice(&[b'\\', letter]),
        }
        i += 1;
    }
    out.push(b'"');
}

fn word_at(bytes: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"))
}

/// Whether all eight bytes of `word` are written as they are: none below
/// 0x20, none a quote or a backslash, and (escaping non-ASCII) none from
/// 0x80 up. Exact, as the bit tricks of "Bit Twiddling Hacks" (`hasless`,
/// `haszero`) are for the question "is there any such byte".
fn plain_word(word: u64, non_ascii: NonAscii) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGH != 0;
    let has_control = word.wrapping_sub(ONES * 0x20) & !word & HIGH != 0;
    let has_special = has_zero_byte(word ^ (ONES * u64::from(b'"')))
        || has_zero_byte(word ^ (ONES * u64::from(b'\\')));
    let has_non_ascii = non_ascii == NonAscii::Escape && word & HIGH != 0;
    !(has_control || has_special || has_non_ascii)
}

fn push_unit(out: &mut Vec<u8>, unit: u16) {
    out.extend_from_slice(&[
        b'\\',
        b'u',
        HEX[usize::from(unit >> 12)],
        HEX[usize::from((unit >> 8) & 0xf)],
        HEX[usize::from((unit >> 4) & 0xf)],
        HEX[usize::from(unit & 0xf)],
    ]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn awkward() -> Vec<String> {
        let mut all_bytes: String = (0u8..0x80).map(char::from).collect();
        all_bytes.push_str("caf\u{e9} \u{1F600} \u{2028}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}");
        vec![
            String::new(),
            "plain".into(),
            all_bytes,
            "\"\"\\\\\n".into(),
            "--- recorded\n+++ simulated\n@@ -1 +1 @@\n-\"a\"\n+\"b\"\n".into(),
        ]
    }

    /// Every byte a word can hold, at every place in the word, with every
    /// mode: the word test agrees with the byte table.
    #[test]
    fn a_word_is_plain_exactly_when_its_bytes_are() {
        for mode in [NonAscii::Keep, NonAscii::Escape] {
            let plain = &PLAIN[mode as usize];
            for byte in 0..=255u8 {
                for at in 0..8 {
                    for filler in [b'a', b' ', 0x7f, 0xc3, b'"', 0x1f] {
                        let mut bytes = [filler; 8];
                        bytes[at] = byte;
                        let want = bytes.iter().all(|&b| plain[usize::from(b)]);
                        let got = plain_word(u64::from_le_bytes(bytes), mode);
                        assert_eq!(got, want, "{bytes:?} {mode:?}");
                    }
                }
            }
        }
    }

    /// Strings long enough for the word-at-a-time scan, with what needs
    /// escaping at every offset, are escaped as serde_json escapes them.
    #[test]
    fn escapes_at_every_offset_of_a_long_string() {
        for special in ["\"", "\\", "\n", "\u{1}", "\u{e9}", "\u{1F600}", "\u{7f}"] {
            for at in 0..24 {
                let s = format!("{}{special}{}", "x".repeat(at), "y".repeat(24 - at));
                let mut out = Vec::new();
                push_string(&mut out, &s, NonAscii::Keep);
                assert_eq!(out, serde_json::to_vec(&s).unwrap(), "{s:?}");
                let mut out = Vec::new();
                push_string(&mut out, &s, NonAscii::Escape);
                assert!(out.is_ascii());
                assert_eq!(serde_json::from_slice::<String>(&out).unwrap(), s);
            }
        }
    }

    #[test]
    fn kept_non_ascii_is_serde_jsons_escaping() {
        for s in awkward() {
            let mut out = Vec::new();
            push_string(&mut out, &s, NonAscii::Keep);
            assert_eq!(out, serde_json::to_vec(&s).unwrap(), "{s:?}");
        }
    }

    #[test]
    fn escaped_non_ascii_is_pure_ascii_and_reads_back() {
        for s in awkward() {
            let mut out = Vec::new();
            push_string(&mut out, &s, NonAscii::Escape);
            assert!(out.is_ascii(), "{out:?}");
            assert_eq!(serde_json::from_slice::<String>(&out).unwrap(), s);
        }
        let mut out = Vec::new();
        push_string(&mut out, "\u{e9}\u{1F600}", NonAscii::Escape);
        // python3 -c 'import json; print(json.dumps("\u00e9\U0001F600"))'
        assert_eq!(out, b"\"\\u00e9\\ud83d\\ude00\"");
    }
}
