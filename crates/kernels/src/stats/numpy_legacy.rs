//! numpy's legacy generator, bit for bit: `numpy.random.RandomState(seed)` (MT19937 seeded
//! from one 32-bit integer) and `randint(low, high, dtype=np.uint32 | np.uint64)`, which draws
//! by masked rejection (read from numpy's `_mt19937.pyx`, `mt19937.c` and `distributions.c`).
//! datasketch draws its MinHash permutations from it.

const N: usize = 624;
const M: usize = 397;

pub struct RandomState {
    key: [u32; N],
    pos: usize,
}

impl RandomState {
    /// `RandomState(seed)` for an integer seed (`mt19937_seed`).
    pub fn new(seed: u32) -> Self {
        let mut key = [0u32; N];
        let mut s = seed;
        for (pos, k) in key.iter_mut().enumerate() {
            *k = s;
            s = 1_812_433_253u32
                .wrapping_mul(s ^ (s >> 30))
                .wrapping_add(pos as u32 + 1);
        }
        RandomState { key, pos: N }
    }

    fn generate(&mut self) {
        const UPPER: u32 = 0x8000_0000;
        const LOWER: u32 = 0x7fff_ffff;
        const MATRIX: u32 = 0x9908_b0df;
        let twist = |a: u32, b: u32, c: u32| {
            let y = (a & UPPER) | (b & LOWER);
            c ^ (y >> 1) ^ if y & 1 == 1 { MATRIX } else { 0 }
        };
        for i in 0..N - M {
            self.key[i] = twist(self.key[i], self.key[i + 1], self.key[i + M]);
        }
        for i in N - M..N - 1 {
            self.key[i] = twist(self.key[i], self.key[i + 1], self.key[i + M - N]);
        }
        self.key[N - 1] = twist(self.key[N - 1], self.key[0], self.key[M - 1]);
        self.pos = 0;
    }

    /// `mt19937_next32`.
    pub fn next_u32(&mut self) -> u32 {
        if self.pos == N {
            self.generate();
        }
        let mut y = self.key[self.pos];
        self.pos += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// Two 32-bit draws, the first the high half.
    pub fn next_u64(&mut self) -> u64 {
        let high = u64::from(self.next_u32());
        (high << 32) | u64::from(self.next_u32())
    }

    /// `randint(low, high, dtype=np.uint64)`: one value in [low, high).
    pub fn randint_u64(&mut self, low: u64, high: u128) -> u64 {
        assert!(
            u128::from(low) < high && high <= 1 << 64,
            "randint: low < high <= 2^64"
        );
        let range = (high - 1 - u128::from(low)) as u64;
        let draw = match range {
            0 => 0,
            r if r <= u64::from(u32::MAX) => u64::from(self.masked_u32(r as u32)),
            u64::MAX => self.next_u64(),
            r => {
                let mask = mask(r);
                loop {
                    let v = self.next_u64() & mask;
                    if v <= r {
                        break v;
                    }
                }
            }
        };
        low + draw
    }

    /// `randint(low, high, dtype=np.uint32)`: one value in [low, high).
    pub fn randint_u32(&mut self, low: u32, high: u64) -> u32 {
        assert!(
            u64::from(low) < high && high <= 1 << 32,
            "randint: low < high <= 2^32"
        );
        low + self.masked_u32((high - 1 - u64::from(low)) as u32)
    }

    fn masked_u32(&mut self, range: u32) -> u32 {
        match range {
            0 => 0,
            u32::MAX => self.next_u32(),
            r => {
                let mask = mask(u64::from(r)) as u32;
                loop {
                    let v = self.next_u32() & mask;
                    if v <= r {
                        break v;
                    }
                }
            }
        }
    }
}

/// The smallest all-ones mask covering `range`.
fn mask(range: u64) -> u64 {
    u64::MAX >> range.leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// numpy 2.x: `np.random.RandomState(1).randint(0, 2**32, 3, dtype=np.uint64)` and so on.
    #[test]
    fn as_numpy_draws() {
        let mut r = RandomState::new(5489);
        // The reference MT19937's first output for the default seed.
        assert_eq!(r.next_u32(), 3_499_211_612);
        let mut r = RandomState::new(1);
        // np.random.RandomState(1).randint(0, 2**31, 3, dtype=np.uint32)
        let got: Vec<u32> = (0..3).map(|_| r.randint_u32(0, 1 << 31)).collect();
        assert_eq!(got, [1791095845, 2135392491, 946286476]);
        // r = RandomState(7); r.randint(1, 2**61 - 1, dtype=np.uint64), r.randint(0, 2**61 - 1, ...)
        let mut r = RandomState::new(7);
        assert_eq!(r.randint_u64(1, (1 << 61) - 1), 1407639518939636933);
        assert_eq!(r.randint_u64(0, (1 << 61) - 1), 551904368352831990);
        // r = RandomState(7); r.randint(0, 2**64, 2, dtype=np.uint64), r.randint(0, 2**63, 2, ...)
        let mut r = RandomState::new(7);
        assert_eq!(r.randint_u64(0, 1 << 64), 1407639518939636932);
        assert_eq!(r.randint_u64(0, 1 << 64), 14386962423634995702);
        assert_eq!(r.randint_u64(0, 1 << 63), 8087222774582268115);
        assert_eq!(r.randint_u64(0, 1 << 63), 4122204982959224423);
    }
}
