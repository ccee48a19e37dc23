//! Google Books Syntactic N-grams (Goldberg & Orwant 2013), `arcs` and `extended-arcs` files:
//!
//! ```text
//! head<TAB>syntactic-ngram<TAB>total_count<TAB>year,count<TAB>year,count...
//! ceased<TAB>ceased/VBD/ccomp/0 operations/NNS/dobj/1<TAB>12<TAB>1995,3<TAB>2000,9
//! ```
//!
//! Each token of the n-gram is `word/pos/label/head-index`, read from the right (a word may
//! contain `/`); head-index is 1-based within the n-gram, 0 for the n-gram's root, whose arc
//! leaves the n-gram and is skipped. The tags are the Penn Treebank's; [`upos`] maps them to
//! Universal POS tags, the tag level `dep_fit_pos` counts.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntacticNgramError(pub String);

impl fmt::Display for SyntacticNgramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SyntacticNgramError {}

/// One arc of an n-gram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arc<'a> {
    pub head: &'a str,
    pub head_tag: &'a str,
    pub dep: &'a str,
    pub dep_tag: &'a str,
    pub label: &'a str,
}

/// The Universal POS tag of a Penn Treebank tag, as the UD English treebanks convert them
/// (Petrov et al.'s mapping, refined: MD is AUX, NNP PROPN, TO and POS PART); `X` for a tag
/// outside the Treebank's set.
pub fn upos(ptb: &str) -> &'static str {
    match ptb {
        "NN" | "NNS" => "NOUN",
        "NNP" | "NNPS" => "PROPN",
        "VB" | "VBD" | "VBG" | "VBN" | "VBP" | "VBZ" => "VERB",
        "MD" => "AUX",
        "JJ" | "JJR" | "JJS" | "AFX" => "ADJ",
        "RB" | "RBR" | "RBS" | "WRB" => "ADV",
        "PRP" | "PRP$" | "WP" | "WP$" | "EX" => "PRON",
        "DT" | "PDT" | "WDT" => "DET",
        "IN" | "RP" => "ADP",
        "CC" => "CCONJ",
        "CD" => "NUM",
        "TO" | "POS" => "PART",
        "UH" => "INTJ",
        "SYM" | "$" | "#" => "SYM",
        "." | "," | ":" | "``" | "''" | "-LRB-" | "-RRB-" | "HYPH" | "NFP" => "PUNCT",
        _ => "X",
    }
}

/// Parse one line into its arcs (written into `arcs`) and return its total count.
pub fn parse_line<'a>(line: &'a str, arcs: &mut Vec<Arc<'a>>) -> Result<u64, SyntacticNgramError> {
    let fail = |message: String| Err(SyntacticNgramError(message));
    arcs.clear();
    let mut fields = line.split('\t');
    let (Some(_head), Some(ngram), Some(total)) = (fields.next(), fields.next(), fields.next())
    else {
        return fail(
            "expected head<TAB>syntactic-ngram<TAB>total_count[<TAB>year,count...]".into(),
        );
    };
    let Ok(total) = total.trim().parse::<u64>() else {
        return fail(format!(
            "total count `{total}` is not a non-negative integer"
        ));
    };
    // (word, tag, label, head index) of each token, in order.
    let mut tokens: Vec<(&str, &str, &str, usize)> = Vec::with_capacity(4);
    for token in ngram.split(' ').filter(|t| !t.is_empty()) {
        let mut parts = token.rsplitn(4, '/');
        let (Some(head), Some(label), Some(tag), Some(word)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return fail(format!("token `{token}` is not word/pos/label/head-index"));
        };
        let Ok(head) = head.parse::<usize>() else {
            return fail(format!(
                "token `{token}`: head index `{head}` is not a number"
            ));
        };
        if word.is_empty() {
            return fail(format!("token `{token}` has an empty word"));
        }
        tokens.push((word, tag, label, head));
    }
    if tokens.is_empty() {
        return fail("empty syntactic n-gram".into());
    }
    for &(word, tag, label, head) in &tokens {
        match head {
            0 => {}
            h if h <= tokens.len() => {
                let (head, head_tag, _, _) = tokens[h - 1];
                arcs.push(Arc {
                    head,
                    head_tag,
                    dep: word,
                    dep_tag: tag,
                    label,
                })
            }
            h => {
                return fail(format!(
                    "token `{word}` has head index {h} but the n-gram has {} tokens",
                    tokens.len()
                ));
            }
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_arcs_and_skips_the_root() {
        let mut arcs = Vec::new();
        let total = parse_line(
            "ceased\tceased/VBD/ccomp/0 operations/NNS/dobj/1\t12\t1995,3\t2000,9",
            &mut arcs,
        );
        assert_eq!(total, Ok(12));
        let arc = |head, head_tag, dep, dep_tag, label| Arc {
            head,
            head_tag,
            dep,
            dep_tag,
            label,
        };
        assert_eq!(arcs, [arc("ceased", "VBD", "operations", "NNS", "dobj")]);
        // Words with slashes; an extended arc with a functional marker.
        let total = parse_line(
            "and/or\tand/or/CC/cc/2 this/DT/det/0 in/IN/prep/2\t7",
            &mut arcs,
        );
        assert_eq!(total, Ok(7));
        assert_eq!(
            arcs,
            [
                arc("this", "DT", "and/or", "CC", "cc"),
                arc("this", "DT", "in", "IN", "prep")
            ]
        );
        assert_eq!(
            [
                upos("VBD"),
                upos("NNS"),
                upos("PRP$"),
                upos("-LRB-"),
                upos("GW")
            ],
            ["VERB", "NOUN", "PRON", "PUNCT", "X"]
        );
    }

    #[test]
    fn rejects_malformed_lines() {
        let mut arcs = Vec::new();
        for (line, error) in [
            (
                "a\ta/DT/det/0",
                "expected head<TAB>syntactic-ngram<TAB>total_count[<TAB>year,count...]",
            ),
            (
                "a\ta/DT/det/0\tmany",
                "total count `many` is not a non-negative integer",
            ),
            (
                "a\ta/DT/0\t3",
                "token `a/DT/0` is not word/pos/label/head-index",
            ),
            (
                "a\ta/DT/det/x\t3",
                "token `a/DT/det/x`: head index `x` is not a number",
            ),
            (
                "a\ta/DT/det/3 b/NN/nn/1\t3",
                "token `a` has head index 3 but the n-gram has 2 tokens",
            ),
            ("a\t \t3", "empty syntactic n-gram"),
        ] {
            assert_eq!(
                parse_line(line, &mut arcs),
                Err(SyntacticNgramError(error.into())),
                "{line}"
            );
        }
    }
}
