//! The `stem` module's stemmers: Snowball for the languages METEOR 1.5 compiles one in, or a
//! lookup table (METEOR's `-e`: lines `word count stem`, gzip-compressed or not).

use hashbrown::HashMap;
use std::io::BufRead;

use rust_stemmers::{Algorithm, Stemmer as Snowball};

use super::java;
use super::load::{LoadError, for_each_line};

pub enum Stemmer {
    Snowball(Snowball),
    /// Keyed by the word's Java hash, as METEOR's `LookupTableStemmer` is: words of equal hash
    /// share a stem. A word not in the table is its own stem.
    Table(HashMap<i32, Box<str>>),
}

impl std::fmt::Debug for Stemmer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stemmer::Snowball(_) => f.write_str("Stemmer::Snowball"),
            Stemmer::Table(table) => write!(f, "Stemmer::Table({} words)", table.len()),
        }
    }
}

/// The Snowball algorithm METEOR uses for a language (by METEOR's full language name).
pub fn snowball(language: &str) -> Option<Algorithm> {
    Some(match language {
        "english" => Algorithm::English,
        "french" => Algorithm::French,
        "german" => Algorithm::German,
        "spanish" => Algorithm::Spanish,
        "portuguese" => Algorithm::Portuguese,
        "russian" => Algorithm::Russian,
        "danish" => Algorithm::Danish,
        "romanian" => Algorithm::Romanian,
        "hungarian" => Algorithm::Hungarian,
        "turkish" => Algorithm::Turkish,
        "finnish" => Algorithm::Finnish,
        "dutch" => Algorithm::Dutch,
        "italian" => Algorithm::Italian,
        "norwegian" => Algorithm::Norwegian,
        "swedish" => Algorithm::Swedish,
        _ => return None,
    })
}

impl Stemmer {
    pub fn read_table(reader: impl BufRead, name: &str) -> Result<Self, LoadError> {
        let mut table = HashMap::new();
        for_each_line(reader, name, |number, line| {
            let fields: Vec<&str> = java::tokens(line).collect();
            let [word, count, stem, ..] = fields[..] else {
                return Err(LoadError::new(
                    name,
                    format!("line {number}: expected `word count stem`, found `{line}`"),
                ));
            };
            if count.parse::<i32>().is_err() {
                return Err(LoadError::new(
                    name,
                    format!("line {number}: the count `{count}` is not an integer"),
                ));
            }
            table.insert(java::string_hash(word), stem.into());
            Ok(())
        })?;
        Ok(Stemmer::Table(table))
    }

    pub fn stem<'a>(&'a self, word: &'a str) -> std::borrow::Cow<'a, str> {
        match self {
            Stemmer::Snowball(stemmer) => stemmer.stem(word),
            Stemmer::Table(table) => table
                .get(&java::string_hash(word))
                .map_or(word, |stem| stem)
                .into(),
        }
    }

    /// The Java hash of the word's stem: all the `stem` module compares.
    pub fn stem_hash(&self, word: &str) -> i32 {
        java::string_hash(&self.stem(word))
    }
}
