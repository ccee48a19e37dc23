//! numpy's default generator, bit for bit: `numpy.random.default_rng(seed)` (a `SeedSequence`
//! seeding PCG64) and the two draws sacrebleu's significance tests make with it,
//! `Generator.choice(n, (R, n))` (resample indices) and `Generator.integers(2, (R, n),
//! dtype=bool)` (coin flips). Read from numpy's `bit_generator.pyx`, `pcg64.h` and
//! `distributions.c` (numpy 1.17 to 2.x draw the same numbers).

/// SeedSequence's hashing constants.
const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;
const POOL_SIZE: usize = 4;

/// PCG64's 128-bit LCG multiplier.
const PCG_MULTIPLIER: u128 = (2549297995355413924u128 << 64) | 4865540595714422341u128;

fn hashmix(value: u32, hash_const: &mut u32) -> u32 {
    let mut value = value ^ *hash_const;
    *hash_const = hash_const.wrapping_mul(MULT_A);
    value = value.wrapping_mul(*hash_const);
    value ^ (value >> 16)
}

fn mix(x: u32, y: u32) -> u32 {
    let result = MIX_MULT_L
        .wrapping_mul(x)
        .wrapping_sub(MIX_MULT_R.wrapping_mul(y));
    result ^ (result >> 16)
}

/// `SeedSequence(seed).generate_state(n_words, np.uint32)`.
fn seed_sequence_state(seed: u128, n_words: usize) -> Vec<u32> {
    // The seed as little-endian 32-bit words (one word for 0).
    let mut entropy = Vec::new();
    let mut rest = seed;
    loop {
        entropy.push(rest as u32);
        rest >>= 32;
        if rest == 0 {
            break;
        }
    }
    let mut pool = [0u32; POOL_SIZE];
    let mut hash_const = INIT_A;
    for (i, slot) in pool.iter_mut().enumerate() {
        *slot = hashmix(entropy.get(i).copied().unwrap_or(0), &mut hash_const);
    }
    for src in 0..POOL_SIZE {
        for dst in 0..POOL_SIZE {
            if src != dst {
                pool[dst] = mix(pool[dst], hashmix(pool[src], &mut hash_const));
            }
        }
    }
    for &word in entropy.iter().skip(POOL_SIZE) {
        for slot in pool.iter_mut() {
            *slot = mix(*slot, hashmix(word, &mut hash_const));
        }
    }
    let mut hash_const = INIT_B;
    (0..n_words)
        .map(|i| {
            let mut value = pool[i % POOL_SIZE] ^ hash_const;
            hash_const = hash_const.wrapping_mul(MULT_B);
            value = value.wrapping_mul(hash_const);
            value ^ (value >> 16)
        })
        .collect()
}

/// `numpy.random.default_rng(seed)`: PCG64 (XSL-RR 128/64) with numpy's buffered 32-bit draws.
#[derive(Debug, Clone)]
pub struct NumpyRng {
    state: u128,
    inc: u128,
    /// The upper half of the last 64-bit draw, which numpy's next 32-bit draw returns.
    pending: Option<u32>,
}

impl NumpyRng {
    pub fn new(seed: u128) -> Self {
        let words = seed_sequence_state(seed, 8);
        let word64 = |i: usize| u128::from(words[2 * i]) | (u128::from(words[2 * i + 1]) << 32);
        let (init_state, init_seq) = ((word64(0) << 64) | word64(1), (word64(2) << 64) | word64(3));
        let mut rng = NumpyRng {
            state: 0,
            inc: (init_seq << 1) | 1,
            pending: None,
        };
        rng.step();
        rng.state = rng.state.wrapping_add(init_state);
        rng.step();
        rng
    }

    fn step(&mut self) {
        self.state = self
            .state
            .wrapping_mul(PCG_MULTIPLIER)
            .wrapping_add(self.inc);
    }

    pub fn next_u64(&mut self) -> u64 {
        self.step();
        let folded = ((self.state >> 64) as u64) ^ (self.state as u64);
        folded.rotate_right((self.state >> 122) as u32)
    }

    pub fn next_u32(&mut self) -> u32 {
        if let Some(upper) = self.pending.take() {
            return upper;
        }
        let next = self.next_u64();
        self.pending = Some((next >> 32) as u32);
        next as u32
    }

    /// One value of `Generator.integers(0, n)` (Lemire's method), as `choice(n, ...)` draws
    /// each index. `n` must be positive.
    pub fn below(&mut self, n: u64) -> u64 {
        let range = n - 1;
        if range == 0 {
            0
        } else if range < u64::from(u32::MAX) {
            let excl = range as u32 + 1;
            let mut m = u64::from(self.next_u32()) * u64::from(excl);
            if (m as u32) < excl {
                let threshold = (u32::MAX - range as u32) % excl;
                while (m as u32) < threshold {
                    m = u64::from(self.next_u32()) * u64::from(excl);
                }
            }
            m >> 32
        } else if range == u64::from(u32::MAX) {
            u64::from(self.next_u32())
        } else {
            let excl = n;
            let mut m = u128::from(self.next_u64()) * u128::from(excl);
            if (m as u64) < excl {
                let threshold = (u64::MAX - range) % excl;
                while (m as u64) < threshold {
                    m = u128::from(self.next_u64()) * u128::from(excl);
                }
            }
            (m >> 64) as u64
        }
    }

    /// The draws of one `Generator.integers(2, size, dtype=bool)` call, in order: each 32-bit
    /// draw gives 32 flips, lowest bit first.
    pub fn bools(&mut self) -> Bools<'_> {
        Bools {
            rng: self,
            buffer: 0,
            left: 0,
        }
    }
}

/// The flips of one boolean fill (see [`NumpyRng::bools`]).
pub struct Bools<'a> {
    rng: &'a mut NumpyRng,
    buffer: u32,
    left: u32,
}

impl Bools<'_> {
    pub fn next_bool(&mut self) -> bool {
        if self.left == 0 {
            self.buffer = self.rng.next_u32();
            self.left = 31;
        } else {
            self.buffer >>= 1;
            self.left -= 1;
        }
        self.buffer & 1 == 1
    }
}
