//! The IUCL L2 writing assistant (Rudnick et al., SemEval-2014 Task 5): candidate translations
//! of an L1 fragment, each spliced into its L2 sentence and described by the features a
//! log-linear model ranks it with.
//!
//! - **Candidates**, in back-off order: the phrase table's translations of the fragment (best
//!   direct probability first); when it has none, synthetic phrases (`metrics::synthetic`) of
//!   the table's pieces; when there are none, a bilingual dictionary's entries for the whole
//!   fragment (uniform probabilities unless it gives some); when it has none, synthetic phrases
//!   whose pieces the table lacks are the dictionary's (`le chat noir` → `the cat black` with
//!   `noir` only in the dictionary); when there are none either, the fragment itself,
//!   untranslated. Each step tries the fragment as written, then lowercased.
//! - **Features** of a candidate in its sentence: the LM's log10 of the whole spliced sentence,
//!   log10 of the direct p(tgt | src) and inverse p(src | tgt), and the dependency fitness of the
//!   candidate's tokens at form and at UPOS level (SPEC §4) in a parse of the spliced sentence.
//! - **A parse** of a spliced sentence is either given (a parser's output for exactly those
//!   tokens) or projected from a parse of the input ([`project`]).
//!
//! Plain Rust: no Arrow here.

use std::collections::HashMap;

use crate::lm::ngram::{self, NgramModel};
use crate::pair::dep_fit::{Formula, Parse, TripleIndex, dep_fit};
use crate::pair::true_score::PhraseIndex;
use crate::smt::synthetic::{Lexicon, Limits, synthetic_phrases};

/// Where a candidate comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Table,
    Synthetic,
    Dictionary,
    /// A synthetic phrase with pieces from the dictionary.
    SyntheticDictionary,
    /// The fragment itself: nothing translates it.
    Copy,
}

impl Origin {
    pub fn name(self) -> &'static str {
        match self {
            Origin::Table => "table",
            Origin::Synthetic => "synthetic",
            Origin::Dictionary => "dictionary",
            Origin::SyntheticDictionary => "synthetic+dictionary",
            Origin::Copy => "copy",
        }
    }

    /// Every origin, in back-off order.
    pub const ALL: [Origin; 5] = [
        Origin::Table,
        Origin::Synthetic,
        Origin::Dictionary,
        Origin::SyntheticDictionary,
        Origin::Copy,
    ];
}

#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub tokens: Vec<String>,
    /// (direct p(tgt | src), inverse p(src | tgt)); None for a copy, which has no evidence.
    pub probabilities: Option<(f64, f64)>,
    pub origin: Origin,
}

/// A bilingual dictionary: source phrase → its translations, with a probability when given.
#[derive(Debug, Default)]
pub struct Dictionary {
    entries: HashMap<Vec<String>, Vec<(Vec<String>, Option<f64>)>>,
}

impl Dictionary {
    pub fn add(&mut self, source: Vec<String>, target: Vec<String>, p: Option<f64>) {
        let translations = self.entries.entry(source).or_default();
        if !translations.iter().any(|(t, _)| *t == target) {
            translations.push((target, p));
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The translations of `phrase`, in the order added.
    fn candidates(&self, phrase: &[&str]) -> Vec<Candidate> {
        self.translations(phrase)
            .into_iter()
            .map(|(tokens, direct, inverse)| Candidate {
                tokens: tokens.to_vec(),
                probabilities: Some((direct, inverse)),
                origin: Origin::Dictionary,
            })
            .collect()
    }
}

impl Lexicon for Dictionary {
    /// p = 1/k for each of the k translations when an entry gives none (both directions: a
    /// dictionary says nothing of either).
    fn translations(&self, phrase: &[&str]) -> Vec<(&[String], f64, f64)> {
        let key: Vec<String> = phrase.iter().map(|w| w.to_string()).collect();
        let translations = self
            .entries
            .get(&key)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let uniform = 1.0 / translations.len() as f64;
        translations
            .iter()
            .map(|(tokens, p)| {
                let p = p.unwrap_or(uniform);
                (tokens.as_slice(), p, p)
            })
            .collect()
    }
}

/// Candidates for `fragment` within `limits` (see the module's back-off order); never none
/// for a non-empty fragment.
pub fn candidates(
    fragment: &[&str],
    table: Option<&PhraseIndex>,
    dictionary: Option<&Dictionary>,
    limits: Limits,
) -> Vec<Candidate> {
    let lowercased: Vec<String> = fragment.iter().map(|w| w.to_lowercase()).collect();
    let lowercased: Vec<&str> = lowercased.iter().map(String::as_str).collect();
    let variants = if lowercased == fragment {
        vec![fragment]
    } else {
        vec![fragment, &lowercased[..]]
    };
    let first_found = |find: &dyn Fn(&[&str]) -> Vec<Candidate>| {
        variants
            .iter()
            .map(|phrase| find(phrase))
            .find(|found| !found.is_empty())
    };
    // The table's entries, else synthetic phrases of its pieces.
    if table.is_some()
        && let Some(found) =
            first_found(&|phrase| from_pieces(table, None, phrase, limits, Origin::Synthetic))
    {
        return found;
    }
    if let Some(dictionary) = dictionary {
        // The dictionary's entries for the whole fragment.
        let whole = |phrase: &[&str]| {
            let mut found = dictionary.candidates(phrase);
            found.truncate(limits.candidates);
            found
        };
        if let Some(found) = first_found(&whole) {
            return found;
        }
        // Synthetic phrases again, the pieces the table lacks from the dictionary.
        let mixed = |phrase: &[&str]| {
            let lexicon = Some(dictionary as &dyn Lexicon);
            from_pieces(table, lexicon, phrase, limits, Origin::SyntheticDictionary)
        };
        if let Some(found) = first_found(&mixed) {
            return found;
        }
    }
    if fragment.is_empty() || limits.candidates == 0 {
        return Vec::new();
    }
    vec![Candidate {
        tokens: fragment.iter().map(|w| w.to_string()).collect(),
        probabilities: None,
        origin: Origin::Copy,
    }]
}

/// The table's own translations of the whole phrase when it has some, else synthetic ones
/// (of origin `synthetic`): `synthetic_phrases` lists the one-piece split first.
fn from_pieces(
    table: Option<&PhraseIndex>,
    lexicon: Option<&dyn Lexicon>,
    phrase: &[&str],
    limits: Limits,
    synthetic: Origin,
) -> Vec<Candidate> {
    let listed = synthetic_phrases(table, lexicon, phrase, limits);
    let whole = listed.iter().take_while(|c| c.split.len() == 1).count();
    let (keep, origin) = if whole > 0 {
        (whole, Origin::Table)
    } else {
        (listed.len(), synthetic)
    };
    listed
        .into_iter()
        .take(keep)
        .map(|c| Candidate {
            tokens: c.tokens,
            probabilities: Some((c.direct, c.inverse)),
            origin,
        })
        .collect()
}

/// `input` with `candidate` in place of the fragment at `span`.
pub fn splice<'a>(input: &[&'a str], span: (usize, usize), candidate: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::with_capacity(input.len() - (span.1 - span.0) + candidate.len());
    out.extend_from_slice(&input[..span.0]);
    out.extend_from_slice(candidate);
    out.extend_from_slice(&input[span.1..]);
    out
}

/// A dependency parse: 1-based heads (0 = root), relations and UPOS tags, one per token.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Arcs {
    pub heads: Vec<i32>,
    pub deprels: Vec<String>,
    pub upos: Vec<String>,
}

/// The relation and tag a projected token gets when the projection cannot know them.
pub const UNKNOWN_DEPREL: &str = "dep";
pub const UNKNOWN_UPOS: &str = "X";

/// Project `context` (a parse of the input, the fragment at `span`) onto the sentence where
/// `m` candidate tokens replace the fragment, so a candidate can be scored without a parser:
///
/// - the context's tokens keep their arcs (positions after the fragment shift);
/// - when the candidate has as many tokens as the fragment, token i takes the arc, relation and
///   tag of the fragment's token i (arcs inside the fragment stay inside);
/// - otherwise the candidate's head token takes the arc, relation and tag of the fragment's
///   head (its token whose head is outside it, the first if several), and the other candidate
///   tokens attach to it with relation `dep` and tag `X`; the head token sits where the
///   fragment's head sits, proportionally (the last token for a one-word fragment, the usual
///   head of a noun phrase in the task's L2s); context tokens that depended on a fragment
///   token depend on the candidate's head token.
///
/// None when the span is empty or outside the parse, or `m` is 0.
pub fn project(context: &Arcs, span: (usize, usize), m: usize) -> Option<Arcs> {
    let (s, e) = span;
    let n = context.heads.len();
    if s >= e || e > n || m == 0 || context.deprels.len() != n || context.upos.len() != n {
        return None;
    }
    let k = e - s;
    let inside = |h: i32| h > 0 && (s..e).contains(&(h as usize - 1));
    let fragment_head = (s..e).find(|&t| !inside(context.heads[t])).unwrap_or(s);
    let candidate_head = if k == m {
        None
    } else if k == 1 {
        Some(m - 1)
    } else {
        Some(((fragment_head - s) * (m - 1) + (k - 1) / 2) / (k - 1))
    };
    // A head (1-based, 0 = root) of the context in the new sentence.
    let moved = |h: i32| -> i32 {
        if h == 0 {
            0
        } else if inside(h) {
            match candidate_head {
                None => h,
                Some(c) => (s + c + 1) as i32,
            }
        } else if (h as usize) > e {
            h - k as i32 + m as i32
        } else {
            h
        }
    };
    let mut out = Arcs::default();
    let mut push = |head: i32, deprel: &str, upos: &str| {
        out.heads.push(head);
        out.deprels.push(deprel.to_string());
        out.upos.push(upos.to_string());
    };
    for t in 0..s {
        push(
            moved(context.heads[t]),
            &context.deprels[t],
            &context.upos[t],
        );
    }
    for j in 0..m {
        match candidate_head {
            None => push(
                moved(context.heads[s + j]),
                &context.deprels[s + j],
                &context.upos[s + j],
            ),
            Some(c) if c == j => {
                let f = fragment_head;
                push(
                    moved(context.heads[f]),
                    &context.deprels[f],
                    &context.upos[f],
                );
            }
            Some(c) => push((s + c + 1) as i32, UNKNOWN_DEPREL, UNKNOWN_UPOS),
        }
    }
    for t in e..n {
        push(
            moved(context.heads[t]),
            &context.deprels[t],
            &context.upos[t],
        );
    }
    Some(out)
}

/// The features of one candidate in its sentence; None where the resource it needs is absent
/// (or, for fitness, the candidate's tokens have no arc).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Features {
    pub lm: Option<f64>,
    pub direct: Option<f64>,
    pub inverse: Option<f64>,
    pub pmi_lex: Option<f64>,
    pub pmi_pos: Option<f64>,
}

/// The IUCL feature set, in its `params.txt` order.
pub const FEATURE_NAMES: [&str; 5] = ["lm", "direct", "inverse", "pmi_lex", "pmi_pos"];

impl Features {
    pub fn values(&self) -> [Option<f64>; 5] {
        [
            self.lm,
            self.direct,
            self.inverse,
            self.pmi_lex,
            self.pmi_pos,
        ]
    }
}

/// What features are computed with.
#[derive(Clone, Copy, Default)]
pub struct Scorers<'a> {
    pub lm: Option<&'a NgramModel>,
    pub triples: Option<&'a TripleIndex>,
    pub formula: Formula,
}

/// The features of `candidate` spliced as `sentence` (its tokens at `span`), with `parse` the
/// sentence's parse when there is one.
pub fn features(
    scorers: &Scorers,
    sentence: &[&str],
    span: (usize, usize),
    candidate: &Candidate,
    parse: Option<&Arcs>,
    scratch: &mut ngram::Scratch,
) -> Features {
    let lm = scorers
        .lm
        .map(|model| model.sentence_log10(sentence, scratch));
    let (direct, inverse) = match candidate.probabilities {
        Some((d, i)) => (Some(d.log10()), Some(i.log10())),
        None => (None, None),
    };
    let (mut pmi_lex, mut pmi_pos) = (None, None);
    if let (Some(triples), Some(arcs)) = (scorers.triples, parse) {
        let deprels: Vec<&str> = arcs.deprels.iter().map(String::as_str).collect();
        let upos: Vec<&str> = arcs.upos.iter().map(String::as_str).collect();
        let phrase: Vec<usize> = (span.0..span.1).collect();
        let fit = |words: &[&str], counts| {
            let parse = Parse {
                words,
                heads: &arcs.heads,
                deprels: &deprels,
            };
            parse.check().ok()?;
            dep_fit(counts, &parse, &phrase, scorers.formula).ok()
        };
        pmi_lex = fit(sentence, &triples.form);
        pmi_pos = fit(&upos, &triples.upos);
    }
    Features {
        lm,
        direct,
        inverse,
        pmi_lex,
        pmi_pos,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pair::true_score::{Directions, Identity, PhraseIndexBuilder};

    fn arcs(heads: &[i32], deprels: &[&str], upos: &[&str]) -> Arcs {
        Arcs {
            heads: heads.to_vec(),
            deprels: deprels.iter().map(|s| s.to_string()).collect(),
            upos: upos.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn candidates_back_off_from_table_to_synthetic_to_dictionary_to_copy() {
        let mut b = PhraseIndexBuilder::new(Identity::UnlessInTable);
        let d = |direct, inverse| Directions { direct, inverse };
        b.add_with_directions(&["la", "maison"], &["the", "house"], 0.5, d(0.6, 0.5));
        b.add_with_directions(&["la", "maison"], &["the", "home"], 0.2, d(0.3, 0.2));
        b.add_with_directions(&["la"], &["the"], 0.9, d(0.9, 0.8));
        b.add_with_directions(&["bleue"], &["blue"], 0.9, d(0.7, 0.9));
        let table = b.build();
        let mut dictionary = Dictionary::default();
        dictionary.add(vec!["chat".into()], vec!["cat".into()], None);
        dictionary.add(vec!["chat".into()], vec!["tomcat".into()], None);
        let words = |c: &[Candidate]| -> Vec<(String, Origin)> {
            c.iter().map(|c| (c.tokens.join(" "), c.origin)).collect()
        };
        let house = candidates(
            &["La", "maison"],
            Some(&table),
            Some(&dictionary),
            Limits::at_most(20),
        );
        assert_eq!(
            words(&house),
            vec![
                ("the house".into(), Origin::Table),
                ("the home".into(), Origin::Table)
            ],
            "lowercased"
        );
        assert_eq!(house[0].probabilities, Some((0.6, 0.5)));
        let blue = candidates(&["la", "bleue"], Some(&table), None, Limits::at_most(20));
        assert_eq!(words(&blue), vec![("the blue".into(), Origin::Synthetic)]);
        assert!((blue[0].probabilities.unwrap().0 - 0.63).abs() < 1e-12);
        let cat = candidates(
            &["chat"],
            Some(&table),
            Some(&dictionary),
            Limits::at_most(20),
        );
        assert_eq!(
            words(&cat),
            vec![
                ("cat".into(), Origin::Dictionary),
                ("tomcat".into(), Origin::Dictionary)
            ]
        );
        assert_eq!(cat[1].probabilities, Some((0.5, 0.5)), "uniform");
        let copy = candidates(
            &["Zut"],
            Some(&table),
            Some(&dictionary),
            Limits::at_most(20),
        );
        assert_eq!(
            (words(&copy), copy[0].probabilities),
            (vec![("Zut".into(), Origin::Copy)], None)
        );
        assert_eq!(
            candidates(&["la", "maison"], Some(&table), None, Limits::at_most(1)).len(),
            1,
            "at most max"
        );
    }

    #[test]
    fn dictionary_words_fill_the_pieces_the_table_lacks() {
        let mut b = PhraseIndexBuilder::new(Identity::UnlessInTable);
        let d = |direct, inverse| Directions { direct, inverse };
        b.add_with_directions(&["le"], &["the"], 0.9, d(0.9, 0.8));
        b.add_with_directions(&["chat"], &["cat"], 0.8, d(0.8, 0.7));
        b.add_with_directions(&["chat"], &["tomcat"], 0.1, d(0.1, 0.1));
        let table = b.build();
        let mut dictionary = Dictionary::default();
        dictionary.add(vec!["noir".into()], vec!["black".into()], None);
        dictionary.add(vec!["chat".into()], vec!["puss".into()], None);
        let found = candidates(
            &["le", "chat", "noir"],
            Some(&table),
            Some(&dictionary),
            Limits::at_most(20),
        );
        let texts: Vec<String> = found.iter().map(|c| c.tokens.join(" ")).collect();
        // The table's pieces where it has them (chat is never puss), in the phrase's order.
        assert_eq!(texts, ["the cat black", "the tomcat black"]);
        assert!(
            found
                .iter()
                .all(|c| c.origin == Origin::SyntheticDictionary)
        );
        assert_eq!(found[0].probabilities, Some((0.9 * 0.8, 0.8 * 0.7)));
        // Without a table, the dictionary's pieces alone.
        let alone = candidates(
            &["chat", "noir"],
            None,
            Some(&dictionary),
            Limits::at_most(20),
        );
        assert_eq!(alone[0].tokens, ["puss", "black"]);
        // A whole entry of the dictionary comes before a synthetic phrase using it.
        dictionary.add(
            vec!["le".into(), "chat".into(), "noir".into()],
            vec!["the black cat".into()],
            None,
        );
        let whole = candidates(
            &["le", "chat", "noir"],
            Some(&table),
            Some(&dictionary),
            Limits::at_most(20),
        );
        assert_eq!(whole[0].tokens, ["the black cat"]);
        assert_eq!(whole[0].origin, Origin::Dictionary);
    }

    #[test]
    fn a_projection_keeps_the_context_and_attaches_the_candidate_as_the_fragment_was() {
        // "I saw [la maison] today": saw is the root, maison (head of the fragment) its object,
        // la depends on maison, today on saw.
        let context = arcs(
            &[2, 0, 4, 2, 2],
            &["nsubj", "root", "det", "obj", "advmod"],
            &["PRON", "VERB", "DET", "NOUN", "ADV"],
        );
        // Same length: copied position by position.
        assert_eq!(project(&context, (2, 4), 2).unwrap(), context);
        // One word for two: it takes the fragment head's arc.
        let one = project(&context, (2, 4), 1).unwrap();
        assert_eq!(
            one,
            arcs(
                &[2, 0, 2, 2],
                &["nsubj", "root", "obj", "advmod"],
                &["PRON", "VERB", "NOUN", "ADV"]
            )
        );
        // Three words for two: the head sits at the end (the fragment's head is its last
        // word), the others attach to it; today moves right.
        let three = project(&context, (2, 4), 3).unwrap();
        assert_eq!(
            three,
            arcs(
                &[2, 0, 5, 5, 2, 2],
                &["nsubj", "root", "dep", "dep", "obj", "advmod"],
                &["PRON", "VERB", "X", "X", "NOUN", "ADV"]
            )
        );
        // A one-word fragment that heads the sentence: the candidate's last token is the root
        // and the context's dependents follow it.
        let root = arcs(
            &[2, 0, 2],
            &["nsubj", "root", "obj"],
            &["PRON", "VERB", "PRON"],
        );
        assert_eq!(
            project(&root, (1, 2), 2).unwrap(),
            arcs(
                &[3, 3, 0, 3],
                &["nsubj", "dep", "root", "obj"],
                &["PRON", "X", "VERB", "PRON"]
            )
        );
        assert_eq!(project(&context, (2, 2), 1), None);
        assert_eq!(project(&context, (4, 6), 1), None);
        assert_eq!(project(&context, (2, 4), 0), None);
    }

    #[test]
    fn features_are_log10s_and_fitness_of_the_candidate_tokens() {
        let mut triples = TripleIndex::default();
        triples.form.add("saw", "house", "obj", 2);
        triples.form.add("saw", "it", "obj", 2);
        triples.upos.add("VERB", "NOUN", "obj", 4);
        let sentence = ["I", "saw", "the", "house"];
        let parse = arcs(
            &[2, 0, 4, 2],
            &["nsubj", "root", "det", "obj"],
            &["PRON", "VERB", "DET", "NOUN"],
        );
        let candidate = Candidate {
            tokens: vec!["the".into(), "house".into()],
            probabilities: Some((0.1, 0.01)),
            origin: Origin::Table,
        };
        let scorers = Scorers {
            lm: None,
            triples: Some(&triples),
            formula: Formula::Paper,
        };
        let f = features(
            &scorers,
            &sentence,
            (2, 4),
            &candidate,
            Some(&parse),
            &mut ngram::Scratch::default(),
        );
        assert_eq!((f.lm, f.direct, f.inverse), (None, Some(-1.0), Some(-2.0)));
        // FIT(house): its arcs saw->house (SIM = 2*2 / (4 + 2)) and house->the (no counts: 0);
        // FIT(the): its one arc, 0. The phrase: the mean of both.
        let house = (2.0 * 2.0 / (4.0 + 2.0) + 0.0) / 2.0;
        let the = 0.0;
        assert_eq!(f.pmi_lex, Some((house + the) / 2.0));
        assert_eq!(
            f.pmi_pos,
            Some((1.0 / 2.0 + 0.0) / 2.0),
            "upos: VERB->NOUN obj is 1, DET arc 0"
        );
        let none = features(
            &Scorers::default(),
            &sentence,
            (2, 4),
            &candidate,
            Some(&parse),
            &mut ngram::Scratch::default(),
        );
        assert_eq!((none.lm, none.pmi_lex, none.pmi_pos), (None, None, None));
    }
}
