//! `pairmetrics atools`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, bail};
use pairmetrics::align::symmetrize::Command;
use pairmetrics::pipeline::atools;

use super::Stdout;

/// Drop-in replacement for fast_align's atools: symmetrise two word alignments, byte for byte.
///
/// `pairmetrics atools -i FORWARD -j REVERSE -c grow-diag-final-and` prints, per line, the
/// symmetrised links as atools prints them (sorted by source, then target). Commands:
/// intersect, union, grow-diag, grow-diag-final, grow-diag-final-and (Koehn et al. 2003), and
/// convert and invert of one file. A file may be `-` (standard input), plain, gzip or zstd. A
/// malformed link is an error naming the file and line. Not here: display and fmeasure.
#[derive(clap::Args)]
pub struct Args {
    /// The first alignment file (e.g. fast_align's forward links).
    #[arg(short = 'i', long = "input_1", value_name = "FILE1.AL")]
    first: PathBuf,
    /// The second (e.g. fast_align -r's links), for the commands of two operands.
    #[arg(short = 'j', long = "input_2", value_name = "FILE2.AL")]
    second: Option<PathBuf>,
    /// What to compute.
    #[arg(short = 'c', long = "command", value_name = "COMMAND")]
    command: String,
}

impl Args {
    pub fn run(self, stdout: &mut Stdout) -> Result<()> {
        let Some(command) = Command::parse(&self.command) else {
            bail!(
                "Don't understand command: {} (atools' commands here: {})",
                self.command,
                Command::NAMES.join(" ")
            );
        };
        match (command.operands(), &self.second) {
            (2, None) => bail!("Command '{}' requires two alignment files", self.command),
            (1, Some(_)) => bail!(
                "Command '{}' requires only one alignment file",
                self.command
            ),
            _ => {}
        }
        if self.first.as_os_str() == "-" && self.second.as_deref() == Some("-".as_ref()) {
            bail!(
                "-i and -j are both `-`: standard input can be one of them; give the other as a file"
            );
        }
        let options = atools::AtoolsOptions {
            command,
            first: self.first,
            second: self.second,
        };
        let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut *stdout);
        atools::run(&options, &mut out)?;
        out.flush()?;
        Ok(())
    }
}
