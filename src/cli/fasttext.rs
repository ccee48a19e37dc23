//! `pairmetrics fasttext`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use pairmetrics::pipeline::fasttext::{self, PredictOptions};

use super::Stdout;

/// Drop-in replacement for fastText 0.9.2's `predict` and `predict-prob`, byte for byte.
///
/// `pairmetrics fasttext predict-prob lid.176.ftz FILE 2` prints, per input line, the two most
/// likely labels with their probabilities, exactly as `fasttext predict-prob` prints them
/// (6 significant digits, labels best first). Any supervised model: `.bin`, or quantised `.ftz`;
/// hierarchical softmax, softmax, one-vs-all or negative sampling. Lines are split at spaces,
/// tabs, CR, VT, FF and NUL; bytes that are not UTF-8 are read as fastText reads them. A line
/// without input features (empty, or all unknown to a pruned model) prints an empty line.
///
/// Differences: a model that is not fastText's, truncated, or unsupervised is an error naming
/// the file (fastText aborts); K of 0 or below -1 is an error before anything is printed.
///
/// fastText's language identification model lid.176 (CC BY-SA 3.0) is downloadable from
/// https://fasttext.cc/docs/en/language-identification.html (lid.176.bin, lid.176.ftz).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Print the most likely labels of each line.
    Predict(PredictArgs),
    /// Print the most likely labels of each line, each followed by its probability.
    PredictProb(PredictArgs),
}

#[derive(clap::Args)]
struct PredictArgs {
    /// The model (.bin or .ftz).
    #[arg(value_name = "MODEL")]
    model: PathBuf,
    /// The text, a line per prediction (`-`: standard input).
    #[arg(value_name = "TEST-DATA")]
    input: PathBuf,
    /// How many labels per line (-1: every label). As fastText's std::stoi reads it.
    #[arg(value_name = "K", default_value = "1", value_parser = stoi, allow_negative_numbers = true)]
    k: i32,
    /// Print only labels at least this probable. As fastText's std::stof reads it.
    #[arg(value_name = "THRESHOLD", default_value = "0.0", value_parser = stof, allow_negative_numbers = true)]
    threshold: f32,
}

impl Args {
    pub fn run(self, stdout: &mut Stdout) -> Result<()> {
        let (args, print_prob) = match self.command {
            Command::Predict(args) => (args, false),
            Command::PredictProb(args) => (args, true),
        };
        let options = PredictOptions {
            model: args.model,
            input: args.input,
            k: args.k,
            threshold: args.threshold,
            print_prob,
        };
        let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut *stdout);
        fasttext::predict(&options, &mut out)?;
        out.flush()?;
        Ok(())
    }
}

/// `std::stoi`: leading blanks, a sign, then the longest run of digits; what follows is ignored.
fn stoi(text: &str) -> Result<i32, String> {
    let t = text.trim_start();
    let sign_len = usize::from(t.starts_with(['+', '-']));
    let digits = t[sign_len..].bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err("not an integer".into());
    }
    t[..sign_len + digits]
        .parse()
        .map_err(|_| "out of range".to_string())
}

/// `std::stof`: leading blanks, then the longest prefix that is a number.
fn stof(text: &str) -> Result<f32, String> {
    let t = text.trim_start();
    (1..=t.len())
        .rev()
        .filter(|&end| t.is_char_boundary(end))
        .find_map(|end| t[..end].parse::<f32>().ok())
        .ok_or_else(|| "not a number".to_string())
}

#[cfg(test)]
mod tests {
    use super::{stof, stoi};

    #[test]
    fn reads_numbers_as_cxx() {
        assert_eq!(stoi("2"), Ok(2));
        assert_eq!(stoi(" -1"), Ok(-1));
        assert_eq!(stoi("3abc"), Ok(3));
        assert!(stoi("abc").is_err());
        assert_eq!(stof("0.5"), Ok(0.5));
        assert_eq!(stof("0.25x"), Ok(0.25));
        assert_eq!(stof("1e-2"), Ok(0.01));
        assert!(stof("x").is_err());
    }
}
