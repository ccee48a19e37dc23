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
fn items(node: roxmltree::Node) -> Vec<Item> {
    let mut items: Vec<Item> = node.text().map(split).unwrap_or_default().into_iter().map(Item::Text).collect();
    for child in node.children().filter(|c| c.is_element()) {
        if child.tag_name().name() == "f" {
            let alternatives = child
                .children()
                .filter(|a| a.is_element() && a.tag_name().name() == "alt")
                .filter_map(|a| a.text().filter(|t| !t.is_empty()).map(split))
                .collect();
            let value = child.text().filter(|t| !t.is_empty()).map(split);
            items.push(Item::Fragment(Fragment { id: child.attribute("id").map(str::to_string), value, alternatives }));
        } else if let Some(text) = child.text() {
            items.extend(split(text).into_iter().map(Item::Text));
        }
        if let Some(tail) = child.tail().map(str::trim).filter(|t| !t.is_empty()) {
            items.push(Item::Text(tail.to_string()));
        }
    }
    items
}

/// Read a task file (plain, gzip or zstd).
pub fn read(path: &Path) -> Result<TaskFile> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut crate::formats::input::open(path)?, &mut text)
        .with_context(|| format!("{}: cannot read as UTF-8 text", path.display()))?;
    parse(&text).with_context(|| format!("{}", path.display()))
}

pub fn parse(text: &str) -> Result<TaskFile> {
    let doc = roxmltree::Document::parse(text).map_err(|e| anyhow::anyhow!("not well-formed XML: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "sentencepairs" {
        bail!("the root element is <{}>, not <sentencepairs> (a SemEval-2014 Task 5 file)", root.tag_name().name());
    }
    let attribute = |name: &str| root.attribute(name).map(str::to_string);
    let mut sentences = Vec::new();
    for s in root.descendants().filter(|n| n.is_element() && n.tag_name().name() == "s") {
        let part = |name: &str| s.children().filter(|c| c.is_element() && c.tag_name().name() == name).last().map(items);
        sentences.push(Sentence {
            id: s.attribute("id").map(str::to_string),
            line: doc.text_pos_at(s.range().start).row,
            input: part("input"),
            reference: part("ref"),
            output: part("output"),
        });
    }
    Ok(TaskFile { l1: attribute("L1"), l2: attribute("L2"), sentences })
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
        assert_eq!((file.l1.as_deref(), file.l2.as_deref()), (Some("en"), Some("es")));
        let s = &file.sentences[0];
        let input = s.input.as_ref().unwrap();
        assert_eq!(input[0], Item::Text("Quiero".into()));
        assert_eq!(input[2], Item::Text("se  puede .".into()), "a tail is one item, trimmed only at its ends");
        let out = Sentence::fragments(s.output.as_ref());
        assert_eq!(out[0].value, Some(vec!["saber".to_string(), "si".to_string()]));
        assert_eq!(out[0].alternatives, vec![vec!["saber".to_string()]], "an <alt> without text is no alternative");
        let t = &file.sentences[1];
        assert_eq!((t.id.clone(), t.line), (None, 3));
        let fragments = Sentence::fragments(t.input.as_ref());
        assert_eq!(fragments[0].value, Some(vec![]), "whitespace alone is an empty value");
        assert_eq!(fragments[1].id, None);
        assert_eq!(words(input).1, vec![(1, 3)]);
    }

    #[test]
    fn not_a_task_file() {
        assert!(parse("<a/>").unwrap_err().to_string().contains("not <sentencepairs>"));
        assert!(parse("<sentencepairs>").unwrap_err().to_string().contains("not well-formed"));
    }
}
