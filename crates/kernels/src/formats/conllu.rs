//! CoNLL-U, read one sentence at a time. Only the basic tree is kept: word lines (integer IDs)
//! give the tokens, heads, relations and UPOS; multiword-token ranges (`1-2`) and empty nodes
//! (`1.1`) are skipped, as the format defines them outside the basic tree; `#` lines are comments.

use std::io::BufRead;

use super::lines::{InputError, Lines};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sentence {
    /// 1-based line of the sentence's first word.
    pub line: u64,
    pub forms: Vec<String>,
    /// 1-based heads, 0 for a root.
    pub heads: Vec<i32>,
    pub deprels: Vec<String>,
    pub upos: Vec<String>,
}

pub struct Sentences<R> {
    lines: Lines<R>,
    buf: String,
}

impl<R: BufRead> Sentences<R> {
    pub fn new(lines: Lines<R>) -> Self {
        Sentences {
            lines,
            buf: String::new(),
        }
    }

    fn error(&self, message: impl Into<String>) -> InputError {
        InputError::at(self.lines.file(), self.lines.line_number(), message)
    }

    fn read_sentence(&mut self) -> Result<Option<Sentence>, InputError> {
        let mut sentence = Sentence::default();
        while self.lines.next_into(&mut self.buf)? {
            let line = self.buf.trim_end_matches([' ', '\t']);
            if line.is_empty() {
                if sentence.forms.is_empty() {
                    continue; // blank lines before a sentence or comments only
                }
                return self.finish(sentence).map(Some);
            }
            if line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split('\t').collect();
            if fields.len() != 10 {
                return Err(self.error(format!(
                    "expected 10 tab-separated fields, found {}",
                    fields.len()
                )));
            }
            let id = fields[0];
            if id.contains('-') || id.contains('.') {
                continue; // multiword token range or empty node
            }
            let expected = sentence.forms.len() + 1;
            if id.parse::<usize>().ok() != Some(expected) {
                return Err(self.error(format!("word ID `{id}`, expected {expected}")));
            }
            let head = fields[6]
                .parse::<i32>()
                .ok()
                .filter(|&h| h >= 0)
                .ok_or_else(|| self.error(format!("HEAD `{}` is not a word ID or 0", fields[6])))?;
            if sentence.forms.is_empty() {
                sentence.line = self.lines.line_number();
            }
            sentence.forms.push(fields[1].to_string());
            sentence.upos.push(fields[3].to_string());
            sentence.heads.push(head);
            sentence.deprels.push(fields[7].to_string());
        }
        if sentence.forms.is_empty() {
            Ok(None)
        } else {
            self.finish(sentence).map(Some)
        }
    }

    /// Heads must point inside the sentence; cycles are left to the metrics, which report them.
    fn finish(&self, sentence: Sentence) -> Result<Sentence, InputError> {
        let n = sentence.heads.len() as i32;
        if let Some(i) = sentence.heads.iter().position(|&h| h > n) {
            return Err(InputError::at(
                self.lines.file(),
                sentence.line,
                format!(
                    "in the sentence starting here, word {} has HEAD {}, past its {n} words",
                    i + 1,
                    sentence.heads[i]
                ),
            ));
        }
        Ok(sentence)
    }
}

impl<R: BufRead> Iterator for Sentences<R> {
    type Item = Result<Sentence, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.read_sentence().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::lines::from_str;

    const TEXT: &str = "# sent_id = 1\n# text = Il n'y en a plus.\n\
        1\tIl\til\tPRON\t_\t_\t5\tnsubj\t_\t_\n\
        2-3\tn'y\t_\t_\t_\t_\t_\t_\t_\t_\n\
        2\tn'\tne\tADV\t_\t_\t5\tadvmod\t_\t_\n\
        3\ty\ty\tPRON\t_\t_\t5\texpl\t_\t_\n\
        3.1\tx\tx\tX\t_\t_\t_\t_\t5:dep\t_\n\
        4\ten\ten\tPRON\t_\t_\t5\tobj\t_\t_\n\
        5\ta\tavoir\tVERB\t_\t_\t0\troot\t_\t_\n\
        6\tplus\tplus\tADV\t_\t_\t5\tadvmod\t_\t_\n\
        7\t.\t.\tPUNCT\t_\t_\t5\tpunct\t_\t_\n\n\
        1\tOui\toui\tINTJ\t_\t_\t0\troot\t_\t_\n";

    #[test]
    fn keeps_words_skips_ranges_and_empty_nodes() {
        let s: Vec<Sentence> = Sentences::new(from_str(TEXT))
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].forms, ["Il", "n'", "y", "en", "a", "plus", "."]);
        assert_eq!(s[0].heads, [5, 5, 5, 5, 0, 5, 5]);
        assert_eq!(s[0].deprels[4], "root");
        assert_eq!(s[0].upos[0], "PRON");
        assert_eq!((s[0].line, s[1].line), (3, 13));
        assert_eq!(s[1].forms, ["Oui"]);
    }

    #[test]
    fn errors_name_the_line() {
        let bad_head = TEXT.replace("6\tplus\tplus\tADV\t_\t_\t5", "6\tplus\tplus\tADV\t_\t_\t9");
        let err = Sentences::new(from_str(&bad_head))
            .next()
            .unwrap()
            .unwrap_err();
        assert_eq!(err.line, Some(3));
        assert!(err.message.contains("word 6 has HEAD 9"), "{}", err.message);
        let gap = TEXT.replace("4\ten", "5\ten");
        assert_eq!(
            Sentences::new(from_str(&gap))
                .next()
                .unwrap()
                .unwrap_err()
                .line,
            Some(8)
        );
        let fields = TEXT.replace("1\tOui\toui", "1\tOui");
        let mut it = Sentences::new(from_str(&fields));
        it.next();
        assert!(
            it.next()
                .unwrap()
                .unwrap_err()
                .message
                .contains("10 tab-separated fields")
        );
    }
}
