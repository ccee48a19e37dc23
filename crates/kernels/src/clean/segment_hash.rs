//! OpusFilter 3.3.1's `SegmentHasher` (`segment_hash.py`), which its `remove_duplicates` step
//! keys lines by: the chosen segments, preprocessed, joined with a newline, hashed with xxhash
//! over their UTF-16-LE bytes (seed 0) or kept as text.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::whitespace;

/// xxhash's functions by the names OpusFilter takes (`xx_64` is `xxh64`), or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Xxh32,
    Xxh64,
    Xxh3_64,
    Xxh3_128,
    /// The preprocessed text itself.
    None,
}

impl Method {
    pub fn parse(name: Option<&str>) -> Result<Method, String> {
        Ok(match name {
            None => Method::None,
            Some("xxh32") => Method::Xxh32,
            Some("xxh64" | "xx_64") => Method::Xxh64,
            Some("xxh3_64") => Method::Xxh3_64,
            Some("xxh3_128" | "xxh128") => Method::Xxh3_128,
            Some(other) => return Err(format!("Algorithm '{other}' not available from xxhash")),
        })
    }
}

/// A line's key: a hash, or its text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    Hash(u128),
    Text(String),
}

#[derive(Debug, Clone)]
pub struct SegmentHasher {
    /// The segments compared (sorted indices); None for all.
    pub compare: Option<Vec<usize>>,
    pub method: Method,
    pub lowercase: bool,
    pub letters_only: bool,
    pub letter_words_only: bool,
}

static NOT_LETTER: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[^\p{L}]").expect("a regex"));
static LETTERS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[\p{L}]+$").expect("a regex"));

impl SegmentHasher {
    /// `preprocess`: letter words only (whitespace tokens made of letters), letters only,
    /// lowercased, and newlines written as `\n`.
    fn preprocess(&self, segment: &str) -> String {
        let mut text = segment.to_string();
        if self.letter_words_only {
            let words: Vec<&str> = whitespace::split(&text)
                .filter(|t| LETTERS.is_match(t))
                .collect();
            text = words.join(" ");
        }
        if self.letters_only {
            text = NOT_LETTER.replace_all(&text, "").into_owned();
        }
        if self.lowercase {
            text = text.to_lowercase();
        }
        text.replace('\n', "\\n")
    }

    /// The hasher of remove_duplicates' defaults (every segment, xxh64) with the options
    /// named in `options`, comma-separated: `lowercase`, `letters_only`, `letter_words_only`.
    pub fn with_options(options: &str) -> Result<SegmentHasher, String> {
        let mut hasher = SegmentHasher {
            compare: None,
            method: Method::Xxh64,
            lowercase: false,
            letters_only: false,
            letter_words_only: false,
        };
        for option in options.split(',').map(str::trim).filter(|o| !o.is_empty()) {
            match option {
                "lowercase" => hasher.lowercase = true,
                "letters_only" => hasher.letters_only = true,
                "letter_words_only" => hasher.letter_words_only = true,
                other => {
                    return Err(format!(
                        "unknown option '{other}' (lowercase, letters_only, letter_words_only)"
                    ));
                }
            }
        }
        Ok(hasher)
    }

    /// The key of texts each read as a line of its own file, with the newline OpusFilter's
    /// reader keeps (`pair_hash(src, tgt)` is `key_of_texts(&[src, tgt])`).
    pub fn key_of_texts(&self, texts: &[&str]) -> Result<Key, String> {
        let plain = !(self.lowercase || self.letters_only || self.letter_words_only);
        if plain && self.compare.is_none() && self.method == Method::Xxh64 {
            return Ok(Key::Hash(u128::from(plain_xxh64(texts))));
        }
        let lines: Vec<String> = texts.iter().map(|t| format!("{t}\n")).collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        self.key(&lines)
    }

    /// `apply(segments)`: the key of one line of every file (each with its line end).
    pub fn key(&self, segments: &[&str]) -> Result<Key, String> {
        let chosen: Vec<&str> = match &self.compare {
            None => segments.to_vec(),
            Some(indices) => indices
                .iter()
                .map(|&i| {
                    segments.get(i).copied().ok_or_else(|| {
                        format!(
                            "The input indices {indices:?} in the compare parameter do not match \
                             input of length {}",
                            segments.len()
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        let joined = chosen
            .iter()
            .map(|s| self.preprocess(s))
            .collect::<Vec<_>>()
            .join("\n");
        let utf16 = || -> Vec<u8> { joined.encode_utf16().flat_map(u16::to_le_bytes).collect() };
        Ok(match self.method {
            Method::None => Key::Text(joined),
            Method::Xxh32 => Key::Hash(u128::from(twox_hash::XxHash32::oneshot(0, &utf16()))),
            Method::Xxh64 => Key::Hash(u128::from(twox_hash::XxHash64::oneshot(0, &utf16()))),
            Method::Xxh3_64 => Key::Hash(u128::from(twox_hash::XxHash3_64::oneshot(&utf16()))),
            Method::Xxh3_128 => Key::Hash(twox_hash::XxHash3_128::oneshot(&utf16())),
        })
    }
}

/// `key_of_texts` without preprocessing, xxh64, every text: the UTF-16-LE bytes of the texts,
/// each with its newline written as `\n` (as `preprocess` writes every newline), joined by a
/// newline, hashed in a reused buffer (deduplicating a billion rows made two keys a row, and
/// the allocations of the general path cost more than the hash).
fn plain_xxh64(texts: &[&str]) -> u64 {
    thread_local! {
        static UTF16: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    UTF16.with_borrow_mut(|bytes| {
        bytes.clear();
        let mut push = |c: char| {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                bytes.extend_from_slice(&unit.to_le_bytes());
            }
        };
        for (i, text) in texts.iter().enumerate() {
            if i > 0 {
                push('\n');
            }
            for c in text.chars().chain(['\n']) {
                match c {
                    '\n' => {
                        push('\\');
                        push('n');
                    }
                    c => push(c),
                }
            }
        }
        twox_hash::XxHash64::oneshot(0, bytes)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick path for plain keys is the general one.
    #[test]
    fn plain_keys_take_a_quick_path_to_the_same_hash() {
        let hasher = SegmentHasher::with_options("").unwrap();
        let general = |texts: &[&str]| {
            let lines: Vec<String> = texts.iter().map(|t| format!("{t}\n")).collect();
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            hasher.key(&lines).unwrap()
        };
        for texts in [
            &["a", "b"][..],
            &["", ""],
            &["line\nbreak", "é😀\u{2028}x"],
            &["only one"],
            &["\n", "\r\n", "\t"],
        ] {
            assert_eq!(
                hasher.key_of_texts(texts).unwrap(),
                general(texts),
                "{texts:?}"
            );
        }
    }

    #[test]
    fn hashes_as_xxhash_over_utf16() {
        let hasher = SegmentHasher {
            compare: None,
            method: Method::Xxh64,
            lowercase: false,
            letters_only: false,
            letter_words_only: false,
        };
        // xxhash.xxh64_intdigest("a\\n\nb\\n".encode("utf_16_le"))
        let key = hasher.key(&["a\n", "b\n"]).unwrap();
        assert_eq!(key, Key::Hash(11464924875237293657));
        // xxhash.xxh3_128_intdigest, xxh32_intdigest and xxh3_64_intdigest of "x" in UTF-16-LE
        for (method, want) in [
            (
                Method::Xxh3_128,
                153252608744072597324176343228111891885u128,
            ),
            (Method::Xxh32, 3716071296),
            (Method::Xxh3_64, 11999568128206417325),
        ] {
            let hasher = SegmentHasher {
                method,
                ..hasher.clone()
            };
            assert_eq!(hasher.key(&["x"]).unwrap(), Key::Hash(want), "{method:?}");
        }
    }
}
