//! Comparing the short names the simulator looks things up by (tools,
//! parameters, fields, usernames, record ids) without calling `memcmp`.
//!
//! Every call finds its tool, binds its arguments by name and scans small
//! records for a key, so a simulation compares names thousands of times,
//! nearly all of them a few bytes long. `str`'s `==` hands every pair of
//! equal length to `memcmp`, whose call costs more than such a comparison;
//! [`same`] compares names of up to 16 bytes with two overlapping word
//! loads instead, and leaves longer ones to `==`.

/// `a == b`, quicker for strings of at most 16 bytes.
#[inline]
pub fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    // Two loads from each end cover every byte (they overlap when the
    // length is not twice the word size).
    if n >= 8 {
        if n > 16 {
            return a == b;
        }
        return word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8);
    }
    if n >= 4 {
        return word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4);
    }
    // 0 to 3 bytes: first, middle and last (repeating bytes when shorter).
    n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1])
}

#[inline]
fn word8(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

#[inline]
fn word4(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair of strings from a set that differ in one byte at every
    /// position, for every length from 0 to 40, agrees with `==`.
    #[test]
    fn agrees_with_str_equality_for_every_length_and_position() {
        for len in 0..=40usize {
            let base: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            let mut variants = vec![base.clone()];
            for at in 0..len {
                let mut bytes = base.clone().into_bytes();
                bytes[at] = b'#';
                variants.push(String::from_utf8(bytes).unwrap());
            }
            // A string one byte longer or shorter never matches.
            variants.push(format!("{base}x"));
            if len > 0 {
                variants.push(base[..len - 1].to_string());
            }
            for a in &variants {
                for b in &variants {
                    assert_eq!(same(a, b), a == b, "{a:?} vs {b:?}");
                }
            }
        }
    }

    #[test]
    fn compares_multibyte_text_by_its_bytes() {
        assert!(same("café", "café"));
        assert!(!same("café", "cafe\u{301}"));
        assert!(same("日本語の名前", "日本語の名前"));
        assert!(!same("日本語の名前", "日本語の名剣"));
    }
}
