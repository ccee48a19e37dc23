//! SemEval-2014 Task 5 (L2 writing assistant) XML: task data, gold files and system runs, read
//! as the task's own reader (`libsemeval2014task5/format.py`, with lxml) reads them, because its
//! official scorer compares what that reader builds:
//!
//! - `<sentencepairs L1=".." L2="..">` holds `<s id="..">` sentences, each with an `<input>`
//!   (L2 context around an L1 fragment `<f id="..">`), a `<ref>` (the same with the L2
//!   translation, gold files) and an `<output>` (a system's answer, run files);
//! - an element's own text is split on whitespace into words, but the text after a child
//!   element (its *tail*) is kept as one item, trimmed: `a <f>b</f> c d` is `a`, the fragment,
//!   `c d`. The scorer's input check compares these items, so it is sensitive to spaces inside
//!   a tail;
//! - a fragment's value is the words of its own text (before any child); no text, or an empty
//!   one, is no value (whitespace alone is an empty value); its `<alt>` children with text are
//!   its alternatives (out-of-five answers, or the gold's accepted variants);
//! - a missing `id` is the reader's default, `1` as a number, which equals no written id.

use std::fmt;
use std::path::Path;

use anyhow::{Context, Result, bail};

use rust_stemmers::Stemmer;

use super::xml::escape;
use crate::pair::word_accuracy::{Rules, normalize, pair_score};
use crate::storage::Output;

/// An id attribute; `None` when absent (the reader's numeric default, equal only to itself).
pub type Id = Option<String>;

#[derive(Debug, Clone)]
pub struct Fragment {
    pub id: Id,
    /// Its words; None when the element has no text.
    pub value: Option<Vec<String>>,
    /// The words of each `<alt>` with text, in order.
    pub alternatives: Vec<Vec<String>>,
}

/// As the task's reader compares fragments (so the scorer's input check does): by id and
/// value, not alternatives.
impl PartialEq for Fragment {
    fn eq(&self, other: &Self) -> bool {
        (&self.id, &self.value) == (&other.id, &other.value)
    }
}

impl Eq for Fragment {}

/// An item of a sentence: a word (or a whole tail, see the module's notes) or a fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Text(String),
    Fragment(Fragment),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    pub id: Id,
    /// Where it starts in the file, for messages.
    pub line: u32,
    pub input: Option<Vec<Item>>,
    pub reference: Option<Vec<Item>>,
    pub output: Option<Vec<Item>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskFile {
    pub l1: Option<String>,
    pub l2: Option<String>,
    pub sentences: Vec<Sentence>,
}

/// How an id is written in messages: as the reader would print it.
pub struct ShowId<'a>(pub &'a Id);

impl fmt::Display for ShowId<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_deref().unwrap_or("1"))
    }
}

impl Sentence {
    /// The fragments of `items` by id, in order of appearance; a repeated id keeps its last
    /// fragment in the first one's place (as a Python dict does).
    pub fn fragments(items: Option<&Vec<Item>>) -> Vec<&Fragment> {
        let mut found: Vec<&Fragment> = Vec::new();
        for item in items.into_iter().flatten() {
            if let Item::Fragment(f) = item {
                match found.iter_mut().find(|g| g.id == f.id) {
                    Some(slot) => *slot = f,
                    None => found.push(f),
                }
            }
        }
        found
    }
}

/// Every word of `items`, the fragments' values in place (tails split into words); with the
/// (start, end) word span of each fragment, in order.
pub fn words(items: &[Item]) -> (Vec<String>, Vec<(usize, usize)>) {
    let (mut words, mut spans) = (Vec::new(), Vec::new());
    for item in items {
        match item {
            Item::Text(text) => words.extend(text.split_whitespace().map(str::to_string)),
            Item::Fragment(f) => {
                let start = words.len();
                words.extend(f.value.iter().flatten().cloned());
                spans.push((start, words.len()));
            }
        }
    }
    (words, spans)
}

fn split(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// The items of an `<input>`, `<ref>` or `<output>` element.
/// A fragment holds its words and `<alt>` children; anything else in it (a nested `<f>`) would
/// be dropped by the task's reader without a word, so it is an error naming its line.
fn items(node: roxmltree::Node) -> Result<Vec<Item>> {
    let mut items: Vec<Item> = node
        .text()
        .map(split)
        .unwrap_or_default()
        .into_iter()
        .map(Item::Text)
        .collect();
    for child in node.children().filter(|c| c.is_element()) {
        if child.tag_name().name() == "f" {
            if let Some(inner) = child
                .children()
                .find(|c| c.is_element() && c.tag_name().name() != "alt")
            {
                let line = node.document().text_pos_at(inner.range().start).row;
                bail!(
                    "line {line}: <{}> inside a fragment <f>: a fragment holds only its words and <alt> elements",
                    inner.tag_name().name()
                );
            }
            let alternatives = child
                .children()
                .filter(|a| a.is_element() && a.tag_name().name() == "alt")
                .filter_map(|a| a.text().filter(|t| !t.is_empty()).map(split))
                .collect();
            let value = child.text().filter(|t| !t.is_empty()).map(split);
            items.push(Item::Fragment(Fragment {
                id: child.attribute("id").map(str::to_string),
                value,
                alternatives,
            }));
        } else if let Some(text) = child.text() {
            items.extend(split(text).into_iter().map(Item::Text));
        }
        if let Some(tail) = child.tail().map(str::trim).filter(|t| !t.is_empty()) {
            items.push(Item::Text(tail.to_string()));
        }
    }
    Ok(items)
}

/// Read a task file (plain, gzip or zstd).
pub fn read(path: &Path) -> Result<TaskFile> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut crate::formats::input::open(path)?, &mut text)
        .with_context(|| format!("{}: cannot read as UTF-8 text", path.display()))?;
    parse(&text).with_context(|| format!("{}", path.display()))
}

pub fn parse(text: &str) -> Result<TaskFile> {
    let doc = roxmltree::Document::parse(text)
        .map_err(|e| anyhow::anyhow!("not well-formed XML: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "sentencepairs" {
        bail!(
            "the root element is <{}>, not <sentencepairs> (a SemEval-2014 Task 5 file)",
            root.tag_name().name()
        );
    }
    let attribute = |name: &str| root.attribute(name).map(str::to_string);
    let mut sentences = Vec::new();
    for s in root
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "s")
    {
        let part = |name: &str| {
            s.children()
                .filter(|c| c.is_element() && c.tag_name().name() == name)
                .last()
                .map(items)
                .transpose()
        };
        sentences.push(Sentence {
            id: s.attribute("id").map(str::to_string),
            line: doc.text_pos_at(s.range().start).row,
            input: part("input")?,
            reference: part("ref")?,
            output: part("output")?,
        });
    }
    Ok(TaskFile {
        l1: attribute("L1"),
        l2: attribute("L2"),
        sentences,
    })
}

/// Where a fragment is: its sentence, its id, the languages, the input's words (the L1
/// fragment's in place) and the fragment's (start, end) word span in them.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub sentence_id: String,
    pub fragment_id: String,
    pub l1: Option<String>,
    pub l2: Option<String>,
    pub input: Vec<String>,
    pub span: (usize, usize),
}

/// One fragment of a sentence's input, with the reference's and the output's fragment of the
/// same id when the file has them (what `import semeval2014t5` writes as a row).
#[derive(Debug, Clone)]
pub struct FragmentRow {
    pub place: Place,
    pub fragment: Option<Vec<String>>,
    pub reference: Option<Vec<String>>,
    pub reference_fragment: Option<Fragment>,
    pub output: Option<Fragment>,
}

/// The rows of a file, in file order (sentences, then fragments by first appearance).
pub fn fragment_rows(file: &TaskFile) -> Vec<FragmentRow> {
    let mut rows = Vec::new();
    for s in &file.sentences {
        let Some(input) = &s.input else { continue };
        let (input_words, spans) = words(input);
        let fragment_items: Vec<&Fragment> = input
            .iter()
            .filter_map(|i| {
                if let Item::Fragment(f) = i {
                    Some(f)
                } else {
                    None
                }
            })
            .collect();
        let (references, outputs) = (
            Sentence::fragments(s.reference.as_ref()),
            Sentence::fragments(s.output.as_ref()),
        );
        let find = |fragments: &[&Fragment], id: &Option<String>| {
            fragments.iter().find(|f| &f.id == id).map(|f| (*f).clone())
        };
        for f in Sentence::fragments(Some(input)) {
            // A repeated id keeps its last fragment (as the task's reader): its span too.
            let k = fragment_items
                .iter()
                .rposition(|g| g.id == f.id)
                .expect("a fragment of this input");
            rows.push(FragmentRow {
                place: Place {
                    sentence_id: ShowId(&s.id).to_string(),
                    fragment_id: ShowId(&f.id).to_string(),
                    l1: file.l1.clone(),
                    l2: file.l2.clone(),
                    input: input_words.clone(),
                    span: spans[k],
                },
                fragment: f.value.clone(),
                reference: s.reference.as_ref().map(|r| words(r).0),
                reference_fragment: find(&references, &f.id),
                output: find(&outputs, &f.id),
            });
        }
    }
    rows
}

/// One fragment of a run: where it is, and what the system answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub place: Place,
    /// The answer's words; None leaves the fragment unanswered.
    pub answer: Option<Vec<String>>,
    /// Out-of-five alternatives (the scorer's `-a` reads the first four).
    pub alternatives: Vec<Vec<String>>,
}

impl TaskFile {
    /// A run file from answers in file order: consecutive answers with the same sentence id
    /// and input are one sentence's fragments. `Err` names the row (1-based) that cannot be
    /// placed: a span outside its input, or overlapping another of its sentence.
    pub fn run(answers: &[Answer]) -> Result<TaskFile, String> {
        let mut sentences = Vec::new();
        let mut start = 0;
        while start < answers.len() {
            let first = &answers[start];
            let end = start
                + answers[start..]
                    .iter()
                    .take_while(|a| {
                        a.place.sentence_id == first.place.sentence_id
                            && a.place.input == first.place.input
                    })
                    .count();
            let mut fragments: Vec<(usize, &Answer)> =
                (start..end).map(|i| (i, &answers[i])).collect();
            fragments.sort_by_key(|(_, a)| a.place.span);
            let mut reached = 0;
            for &(i, a) in &fragments {
                let (s, e) = a.place.span;
                if s > e || e > a.place.input.len() {
                    return Err(format!(
                        "row {} (1-based): fragment span {s}..{e} is outside its input of {} words",
                        i + 1,
                        a.place.input.len()
                    ));
                }
                if s < reached {
                    return Err(format!(
                        "row {} (1-based): fragment span {s}..{e} overlaps another fragment of sentence {}",
                        i + 1,
                        a.place.sentence_id
                    ));
                }
                reached = e;
            }
            let spans: Vec<(usize, usize)> = fragments.iter().map(|(_, a)| a.place.span).collect();
            let id = |a: &Answer| Some(a.place.fragment_id.clone());
            let input = items_around(&first.place.input, &spans, |k| {
                let a = fragments[k].1;
                Fragment {
                    id: id(a),
                    value: Some(a.place.input[a.place.span.0..a.place.span.1].to_vec()),
                    alternatives: Vec::new(),
                }
            });
            let output = items_around(&first.place.input, &spans, |k| {
                let a = fragments[k].1;
                Fragment {
                    id: id(a),
                    value: a.answer.clone(),
                    alternatives: a.alternatives.clone(),
                }
            });
            sentences.push(Sentence {
                id: Some(first.place.sentence_id.clone()),
                line: 0,
                input: Some(input),
                reference: None,
                output: Some(output),
            });
            start = end;
        }
        let language =
            |pick: fn(&Answer) -> &Option<String>| answers.first().and_then(|a| pick(a).clone());
        Ok(TaskFile {
            l1: language(|a| &a.place.l1),
            l2: language(|a| &a.place.l2),
            sentences,
        })
    }
}

/// The items of a sentence whose words are `words` with fragments at `spans` (sorted, disjoint):
/// the words before the first fragment one by one, then each fragment, then the words up to the
/// next fragment as one tail, as [`parse`] reads what [`write`] writes.
pub fn items_around(
    words: &[String],
    spans: &[(usize, usize)],
    mut fragment: impl FnMut(usize) -> Fragment,
) -> Vec<Item> {
    let first = spans.first().map_or(words.len(), |s| s.0);
    let mut items: Vec<Item> = words[..first].iter().cloned().map(Item::Text).collect();
    for (k, &(_, end)) in spans.iter().enumerate() {
        items.push(Item::Fragment(fragment(k)));
        let next = spans.get(k + 1).map_or(words.len(), |s| s.0);
        if end < next {
            items.push(Item::Text(words[end..next].join(" ")));
        }
    }
    items
}

/// The best score of the answer (and, out of five, its first four alternatives) against the
/// reference and every alternative of it.
pub fn fragment_score(
    answer: &Fragment,
    gold: &Fragment,
    out_of_five: bool,
    rules: Rules,
    stemmer: Option<&Stemmer>,
) -> f64 {
    let answers = std::iter::once(answer.value.as_deref().unwrap_or_default()).chain(
        answer
            .alternatives
            .iter()
            .take(if out_of_five { 4 } else { 0 })
            .map(Vec::as_slice),
    );
    let golds: Vec<&[String]> = std::iter::once(gold.value.as_deref().unwrap_or_default())
        .chain(gold.alternatives.iter().map(Vec::as_slice))
        .collect();
    let prepare = |tokens: &[String]| -> Vec<String> {
        let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
        let kept = normalize(&tokens, rules);
        match stemmer {
            // NLTK's Snowball stemmers lowercase the word first.
            Some(s) => kept
                .iter()
                .map(|t| s.stem(&t.to_lowercase()).into_owned())
                .collect(),
            None => kept.iter().map(|t| t.to_string()).collect(),
        }
    };
    let golds: Vec<Vec<String>> = golds.into_iter().map(prepare).collect();
    let mut best = f64::NEG_INFINITY;
    for answer in answers {
        let answer = prepare(answer);
        let a: Vec<&str> = answer.iter().map(String::as_str).collect();
        for gold in &golds {
            let g: Vec<&str> = gold.iter().map(String::as_str).collect();
            best = best.max(pair_score(&a, &g, rules.ignore_case));
        }
    }
    best
}

/// Write a task file to `out` (a path or URL), atomically: it appears whole or not at all.
pub fn write_file(file: &TaskFile, out: &Path) -> Result<()> {
    let mut output = Output::create(out)?;
    write(file, &mut output).with_context(|| format!("writing {}", out.display()))?;
    output.commit()
}

/// Write `file` as the task's XML (what the official scorer reads as a run: `<input>` and
/// `<output>`, or a gold file with `<ref>`). Items are separated by one space; a fragment
/// without value is an empty `<f/>`, an empty value `<f> </f>`.
pub fn write(file: &TaskFile, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let mut text = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sentencepairs");
    for (name, value) in [("L1", &file.l1), ("L2", &file.l2)] {
        if let Some(value) = value {
            text.push_str(&format!(" {name}=\"{}\"", escape(value)));
        }
    }
    text.push_str(">\n");
    for s in &file.sentences {
        text.push_str("<s");
        id_attribute(&mut text, &s.id);
        text.push_str(">\n");
        for (tag, items) in [
            ("input", &s.input),
            ("ref", &s.reference),
            ("output", &s.output),
        ] {
            let Some(items) = items else { continue };
            text.push_str(&format!("  <{tag}>"));
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    text.push(' ');
                }
                match item {
                    Item::Text(t) => text.push_str(&escape(t)),
                    Item::Fragment(f) => write_fragment(&mut text, f),
                }
            }
            text.push_str(&format!("</{tag}>\n"));
        }
        text.push_str("</s>\n");
        if text.len() > 1 << 16 {
            out.write_all(text.as_bytes())?;
            text.clear();
        }
    }
    text.push_str("</sentencepairs>\n");
    out.write_all(text.as_bytes())
}

fn write_fragment(text: &mut String, f: &Fragment) {
    text.push_str("<f");
    id_attribute(text, &f.id);
    match &f.value {
        None if f.alternatives.is_empty() => return text.push_str("/>"),
        None => text.push('>'),
        Some(words) if words.is_empty() => text.push_str("> "),
        Some(words) => text.push_str(&format!(">{}", escape(&words.join(" ")))),
    }
    for alt in &f.alternatives {
        text.push_str(&format!("<alt>{}</alt>", escape(&alt.join(" "))));
    }
    text.push_str("</f>");
}

fn id_attribute(text: &mut String, id: &Id) {
    if let Some(id) = id {
        text.push_str(&format!(" id=\"{}\"", escape(id)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tails_stay_whole_and_fragments_keep_their_alternatives() {
        let file = parse(
            r#"<sentencepairs L1="en" L2="es"><s id="7"><input>Quiero  <f id="1">know whether</f>  se  puede .</input>
            <output>Quiero <f id="1">saber si<alt confidence="1">saber</alt><alt/></f> se  puede .</output></s>
            <s><input>x <f id="2"> </f><f>y</f></input></s></sentencepairs>"#,
        )
        .unwrap();
        assert_eq!(
            (file.l1.as_deref(), file.l2.as_deref()),
            (Some("en"), Some("es"))
        );
        let s = &file.sentences[0];
        let input = s.input.as_ref().unwrap();
        assert_eq!(input[0], Item::Text("Quiero".into()));
        assert_eq!(
            input[2],
            Item::Text("se  puede .".into()),
            "a tail is one item, trimmed only at its ends"
        );
        let out = Sentence::fragments(s.output.as_ref());
        assert_eq!(
            out[0].value,
            Some(vec!["saber".to_string(), "si".to_string()])
        );
        assert_eq!(
            out[0].alternatives,
            vec![vec!["saber".to_string()]],
            "an <alt> without text is no alternative"
        );
        let t = &file.sentences[1];
        assert_eq!((t.id.clone(), t.line), (None, 3));
        let fragments = Sentence::fragments(t.input.as_ref());
        assert_eq!(
            fragments[0].value,
            Some(vec![]),
            "whitespace alone is an empty value"
        );
        assert_eq!(fragments[1].id, None);
        assert_eq!(words(input).1, vec![(1, 3)]);
    }

    #[test]
    fn a_fragment_inside_a_fragment_is_an_error_naming_its_line() {
        let text = "<sentencepairs><s>\n<input>x <f>a <f>b</f> c</f></input></s></sentencepairs>";
        let error = parse(text).unwrap_err().to_string();
        assert_eq!(
            error,
            "line 2: <f> inside a fragment <f>: a fragment holds only its words and <alt> elements"
        );
    }

    #[test]
    fn not_a_task_file() {
        assert!(
            parse("<a/>")
                .unwrap_err()
                .to_string()
                .contains("not <sentencepairs>")
        );
        assert!(
            parse("<sentencepairs>")
                .unwrap_err()
                .to_string()
                .contains("not well-formed")
        );
    }
    #[test]
    fn what_write_writes_parse_reads_back() {
        let text = r#"<sentencepairs L1="en" L2="es"><s id="7"><input>Quiero  <f id="1">know &amp; "whether"</f>  se  puede .</input>
            <ref>Quiero <f id="1">saber si<alt>saber</alt></f> se puede .</ref>
            <output>Quiero <f id="1">saber si<alt confidence="1">saber</alt><alt/></f> se  puede .</output></s>
            <s><input>x <f id="2"> </f><f>y</f> &lt;z&gt;</input><output><f id="2"/><f><alt>a</alt></f></output></s></sentencepairs>"#;
        let file = parse(text).unwrap();
        let mut written = Vec::new();
        write(&file, &mut written).unwrap();
        let back = parse(std::str::from_utf8(&written).unwrap()).unwrap();
        let alternatives = |f: &TaskFile| -> Vec<Vec<Vec<String>>> {
            f.sentences
                .iter()
                .flat_map(|s| Sentence::fragments(s.output.as_ref()))
                .map(|f| f.alternatives.clone())
                .collect()
        };
        let lines_apart = |f: TaskFile| TaskFile {
            sentences: f
                .sentences
                .into_iter()
                .map(|s| Sentence { line: 0, ..s })
                .collect(),
            ..f
        };
        assert_eq!(alternatives(&back), alternatives(&file));
        assert_eq!(lines_apart(back), lines_apart(file));
    }

    #[test]
    fn items_around_fragments_are_the_items_parse_reads() {
        let words: Vec<String> = "a b x y c d z".split(' ').map(String::from).collect();
        let fragment = |k: usize| Fragment {
            id: Some(k.to_string()),
            value: Some(vec![]),
            alternatives: vec![],
        };
        let items = items_around(&words, &[(2, 4), (6, 7)], fragment);
        let text = |t: &str| Item::Text(t.to_string());
        assert_eq!(
            items,
            vec![
                text("a"),
                text("b"),
                Item::Fragment(fragment(0)),
                text("c d"),
                Item::Fragment(fragment(1))
            ]
        );
    }
}
