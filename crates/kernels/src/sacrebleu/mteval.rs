//! The regular expressions of the mteval scripts that BLEU's 13a tokeniser and TER's
//! normalisation share, as sacrebleu runs them (each `re.sub` in turn, left to right, without
//! overlaps), over UTF-8 bytes: every pattern matches ASCII characters only, and no byte of a
//! multi-byte character is ASCII, so one of its bytes stands for the whole character (a
//! non-digit) and the passes give the text the passes over characters give.

/// `re.sub(r'([\{-\~\[-\` -\&\(-\+\:-\@\/])', r' \1 ', text)` over the concatenated `parts`, into
/// `out`: a space before and after every ASCII punctuation but `' , - .`, and every space.
pub fn space_symbols(parts: &[&[u8]], out: &mut Vec<u8>) {
    out.clear();
    for part in parts {
        let mut rest = *part;
        while let Some(at) = rest.iter().position(|&c| is_symbol(c)) {
            out.extend_from_slice(&rest[..at]);
            out.extend([b' ', rest[at], b' ']);
            rest = &rest[at + 1..];
        }
        out.extend_from_slice(rest);
    }
}

/// The ASCII characters [`space_symbols`] puts spaces around: punctuation but `' , - .`, and
/// the space itself.
pub const fn is_symbol(c: u8) -> bool {
    matches!(c, b'{'..=b'~' | b'['..=b'`' | b' '..=b'&' | b'('..=b'+' | b':'..=b'@' | b'/')
}

/// Periods and commas split off unless between digits, and dashes after a digit:
/// `([^0-9])([\.,])` -> `\1 \2 `, then `([\.,])([^0-9])` -> ` \1 \2`, then `([0-9])(-)` -> `\1 \2 `.
/// The result is left in `text`; `work` is scratch.
pub fn split_periods_and_dashes(text: &mut Vec<u8>, work: &mut Vec<u8>) {
    let period = |c: u8| matches!(c, b'.' | b',');
    let next_period = |bytes: &[u8]| memchr::memchr2(b'.', b',', bytes);
    substitute_pairs(
        text,
        work,
        next_period,
        |x, y| !x.is_ascii_digit() && period(y),
        |x, y| [x, b' ', y, b' '],
    );
    substitute_pairs(
        work,
        text,
        next_period,
        |x, y| period(x) && !y.is_ascii_digit(),
        |x, y| [b' ', x, b' ', y],
    );
    substitute_pairs(
        text,
        work,
        |bytes| memchr::memchr(b'-', bytes),
        |x, y| x.is_ascii_digit() && y == b'-',
        |x, y| [x, b' ', y, b' '],
    );
    std::mem::swap(text, work);
}

/// `re.sub` of a pattern of two bytes, from `from` into `to`, for patterns that match only
/// pairs holding a special byte (`next_special` finds the first): scanning left to right, each
/// pair that matches is replaced and the scan goes on after it. Bytes before the byte ahead of
/// the next special one cannot start a match, so they are copied in one go.
fn substitute_pairs(
    from: &[u8],
    to: &mut Vec<u8>,
    next_special: impl Fn(&[u8]) -> Option<usize>,
    matches: impl Fn(u8, u8) -> bool,
    replace: impl Fn(u8, u8) -> [u8; 4],
) {
    to.clear();
    let mut i = 0;
    while i < from.len() {
        let next = next_special(&from[i..]).map_or(from.len(), |at| i + at);
        let quiet = next.saturating_sub(1).max(i);
        to.extend_from_slice(&from[i..quiet]);
        i = quiet;
        while i <= next && i < from.len() {
            match from.get(i + 1) {
                Some(&after) if matches(from[i], after) => {
                    to.extend(replace(from[i], after));
                    i += 2;
                }
                _ => {
                    to.push(from[i]);
                    i += 1;
                }
            }
        }
    }
}
