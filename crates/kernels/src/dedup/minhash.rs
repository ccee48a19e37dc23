//! datasketch 2.0's MinHash, bit for bit: `MinHash(num_perm, seed, scheme).update(token)` for
//! each token (its UTF-8 bytes), then `hashvalues`. Read from datasketch's `minhash.py` and
//! `hashfunc.py`:
//!
//! - a token's hash is the first 4 (affine32, legacy) or 8 (affine64) bytes of its SHA-1,
//!   little-endian;
//! - the permutations are drawn from numpy's `RandomState(seed)`: for legacy, per permutation
//!   `a = randint(1, 2^61 - 1)` then `b = randint(0, 2^61 - 1)` (uint64); for affine32 and
//!   affine64, all the `a`s (`randint(0, 2^(w-1)) * 2 + 1`) then all the `b`s
//!   (`randint(0, 2^w)`), w the width;
//! - legacy permutes `((a * h + b) mod 2^64) mod (2^61 - 1)`, keeping the low 32 bits (numpy's
//!   uint64 arithmetic wraps before the modulo: a quirk kept); affine permutes MurmurHash3's
//!   finaliser of h by `a * h + b`, wrapping at the width;
//! - each value is the minimum over the tokens, starting from the scheme's largest value (so a
//!   MinHash of no tokens is all maxima).

use sha1::{Digest, Sha1};

use crate::stats::numpy_legacy::RandomState;

/// datasketch's permutation schemes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// The default since 2.0: 32-bit affine permutations of the finalised hash.
    Affine32,
    /// 64-bit affine permutations of a 64-bit hash.
    Affine64,
    /// Before 2.0: `(a * h + b) mod (2^61 - 1)`, 32 bits kept.
    Legacy,
}

impl Scheme {
    pub fn parse(name: &str) -> Result<Scheme, String> {
        match name {
            "affine32" => Ok(Scheme::Affine32),
            "affine64" => Ok(Scheme::Affine64),
            "legacy" => Ok(Scheme::Legacy),
            other => Err(format!(
                "unknown MinHash scheme {other:?}: expected affine32 (the default), affine64 or legacy"
            )),
        }
    }
}

const MERSENNE_61: u64 = (1 << 61) - 1;

/// The most permutations pairmetrics draws (`minhash`, `lsh_params`, `dedup --num-perm`).
pub const MAX_NUM_PERM: usize = 1 << 16;

/// The permutations of one (num_perm, seed, scheme): build once, sign many token lists.
#[derive(Debug, Clone)]
pub struct MinHasher {
    scheme: Scheme,
    a: Vec<u64>,
    b: Vec<u64>,
    /// affine32's `a` and `b` as the u32s its arithmetic wraps at: a vector of them is 8 or
    /// 16 lanes wide.
    a32: Vec<u32>,
    b32: Vec<u32>,
}

impl MinHasher {
    pub fn new(num_perm: usize, seed: u32, scheme: Scheme) -> MinHasher {
        let mut rng = RandomState::new(seed);
        let (mut a, mut b) = (Vec::with_capacity(num_perm), Vec::with_capacity(num_perm));
        match scheme {
            Scheme::Legacy => {
                for _ in 0..num_perm {
                    a.push(rng.randint_u64(1, u128::from(MERSENNE_61)));
                    b.push(rng.randint_u64(0, u128::from(MERSENNE_61)));
                }
            }
            Scheme::Affine32 => {
                a.extend((0..num_perm).map(|_| u64::from(rng.randint_u32(0, 1 << 31)) * 2 + 1));
                b.extend((0..num_perm).map(|_| u64::from(rng.randint_u32(0, 1 << 32))));
            }
            Scheme::Affine64 => {
                a.extend((0..num_perm).map(|_| rng.randint_u64(0, 1 << 63).wrapping_mul(2) + 1));
                b.extend((0..num_perm).map(|_| rng.randint_u64(0, 1 << 64)));
            }
        }
        let narrow = |v: &[u64]| match scheme {
            Scheme::Affine32 => v.iter().map(|&x| x as u32).collect(),
            _ => Vec::new(),
        };
        MinHasher {
            scheme,
            a32: narrow(&a),
            b32: narrow(&b),
            a,
            b,
        }
    }

    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The signature of these tokens (`hashvalues`): u32 values widened for affine32 and
    /// legacy, u64 for affine64.
    pub fn signature<'t>(&self, tokens: impl IntoIterator<Item = &'t [u8]>, out: &mut Vec<u64>) {
        let largest = match self.scheme {
            Scheme::Affine64 => u64::MAX,
            _ => u64::from(u32::MAX),
        };
        out.clear();
        out.resize(self.a.len(), largest);
        // affine32's minima as u32s, widened into `out` at the end.
        let mut narrow = vec![u32::MAX; self.a32.len()];
        for token in tokens {
            // The first 8 bytes of the token's SHA-1, little-endian.
            let digest = DIGESTS.with_borrow_mut(|cache| cache.prefix(token));
            match self.scheme {
                Scheme::Legacy => {
                    let h = u64::from(digest as u32);
                    for ((v, &a), &b) in out.iter_mut().zip(&self.a).zip(&self.b) {
                        let p = (a.wrapping_mul(h).wrapping_add(b) % MERSENNE_61) & largest;
                        *v = (*v).min(p);
                    }
                }
                Scheme::Affine32 => {
                    let h = fmix32(digest as u32);
                    affine32_min(&mut narrow, &self.a32, &self.b32, h);
                }
                Scheme::Affine64 => {
                    let h = fmix64(digest);
                    for ((v, &a), &b) in out.iter_mut().zip(&self.a).zip(&self.b) {
                        *v = (*v).min(a.wrapping_mul(h).wrapping_add(b));
                    }
                }
            }
        }
        if self.scheme == Scheme::Affine32 {
            for (v, &n) in out.iter_mut().zip(&narrow) {
                *v = u64::from(n);
            }
        }
    }
}

/// `mins[i] = min(mins[i], a[i] * h + b[i])`, wrapping at 32 bits: the permutations of one
/// token, in AVX-512's or AVX2's lanes where the machine has them.
fn affine32_min(mins: &mut [u32], a: &[u32], b: &[u32], h: u32) {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F.
            return unsafe { affine32_min_avx512(mins, a, b, h) };
        }
        if is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { affine32_min_avx2(mins, a, b, h) };
        }
    }
    affine32_min_lanes(mins, a, b, h);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn affine32_min_avx512(mins: &mut [u32], a: &[u32], b: &[u32], h: u32) {
    affine32_min_lanes(mins, a, b, h);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn affine32_min_avx2(mins: &mut [u32], a: &[u32], b: &[u32], h: u32) {
    affine32_min_lanes(mins, a, b, h);
}

/// The loop the compiler vectorises for the features of the function it is inlined into.
#[inline(always)]
fn affine32_min_lanes(mins: &mut [u32], a: &[u32], b: &[u32], h: u32) {
    for ((v, &a), &b) in mins.iter_mut().zip(a).zip(b) {
        *v = (*v).min(a.wrapping_mul(h).wrapping_add(b));
    }
}

/// The first 8 bytes of a SHA-1 digest, little-endian (datasketch reads 4 or 8 of them).
fn sha1_prefix(token: &[u8]) -> u64 {
    let state = match token.len() {
        // One block, padded by hand: the hasher's buffering cost as much as the compression.
        0..56 => {
            let mut block = [0u8; 64];
            block[..token.len()].copy_from_slice(token);
            block[token.len()] = 0x80;
            block[56..].copy_from_slice(&(token.len() as u64 * 8).to_be_bytes());
            let mut state = SHA1_IV;
            sha1::compress(&mut state, &[block.into()]);
            state
        }
        _ => {
            let digest = Sha1::digest(token);
            let word =
                |i: usize| u32::from_be_bytes(digest[4 * i..4 * i + 4].try_into().expect("4"));
            [word(0), word(1), 0, 0, 0]
        }
    };
    let mut bytes = [0u8; 8];
    bytes[..4].copy_from_slice(&state[0].to_be_bytes());
    bytes[4..].copy_from_slice(&state[1].to_be_bytes());
    u64::from_le_bytes(bytes)
}

const SHA1_IV: [u32; 5] = [
    0x6745_2301,
    0xEFCD_AB89,
    0x98BA_DCFE,
    0x1032_5476,
    0xC3D2_E1F0,
];

/// Tokens of up to this many bytes are remembered with their digest.
const CACHED_LEN: usize = 22;

/// A recently hashed token and its digest's prefix (len 255: an empty slot).
#[derive(Clone, Copy)]
struct Slot {
    len: u8,
    bytes: [u8; CACHED_LEN],
    digest: u64,
}

/// The digests of short tokens seen lately, one per slot of a table indexed by a cheap hash of
/// the token: words repeat (a Zipf law), and a lookup costs a tenth of a SHA-1. A token is
/// compared whole, so the cache never changes a digest.
struct DigestCache {
    slots: Vec<Slot>,
}

const CACHE_SLOTS: usize = 1 << 15;

impl DigestCache {
    fn prefix(&mut self, token: &[u8]) -> u64 {
        if token.len() > CACHED_LEN {
            return sha1_prefix(token);
        }
        if self.slots.is_empty() {
            let empty = Slot {
                len: u8::MAX,
                bytes: [0; CACHED_LEN],
                digest: 0,
            };
            self.slots = vec![empty; CACHE_SLOTS];
        }
        let mut h = token.len() as u64;
        for chunk in token.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
        let slot = &mut self.slots[(h >> 49) as usize];
        if usize::from(slot.len) == token.len() && slot.bytes[..token.len()] == *token {
            return slot.digest;
        }
        let digest = sha1_prefix(token);
        slot.len = token.len() as u8;
        slot.bytes[..token.len()].copy_from_slice(token);
        slot.digest = digest;
        digest
    }
}

thread_local! {
    static DIGESTS: std::cell::RefCell<DigestCache> =
        const { std::cell::RefCell::new(DigestCache { slots: Vec::new() }) };
}

/// MurmurHash3's 32-bit finaliser.
fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// MurmurHash3's 64-bit finaliser.
fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signature(num_perm: usize, seed: u32, scheme: Scheme, tokens: &[&str]) -> Vec<u64> {
        let mut out = Vec::new();
        MinHasher::new(num_perm, seed, scheme)
            .signature(tokens.iter().map(|t| t.as_bytes()), &mut out);
        out
    }

    /// datasketch 2.0.0: `m = MinHash(num_perm=4, seed=1, scheme=...)`, `m.update(t.encode())`
    /// for each token, `m.hashvalues.tolist()`.
    #[test]
    fn as_datasketch_signs() {
        let tokens = ["the", "cat", "sat", "on", "the", "mat"];
        assert_eq!(signature(4, 1, Scheme::Affine32, &tokens), AFFINE32);
        assert_eq!(signature(4, 1, Scheme::Affine64, &tokens), AFFINE64);
        assert_eq!(signature(4, 1, Scheme::Legacy, &tokens), LEGACY);
        // No tokens: the scheme's maxima.
        assert_eq!(
            signature(2, 1, Scheme::Affine32, &[]),
            [u64::from(u32::MAX); 2]
        );
    }

    /// The vector paths compute what the plain loop computes (datasketch's own values are
    /// checked through whichever this machine takes, in tests/dedup.rs).
    #[test]
    fn every_lane_width_agrees() {
        let hasher = MinHasher::new(203, 7, Scheme::Affine32);
        let mut x = 0x2545_f491u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let (mut plain, mut fast) = (vec![u32::MAX; 203], vec![u32::MAX; 203]);
        for _ in 0..50 {
            let h = next();
            affine32_min_lanes(&mut plain, &hasher.a32, &hasher.b32, h);
            affine32_min(&mut fast, &hasher.a32, &hasher.b32, h);
        }
        assert_eq!(plain, fast);
        assert!(plain.iter().all(|&v| v < u32::MAX));
    }

    /// The hand-padded block, the hasher for long tokens, and the cache give SHA-1's digest.
    #[test]
    fn digest_prefixes_are_sha1s() {
        let mut cache = DigestCache { slots: Vec::new() };
        for len in [0, 1, 7, 8, 21, 22, 23, 54, 55, 56, 63, 64, 65, 200] {
            let token: Vec<u8> = (0..len).map(|i| (i * 37 + len) as u8).collect();
            let digest = Sha1::digest(&token);
            let want = u64::from_le_bytes(digest[..8].try_into().unwrap());
            assert_eq!(sha1_prefix(&token), want, "{len} bytes");
            assert_eq!(cache.prefix(&token), want, "{len} bytes, first");
            assert_eq!(cache.prefix(&token), want, "{len} bytes, cached");
        }
        // Tokens sharing a slot replace each other and are never confused.
        for i in 0..100_000u32 {
            let token = i.to_le_bytes();
            let digest = Sha1::digest(token);
            let want = u64::from_le_bytes(digest[..8].try_into().unwrap());
            assert_eq!(cache.prefix(&token), want);
        }
    }

    const AFFINE32: [u64; 4] = [224474114, 74494968, 85505115, 1403334846];
    const AFFINE64: [u64; 4] = [
        11454664964620893273,
        4118142295975483422,
        2495853278392988972,
        1034601219530768809,
    ];
    const LEGACY: [u64; 4] = [85460458, 833734781, 641877471, 1073183585];
}
