//! `pairmetrics atools`: a drop-in for fast_align's `atools -c COMMAND`: the same Pharaoh lines,
//! byte for byte, from `align::symmetrize`.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Result, bail};

use crate::align::symmetrize::{self, Command, Grid};
use crate::formats::input::{self, Lines};

#[derive(Debug, Clone)]
pub struct AtoolsOptions {
    pub command: Command,
    /// The first alignment file (`-` for standard input).
    pub first: PathBuf,
    /// The second, for the commands of two operands.
    pub second: Option<PathBuf>,
}

fn open(path: &PathBuf) -> Result<Lines<Box<dyn BufRead + Send>>> {
    let reader: Box<dyn BufRead + Send> = match path.to_str() {
        Some("-") => Box::new(std::io::BufReader::new(std::io::stdin())),
        _ => input::open(path)?,
    };
    Ok(Lines::new(reader, path))
}

/// Apply the command line by line, printing each result.
pub fn run(options: &AtoolsOptions, out: &mut dyn Write) -> Result<()> {
    let mut first = open(&options.first)?;
    let mut second = options.second.as_ref().map(open).transpose()?;
    let (mut a, mut b) = (String::new(), String::new());
    let empty = Grid::default();
    loop {
        let more = first.next_into(&mut a)?;
        if let Some(second) = &mut second {
            if second.next_into(&mut b)? != more {
                bail!(
                    "{} and {} have different numbers of lines (atools: Mismatched number of lines!)",
                    options.first.display(),
                    second.file().display()
                );
            }
        }
        if !more {
            break;
        }
        let grid = |text: &str, lines: &Lines<_>| {
            Grid::parse(text).map_err(|why| {
                anyhow::anyhow!("{}:{}: {why}", lines.file().display(), lines.line_number())
            })
        };
        let a_grid = grid(&a, &first)?;
        let result = match &second {
            Some(lines) => symmetrize::apply(options.command, &a_grid, &grid(&b, lines)?),
            None => symmetrize::apply(options.command, &a_grid, &empty),
        };
        writeln!(out, "{}", result.pharaoh())?;
    }
    out.flush()?;
    Ok(())
}
