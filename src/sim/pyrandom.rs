//! A CPython-compatible `random.Random`: MT19937 seeded the way CPython seeds
//! it from an integer (`init_by_array` over the integer's 32-bit words), with
//! `getrandbits` and `randint` drawing exactly the same stream.
//!
//! The reference simulators draw ids and session tokens from
//! `random.Random(489)`; reproducing recorded gold results needs the same
//! numbers, in the same order.

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// The seed every reference tool instance uses.
pub const TOOL_SEED: u64 = 489;

#[derive(Clone)]
pub struct PyRandom {
    /// Shared between copies until a twist rewrites it: drawing only reads
    /// it, so a new tool instance (a copy of the seeded template) and every
    /// copied world cost a pointer, not 2.5 KB.
    state: std::sync::Arc<[u32; N]>,
    index: usize,
}

impl std::fmt::Debug for PyRandom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyRandom")
            .field("index", &self.index)
            .finish()
    }
}

impl PyRandom {
    /// `random.Random(seed)` for a non-negative integer seed.
    pub fn new(seed: u64) -> Self {
        // CPython splits abs(seed) into 32-bit words, least significant first;
        // zero still gives one word.
        let mut key = vec![seed as u32];
        if seed >> 32 != 0 {
            key.push((seed >> 32) as u32);
        }
        let mut rng = PyRandom {
            state: std::sync::Arc::new([0; N]),
            index: N,
        };
        rng.init_by_array(&key);
        rng
    }

    /// A fresh generator in the state of `random.Random(489)`; cloned from a
    /// template built once, since every tool instance starts here.
    pub fn for_tool() -> Self {
        static TEMPLATE: std::sync::OnceLock<PyRandom> = std::sync::OnceLock::new();
        // Twisted ahead of the first draw (which would twist anyway), so a
        // new tool instance is a copy and never pays for a twist itself.
        TEMPLATE
            .get_or_init(|| {
                let mut rng = PyRandom::new(TOOL_SEED);
                rng.twist();
                rng
            })
            .clone()
    }

    fn init_genrand(&mut self, s: u32) {
        let mt = std::sync::Arc::make_mut(&mut self.state);
        mt[0] = s;
        for i in 1..N {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        self.index = N;
    }

    fn init_by_array(&mut self, key: &[u32]) {
        self.init_genrand(19_650_218);
        let mt = std::sync::Arc::make_mut(&mut self.state);
        let (mut i, mut j) = (1usize, 0usize);
        let mut k = N.max(key.len());
        while k > 0 {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
            k -= 1;
        }
        k = N - 1;
        while k > 0 {
            mt[i] = (mt[i] ^ (mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            k -= 1;
        }
        mt[0] = 0x8000_0000;
    }

    fn twist(&mut self) {
        let mt = std::sync::Arc::make_mut(&mut self.state);
        for kk in 0..N {
            let y = (mt[kk] & UPPER_MASK) | (mt[(kk + 1) % N] & LOWER_MASK);
            let mag = if y & 1 == 1 { MATRIX_A } else { 0 };
            mt[kk] = mt[(kk + M) % N] ^ (y >> 1) ^ mag;
        }
        self.index = 0;
    }

    /// One 32-bit output of MT19937 (`genrand_uint32`).
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// `random.getrandbits(k)` for 0 < k <= 128: 32-bit words filled from the
    /// least significant end, the last one shifted down to the bits left.
    pub fn getrandbits(&mut self, k: u32) -> u128 {
        assert!(k > 0 && k <= 128, "getrandbits supports 1..=128 bits");
        if k <= 32 {
            return u128::from(self.next_u32() >> (32 - k));
        }
        if k <= 64 {
            // Two words (ids draw 33 bits): the same, without 128-bit steps.
            let low = u64::from(self.next_u32());
            let high = u64::from(self.next_u32() >> (64 - k));
            return u128::from(low | high << 32);
        }
        let mut result: u128 = 0;
        let mut remaining = k;
        let mut shift = 0;
        while remaining > 0 {
            let mut word = self.next_u32();
            if remaining < 32 {
                word >>= 32 - remaining;
            }
            result |= u128::from(word) << shift;
            shift += 32;
            remaining = remaining.saturating_sub(32);
        }
        result
    }

    /// `random._randbelow(n)`: rejection sampling over `n.bit_length()` bits.
    fn randbelow(&mut self, n: u128) -> u128 {
        if n == 0 {
            return 0;
        }
        let k = 128 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r;
            }
        }
    }

    /// `random.randint(a, b)`, both ends included.
    pub fn randint(&mut self, a: i64, b: i64) -> i64 {
        assert!(a <= b, "empty range for randint({a}, {b})");
        let width = (i128::from(b) - i128::from(a) + 1) as u128;
        (i128::from(a) + self.randbelow(width) as i128) as i64
    }

    /// An id of lowercase hex parts joined by `-`, the reference's
    /// `f"{r.randint(0, 0xff):02x}-{r.randint(0, 0xffff):04x}"` for
    /// `digits = [2, 4]`: each part a draw over all values of its width,
    /// drawn left to right, written with leading zeros.
    pub fn hex_id(&mut self, digits: &[u32]) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut id = String::with_capacity(digits.iter().map(|&d| d as usize + 1).sum());
        for (i, &width) in digits.iter().enumerate() {
            debug_assert!((1..=15).contains(&width), "{width} hex digits");
            if i > 0 {
                id.push('-');
            }
            let value = self.randint(0, (1i64 << (4 * width)) - 1);
            for shift in (0..width).rev() {
                id.push(HEX[((value >> (4 * shift)) & 0xf) as usize] as char);
            }
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_ids_are_the_draws_formatted_with_leading_zeros() {
        for seed in [0u64, 489, 2023] {
            let (mut a, mut b) = (PyRandom::new(seed), PyRandom::new(seed));
            for _ in 0..200 {
                let want = format!(
                    "{:02x}-{:04x}-{:08x}",
                    a.randint(0, 0xff),
                    a.randint(0, 0xffff),
                    a.randint(0, 0xffff_ffff)
                );
                assert_eq!(b.hex_id(&[2, 4, 8]), want);
            }
        }
        assert_eq!(PyRandom::new(489).hex_id(&[1]).len(), 1);
    }

    // Values printed by CPython 3.11:
    //   r = random.Random(489); [r.getrandbits(32) for _ in range(3)]
    //   r = random.Random(489); [r.randint(0, 0xffff) for _ in range(4)]
    //   r = random.Random(489); [r.randint(0, 0xffffffff) for _ in range(2)]
    //   r = random.Random(0); r.getrandbits(64)
    //   r = random.Random(2**40 + 7); r.randint(1, 6)
    // (see tests/pyrandom_python.rs for the same values recomputed live
    // with python3 when it is installed).
    #[test]
    fn getrandbits_matches_cpython_for_seed_489() {
        let mut r = PyRandom::new(489);
        let words: Vec<u128> = (0..3).map(|_| r.getrandbits(32)).collect();
        assert_eq!(words, vec![4032595798, 3967006310, 771719745]);
    }

    /// Words filled from the least significant end, the last one shifted
    /// down to the bits left, for every width the two-word path serves.
    #[test]
    fn two_word_draws_are_the_words_put_together() {
        for k in 33..=64u32 {
            let mut r = PyRandom::new(489);
            let mut words = r.clone();
            for _ in 0..50 {
                let low = u128::from(words.next_u32());
                let high = u128::from(words.next_u32() >> (64 - k));
                assert_eq!(r.getrandbits(k), low | high << 32, "k = {k}");
            }
        }
        // python3: r = random.Random(489); [r.getrandbits(33) for _ in range(2)]
        let mut r = PyRandom::new(489);
        assert_eq!(
            [r.getrandbits(33), r.getrandbits(33)],
            [8327563094, 5066687041]
        );
    }

    #[test]
    fn randint_matches_cpython() {
        let mut r = PyRandom::for_tool();
        let small: Vec<i64> = (0..4).map(|_| r.randint(0, 0xffff)).collect();
        assert_eq!(small, vec![23551, 56704, 8400, 55754]);
        // 2**32 needs 33 bits: two words, rejection sampling included.
        let mut r = PyRandom::new(489);
        let wide: Vec<i64> = (0..2).map(|_| r.randint(0, 0xffff_ffff)).collect();
        assert_eq!(wide, vec![3779683183, 3972264225]);
    }

    #[test]
    fn seeds_above_32_bits_and_zero() {
        assert_eq!(PyRandom::new(0).getrandbits(64), 7106521602475165645);
        let mut r = PyRandom::new((1 << 40) + 7);
        let rolls: Vec<i64> = (0..5).map(|_| r.randint(1, 6)).collect();
        assert_eq!(rolls, vec![5, 6, 6, 5, 6]);
    }

    #[test]
    fn copies_draw_independently_across_twists() {
        let mut a = PyRandom::for_tool();
        let mut b = a.clone();
        let first: Vec<u32> = (0..1500).map(|_| a.next_u32()).collect();
        // `a` twisted twice meanwhile; `b` still starts from the seed.
        let again: Vec<u32> = (0..1500).map(|_| b.next_u32()).collect();
        assert_eq!(first, again);
        let mut fresh = PyRandom::new(TOOL_SEED);
        assert_eq!(fresh.next_u32(), first[0]);
    }
}
