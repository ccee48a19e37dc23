//! ARPA back-off language models (as SRILM, KenLM's lmplz and IRSTLM write them), streamed
//! into an [`NgramModel`]:
//!
//! ```text
//! \data\
//! ngram 1=4
//! ngram 2=2
//!
//! \1-grams:
//! -1.0  </s>
//! -99   <s>   -0.5
//! ...
//! \2-grams:
//! -0.1  <s> a
//! \end\
//! ```
//!
//! Fields are separated by tabs or spaces. Every error names the file and the line. [`Writer`]
//! writes an estimated model as lmplz does.

use std::io::{BufRead, Write};

use super::lines::{InputError, Lines};
use crate::lm::ngram::{NgramModel, NgramModelBuilder};

/// The longest n-grams we read (KenLM's default build stops at 6).
pub const MAX_ORDER: usize = 16;

enum State {
    Preamble,
    Header,
    Section { order: usize, seen: u64 },
    End,
}

pub fn parse<R: BufRead>(lines: &mut Lines<R>) -> Result<NgramModel, InputError> {
    let mut line = String::new();
    let mut counts: Vec<u64> = Vec::new();
    let mut builder: Option<NgramModelBuilder> = None;
    let mut state = State::Preamble;
    while lines.next_into(&mut line)? {
        let fail = |message: String| InputError::at(lines.file(), lines.line_number(), message);
        let text = line.trim();
        match &mut state {
            State::Preamble if text == "\\data\\" => state = State::Header,
            State::Preamble => {}
            State::Header if text.is_empty() => {}
            State::Header if text.starts_with("ngram ") => {
                let count = text["ngram ".len()..].split_once('=').and_then(|(n, c)| {
                    Some((
                        n.trim().parse::<usize>().ok()?,
                        c.trim().parse::<u64>().ok()?,
                    ))
                });
                match count {
                    Some((n, _)) if n > MAX_ORDER => {
                        return Err(fail(format!("order {n}: at most {MAX_ORDER} is supported")));
                    }
                    Some((n, c)) if n == counts.len() + 1 => counts.push(c),
                    _ => {
                        return Err(fail(format!(
                            "expected `ngram {}=COUNT`, got `{text}`",
                            counts.len() + 1
                        )));
                    }
                }
            }
            State::Header | State::Section { .. } if text.starts_with('\\') => {
                if let State::Section { order, seen } = state {
                    check_count(&counts, order, seen).map_err(fail)?;
                }
                let next = match &state {
                    State::Section { order, .. } => order + 1,
                    _ => 1,
                };
                if text == "\\end\\" {
                    if next <= counts.len() {
                        return Err(fail(format!(
                            "\\end\\ before the {next}-grams the header announces"
                        )));
                    }
                    state = State::End;
                } else if text == format!("\\{next}-grams:") {
                    if next > counts.len() {
                        return Err(fail(format!(
                            "{next}-grams, but the header announces only {} orders",
                            counts.len()
                        )));
                    }
                    builder.get_or_insert_with(|| NgramModelBuilder::new(&counts));
                    state = State::Section {
                        order: next,
                        seen: 0,
                    };
                } else {
                    return Err(fail(format!(
                        "expected \\{next}-grams: or \\end\\, got `{text}`"
                    )));
                }
            }
            State::Header => {
                return Err(fail(format!(
                    "expected `ngram N=COUNT` or \\1-grams:, got `{text}`"
                )));
            }
            State::Section { .. } if text.is_empty() => {}
            State::Section { order, seen } => {
                let order = *order;
                let mut fields = text.split_whitespace();
                let number = |field: Option<&str>, what: &str| -> Result<f32, InputError> {
                    let field = field.ok_or_else(|| fail(format!("missing {what}")))?;
                    field
                        .parse::<f32>()
                        .map_err(|_| fail(format!("{what} `{field}` is not a number")))
                };
                let log_p = number(fields.next(), "log10 probability")?;
                // A probability is at most 1 (log10 0); NaN would poison every sum it enters.
                if !(log_p <= 0.0) {
                    return Err(fail(format!(
                        "log10 probability {log_p} is not a log probability (it must be <= 0)"
                    )));
                }
                let mut words = [""; MAX_ORDER];
                let mut got = 0;
                for (slot, word) in words.iter_mut().zip(fields.by_ref().take(order)) {
                    *slot = word;
                    got += 1;
                }
                if got < order {
                    return Err(fail(format!(
                        "a {order}-gram line needs {order} words, got {got}"
                    )));
                }
                let words = &words[..order];
                let backoff = match fields.next() {
                    None => 0.0,
                    field => number(field, "back-off weight")?,
                };
                if backoff.is_nan() || backoff == f32::INFINITY {
                    return Err(fail(format!(
                        "back-off weight {backoff} is not a log10 weight"
                    )));
                }
                if fields.next().is_some() {
                    return Err(fail(format!("too many fields for a {order}-gram line")));
                }
                let builder = builder.as_mut().expect("created with the first section");
                let added = if order == 1 {
                    builder.add_unigram(words[0], log_p, backoff)
                } else {
                    builder.add(words, log_p, backoff)
                };
                added.map_err(|e| fail(e.to_string()))?;
                *seen += 1;
            }
            State::End if text.is_empty() => {}
            State::End => return Err(fail(format!("text after \\end\\: `{text}`"))),
        }
    }
    match (state, builder) {
        (State::End, Some(builder)) => Ok(builder.build()),
        (State::Preamble, _) => Err(InputError {
            file: lines.file().into(),
            line: None,
            message: "no \\data\\ header: not an ARPA file".into(),
        }),
        _ => Err(InputError::at(
            lines.file(),
            lines.line_number(),
            "the file ends before \\end\\ (truncated?)",
        )),
    }
}

fn check_count(counts: &[u64], order: usize, seen: u64) -> Result<(), String> {
    let announced = counts[order - 1];
    if seen == announced {
        Ok(())
    } else {
        Err(format!(
            "the header announces {announced} {order}-grams but the section has {seen}"
        ))
    }
}

/// Writes a model as lmplz writes ARPA: the counts, then each order's n-grams,
/// `log10 p<TAB>words[<TAB>back-off]`, numbers as lmplz prints floats ([`shortest`]).
pub struct Writer<'a> {
    out: &'a mut dyn Write,
    text: String,
}

impl<'a> Writer<'a> {
    /// Start with the header: `counts[n - 1]` n-grams of each order n.
    pub fn new(out: &'a mut dyn Write, counts: &[u64]) -> Writer<'a> {
        let mut text = String::with_capacity(1 << 17);
        text.push_str("\\data\\\n");
        for (n, count) in (1..).zip(counts) {
            text.push_str(&format!("ngram {n}={count}\n"));
        }
        Writer { out, text }
    }

    /// Start the n-grams of order `n`.
    pub fn section(&mut self, n: usize) {
        self.text.push_str(&format!("\n\\{n}-grams:\n"));
    }

    pub fn gram<'w>(
        &mut self,
        log10_prob: f32,
        words: impl Iterator<Item = &'w str>,
        log10_backoff: Option<f32>,
    ) -> std::io::Result<()> {
        let text = &mut self.text;
        shortest(log10_prob, text);
        let mut separator = '\t';
        for word in words {
            text.push(separator);
            text.push_str(word);
            separator = ' ';
        }
        if let Some(backoff) = log10_backoff {
            text.push('\t');
            shortest(backoff, text);
        }
        text.push('\n');
        if text.len() > 1 << 16 {
            self.out.write_all(text.as_bytes())?;
            text.clear();
        }
        Ok(())
    }

    pub fn finish(mut self) -> std::io::Result<()> {
        self.text.push_str("\n\\end\\\n");
        self.out.write_all(self.text.as_bytes())
    }
}

/// `x` as KenLM prints a float (double-conversion's shortest single-precision digits): plain
/// decimals for exponents -6 to 20, else `1.5e-7`; `-inf` for a zero back-off.
pub fn shortest(x: f32, to: &mut String) {
    if !x.is_finite() {
        to.push_str(match x {
            f32::INFINITY => "inf",
            f32::NEG_INFINITY => "-inf",
            _ => "NaN",
        });
        return;
    }
    // Rust's shortest digits, `d.ddde-N`, written on the stack (this runs for every number of
    // a model of millions of n-grams).
    let mut scientific = StackText::default();
    std::fmt::Write::write_fmt(&mut scientific, format_args!("{:e}", x.abs()))
        .expect("an f32 fits 32 bytes");
    let (mantissa, exponent) = scientific
        .as_str()
        .split_once('e')
        .expect("{:e} writes an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let mut digits = StackText::default();
    for &b in mantissa.as_bytes().iter().filter(|&&b| b != b'.') {
        digits.push(b);
    }
    if is_tie(x, digits.as_str(), exponent) && digits.last() % 2 == 1 {
        // Two shortest decimals equally near x: double-conversion takes the even one, Rust
        // the upper one.
        digits.decrement_last();
    }
    let digits = digits.as_str();
    if x.is_sign_negative() {
        to.push('-');
    }
    if !(-6..21).contains(&exponent) {
        to.push_str(&digits[..1]);
        if digits.len() > 1 {
            to.push('.');
            to.push_str(&digits[1..]);
        }
        to.push('e');
        to.push_str(itoa::Buffer::new().format(exponent));
        return;
    }
    // Where the decimal point falls in the digits.
    let point = exponent + 1;
    if point <= 0 {
        to.push_str("0.");
        to.extend(std::iter::repeat_n('0', (-point) as usize));
        to.push_str(digits);
    } else if point as usize >= digits.len() {
        to.push_str(digits);
        to.extend(std::iter::repeat_n('0', point as usize - digits.len()));
    } else {
        to.push_str(&digits[..point as usize]);
        to.push('.');
        to.push_str(&digits[point as usize..]);
    }
}

/// Whether |x| lies exactly halfway between `digits` × 10^q (q = `exponent` − the number of
/// digits + 1) and the decimal one below it in the last digit, and that one reads back as `x`
/// too.
fn is_tie(x: f32, digits: &str, exponent: i32) -> bool {
    let k = digits.len();
    let d: u64 = digits.parse().expect("digits");
    // The one below must have as many digits (its last is not a 0 borrowing from the rest).
    if d % 10 == 0 || (k == 1 && d == 1) {
        return false;
    }
    // |x| = m 2^e exactly, and the midpoint is (2d - 1) 10^q / 2: equal when m 2^(e+1) =
    // (2d - 1) 2^q 5^q, that is when their powers of 2 and their odd parts are equal.
    let bits = x.abs().to_bits();
    let (m, e) = match bits >> 23 {
        0 => (bits & 0x7f_ffff, -149),
        biased => (bits & 0x7f_ffff | 1 << 23, biased as i32 - 150),
    };
    if m == 0 {
        return false;
    }
    let q = exponent - (k as i32 - 1);
    if m.trailing_zeros() as i32 + e + 1 != q {
        return false;
    }
    let odd = (m >> m.trailing_zeros()) as u128;
    let five = |power: i32| 5u128.checked_pow(power.unsigned_abs());
    let equal = match q {
        0.. => five(q).and_then(|p| p.checked_mul(2 * d as u128 - 1)) == Some(odd),
        _ => five(q).and_then(|p| p.checked_mul(odd)) == Some(2 * d as u128 - 1),
    };
    // Rare: read the one below back only then.
    equal && {
        let below = format!("{}e{q}", d - 1);
        below.parse::<f32>() == Ok(x.abs())
    }
}

/// A few ASCII bytes on the stack.
#[derive(Default)]
struct StackText {
    bytes: [u8; 32],
    len: usize,
}

impl StackText {
    fn push(&mut self, b: u8) {
        self.bytes[self.len] = b;
        self.len += 1;
    }

    fn last(&self) -> u8 {
        self.bytes[self.len - 1] - b'0'
    }

    fn decrement_last(&mut self) {
        self.bytes[self.len - 1] -= 1;
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).expect("ASCII")
    }
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.bytes.len() {
            return Err(std::fmt::Error);
        }
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::lines::from_str;

    /// [`shortest`] as first written: ties found by the exact decimal expansion of `x`.
    fn shortest_by_expansion(x: f32, to: &mut String) {
        if !x.is_finite() {
            to.push_str(match x {
                f32::INFINITY => "inf",
                f32::NEG_INFINITY => "-inf",
                _ => "NaN",
            });
            return;
        }
        let scientific = format!("{x:e}");
        let (mantissa, exponent) = scientific.split_once('e').expect("{:e} writes an exponent");
        let exponent: i32 = exponent.parse().expect("an integer exponent");
        let (sign, mantissa) = match mantissa.strip_prefix('-') {
            Some(m) => ("-", m),
            None => ("", mantissa),
        };
        let digits: String = mantissa.chars().filter(|&c| c != '.').collect();
        let digits = even_on_tie(x, digits, exponent);
        to.push_str(sign);
        if !(-6..21).contains(&exponent) {
            to.push_str(&digits[..1]);
            if digits.len() > 1 {
                to.push('.');
                to.push_str(&digits[1..]);
            }
            to.push_str(&format!("e{exponent}"));
            return;
        }
        // Where the decimal point falls in the digits.
        let point = exponent + 1;
        if point <= 0 {
            to.push_str("0.");
            to.extend(std::iter::repeat_n('0', (-point) as usize));
            to.push_str(&digits);
        } else if point as usize >= digits.len() {
            to.push_str(&digits);
            to.extend(std::iter::repeat_n('0', point as usize - digits.len()));
        } else {
            to.push_str(&digits[..point as usize]);
            to.push('.');
            to.push_str(&digits[point as usize..]);
        }
    }

    /// The shortest digits with a tie broken as double-conversion breaks it. When `x` lies exactly
    /// halfway between the two shortest decimals that read back as it (1.89453125 between 1.8945312
    /// and 1.8945313), double-conversion takes the one with an even last digit; Rust's shortest form
    /// takes the upper one.
    fn even_on_tie(x: f32, digits: String, exponent: i32) -> String {
        // A tie needs the decimal one below in the last digit to read back as `x` too: checked
        // first, as the exact expansion below costs a hundred times more.
        let k = digits.len();
        let last = digits.as_bytes()[k - 1];
        if last == b'0' {
            return digits;
        }
        let below = format!(
            "0.{}{}e{}",
            &digits[..k - 1],
            (last - 1) as char,
            exponent + 1
        );
        if below.parse::<f32>() != Ok(x.abs()) {
            return digits;
        }
        // An f32 is exact in an f64, and its decimal expansion ends within 150 digits.
        let exact = format!("{:.150e}", (x as f64).abs());
        let (mantissa, exact_exponent) = exact.split_once('e').expect("{:e} writes an exponent");
        if exact_exponent.parse::<i32>() != Ok(exponent) {
            return digits;
        }
        let exact: String = mantissa.chars().filter(|&c| c != '.').collect();
        let exact = exact.trim_end_matches('0');
        if exact.len() != k + 1 || !exact.ends_with('5') {
            return digits;
        }
        let mut below = exact.as_bytes()[..k].to_vec();
        match below[k - 1] - b'0' {
            even if even % 2 == 0 => {}
            9 => return digits,
            _ => below[k - 1] += 1,
        }
        String::from_utf8(below).expect("digits")
    }

    const MODEL: &str = "\\data\\\nngram 1=4\nngram 2=2\n\n\\1-grams:\n-99\t<s>\t-0.5\n-1.0\t</s>\n-0.6\ta\t-0.3\n-0.8 b -0.2\n\n\\2-grams:\n-0.1\t<s> a\n-0.2\ta b\n\n\\end\\\n";

    #[test]
    #[allow(clippy::approx_constant, clippy::excessive_precision)] // the values as lmplz prints them
    fn floats_as_kenlm_prints_them() {
        let cases: [(f32, &str); 14] = [
            // Halfway between two shortest decimals: the even one.
            (-1.89453125, "-1.8945312"),
            (-1.47265625, "-1.4726562"),
            (0.0, "0"),
            (-0.0, "-0"),
            (-0.30103, "-0.30103"),
            (-0.124077894, "-0.124077894"),
            (-12.5, "-12.5"),
            (12345.0, "12345"),
            (-0.000001, "-0.000001"),
            (-0.0000012345, "-0.0000012345"),
            (1e-7, "1e-7"),
            (-1.5e-7, "-1.5e-7"),
            (1e21, "1e21"),
            (f32::NEG_INFINITY, "-inf"),
        ];
        for (x, printed) in cases {
            let mut text = String::new();
            shortest(x, &mut text);
            assert_eq!(text, printed, "{x:e}");
        }
    }

    #[test]
    fn ties_found_without_the_decimal_expansion() {
        // Random floats, and dyadic ones (few bits, exact decimals: where ties are), printed by
        // the exact expansion and by the integer test.
        let mut random = crate::stats::random::SplitMix64::new(11);
        let mut ties = 0;
        let mut check = |x: f32| {
            let (mut fast, mut slow) = (String::new(), String::new());
            shortest(x, &mut fast);
            shortest_by_expansion(x, &mut slow);
            assert_eq!(fast, slow, "{x:e}");
            let mut plain = String::new();
            std::fmt::Write::write_fmt(&mut plain, format_args!("{x}")).unwrap();
            ties += (fast != plain && x.abs() < 1e7 && x.abs() > 1e-5) as usize;
        };
        for _ in 0..200_000 {
            check(f32::from_bits(random.next_u64() as u32));
        }
        for j in 0..40 {
            for _ in 0..5_000 {
                let i = random.below(1 << 24) as f32;
                check(-i / (1u64 << j) as f32);
                check(i * (1u64 << j) as f32);
            }
        }
        assert!(ties > 100, "{ties} ties");
    }

    #[test]
    fn reads_a_bigram_model() {
        let model = parse(&mut from_str(MODEL)).unwrap();
        assert_eq!(model.order(), 2);
        assert_eq!(model.counts(), &[4, 2]);
        let mut scratch = crate::lm::ngram::Scratch::default();
        assert!((model.sentence_log10(&["a", "b"], &mut scratch) + 1.5).abs() < 1e-6);
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            (
                MODEL.replace("ngram 2=2", "ngram 2=3"),
                "<text>:15: the header announces 3 2-grams but the section has 2",
            ),
            (
                MODEL.replace("-0.2\ta b", "-0.2\ta zz"),
                "<text>:13: `zz` is in an n-gram but not among the unigrams",
            ),
            (
                MODEL.replace("-0.8 b", "x b"),
                "<text>:9: log10 probability `x` is not a number",
            ),
            (
                MODEL.replace("-0.8 b", "nan b"),
                "<text>:9: log10 probability NaN is not a log probability (it must be <= 0)",
            ),
            (
                MODEL.replace("-0.8 b", "0.5 b"),
                "<text>:9: log10 probability 0.5 is not a log probability (it must be <= 0)",
            ),
            (
                MODEL.replace("\\end\\\n", ""),
                "<text>:14: the file ends before \\end\\ (truncated?)",
            ),
            (
                "hello\n".to_string(),
                "<text>: no \\data\\ header: not an ARPA file",
            ),
            // Found by fuzzing: a header announcing more n-grams than memory holds.
            (
                MODEL.replace("ngram 2=2", "ngram 2=18446744073709551615"),
                "<text>:15: the header announces 18446744073709551615 2-grams but the section has 2",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(&mut from_str(&text)).unwrap_err();
            assert_eq!(error.to_string(), expected);
        }
    }
}
