//! Symmetrising two word alignments as fast_align's `atools -c` does (Koehn et al. 2003's
//! grow-diag-final-and and friends), to the same links: an alignment is a grid of
//! (source, target) points sized by the largest index it names, and every operation walks its
//! points in atools' order (source-major), which decides what growing adds.

use std::collections::BTreeSet;

/// atools' commands that make an alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// Read and write again (one file).
    Convert,
    /// Swap source and target (one file).
    Invert,
    Intersect,
    Union,
    GrowDiag,
    GrowDiagFinal,
    GrowDiagFinalAnd,
}

impl Command {
    pub const NAMES: [&'static str; 7] = [
        "convert",
        "invert",
        "intersect",
        "union",
        "grow-diag",
        "grow-diag-final",
        "grow-diag-final-and",
    ];

    /// The command atools calls `name`. `NAMES` are in the order of the variants.
    pub fn parse(name: &str) -> Option<Command> {
        let index = Self::NAMES.iter().position(|&n| n == name)?;
        Some(match index {
            0 => Command::Convert,
            1 => Command::Invert,
            2 => Command::Intersect,
            3 => Command::Union,
            4 => Command::GrowDiag,
            5 => Command::GrowDiagFinal,
            _ => Command::GrowDiagFinalAnd,
        })
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    pub fn operands(self) -> usize {
        match self {
            Command::Convert | Command::Invert => 1,
            _ => 2,
        }
    }
}

/// The most positions (source x target) a parsed line's grid may have: 2^26, a pair of 8,192
/// words a side, 64 MiB. atools itself sizes its grid by the largest link, whatever it is.
pub const MAX_CELLS: usize = 1 << 26;

/// An alignment as atools holds it: `width` source positions by `height` target positions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grid {
    width: usize,
    height: usize,
    points: Vec<bool>,
}

impl Grid {
    fn new(width: usize, height: usize) -> Grid {
        Grid {
            width,
            height,
            points: vec![false; width * height],
        }
    }

    /// The point (i, j), false outside the grid (atools' `Safe`).
    fn get(&self, i: isize, j: isize) -> bool {
        i >= 0
            && j >= 0
            && (i as usize) < self.width
            && (j as usize) < self.height
            && self.points[i as usize + j as usize * self.width]
    }

    fn set(&mut self, i: usize, j: usize) {
        self.points[i + j * self.width] = true;
    }

    /// The grid of `links` (source, target), sized by their largest indices as [`Grid::parse`]
    /// sizes the same links written as a Pharaoh line.
    pub fn from_links(links: impl IntoIterator<Item = (usize, usize)> + Clone) -> Grid {
        let (mut width, mut height) = (1, 1);
        for (i, j) in links.clone() {
            width = width.max(i + 1);
            height = height.max(j + 1);
        }
        let mut grid = Grid::new(width, height);
        for (i, j) in links {
            grid.set(i, j);
        }
        grid
    }

    /// A Pharaoh line (`i-j i-j ...`, the links after the last ` ||| ` if there is one),
    /// sized by its largest indices (an empty line is a 1 x 1 grid without points). A grid
    /// of more than [`MAX_CELLS`] positions is refused: its links cannot be a real sentence
    /// pair's, and atools' commands visit every position.
    pub fn parse(line: &str) -> Result<Grid, String> {
        let text = match line.rfind(" ||| ") {
            Some(p) => &line[p + 5..],
            None => line,
        };
        let text = text.split(['\n', '\r']).next().unwrap_or("");
        let mut links = Vec::new();
        for link in text.split(' ').filter(|l| !l.is_empty()) {
            // atools reads a missing number as 0 (`-3` is 0-3).
            let number = |s: &str| match s {
                "" => Some(0),
                _ if s.bytes().all(|b| b.is_ascii_digit()) => s.parse::<usize>().ok(),
                _ => None,
            };
            let parsed = link
                .split_once('-')
                .and_then(|(i, j)| Some((number(i)?, number(j)?)));
            match parsed {
                Some(link) => links.push(link),
                None => return Err(format!("`{link}` is not a link i-j")),
            }
        }
        let (width, height) = links.iter().fold((1u128, 1u128), |(w, h), &(i, j)| {
            (w.max(i as u128 + 1), h.max(j as u128 + 1))
        });
        if width * height > MAX_CELLS as u128 {
            return Err(format!(
                "its links make a grid of {width} x {height} positions, over the limit of \
                 {MAX_CELLS} (a sentence pair of 8,192 words a side): is a position wrong?"
            ));
        }
        Ok(Grid::from_links(links))
    }

    /// The points in atools' order: by source, then target.
    pub fn links(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.width)
            .flat_map(move |i| (0..self.height).map(move |j| (i, j)))
            .filter(|&(i, j)| self.points[i + j * self.width])
    }

    /// The Pharaoh line atools prints (without its newline).
    pub fn pharaoh(&self) -> String {
        let links: Vec<String> = self.links().map(|(i, j)| format!("{i}-{j}")).collect();
        links.join(" ")
    }
}

/// `command` applied to `a` (and `b`, for the commands of two operands).
pub fn apply(command: Command, a: &Grid, b: &Grid) -> Grid {
    let (width, height) = (a.width.max(b.width), a.height.max(b.height));
    match command {
        Command::Convert => a.clone(),
        Command::Invert => {
            let mut out = Grid::new(a.height, a.width);
            for (i, j) in a.links() {
                out.set(j, i);
            }
            out
        }
        Command::Intersect => {
            let mut out = Grid::new(width, height);
            for (i, j) in a.links() {
                if b.get(i as isize, j as isize) {
                    out.set(i, j);
                }
            }
            out
        }
        Command::Union => {
            let mut out = Grid::new(width, height);
            for (i, j) in a.links().chain(b.links()) {
                out.set(i, j);
            }
            out
        }
        Command::GrowDiag | Command::GrowDiagFinal | Command::GrowDiagFinalAnd => {
            let mut refine = Refine::new(a, b);
            refine.grow_diag(&union(a, b));
            match command {
                Command::GrowDiagFinal => {
                    refine.finally(a, Refine::one_or_both_unaligned);
                    refine.finally(b, Refine::one_or_both_unaligned);
                }
                Command::GrowDiagFinalAnd => {
                    refine.finally(a, Refine::neither_aligned);
                    refine.finally(b, Refine::neither_aligned);
                }
                _ => {}
            }
            refine.result
        }
    }
}

fn union(a: &Grid, b: &Grid) -> Grid {
    apply(Command::Union, a, b)
}

/// atools' `RefineCommand` with the diagonal neighbours.
struct Refine {
    result: Grid,
    source_aligned: Vec<bool>,
    target_aligned: Vec<bool>,
}

/// The neighbours atools grows into, in its order: sides, then diagonals.
const NEIGHBOURS: [(isize, isize); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (-1, 1),
    (1, -1),
    (-1, -1),
];

impl Refine {
    /// Starts from the intersection.
    fn new(a: &Grid, b: &Grid) -> Refine {
        let (width, height) = (a.width.max(b.width), a.height.max(b.height));
        let mut refine = Refine {
            result: Grid::new(width, height),
            source_aligned: vec![false; width],
            target_aligned: vec![false; height],
        };
        for j in 0..height {
            for i in 0..width {
                if a.get(i as isize, j as isize) && b.get(i as isize, j as isize) {
                    refine.align(i, j);
                }
            }
        }
        refine
    }

    fn align(&mut self, i: usize, j: usize) {
        self.result.set(i, j);
        self.source_aligned[i] = true;
        self.target_aligned[j] = true;
    }

    fn one_or_both_unaligned(&self, i: usize, j: usize) -> bool {
        !(self.source_aligned[i] && self.target_aligned[j])
    }

    fn neither_aligned(&self, i: usize, j: usize) -> bool {
        !(self.source_aligned[i] || self.target_aligned[j])
    }

    fn neighbour_aligned(&self, i: usize, j: usize) -> bool {
        NEIGHBOURS
            .iter()
            .any(|&(di, dj)| self.result.get(i as isize + di, j as isize + dj))
    }

    /// Koehn's growing: passes over the candidate points in (source, target) order, each point
    /// added when one of its words is unaligned and a neighbour is aligned, until a pass adds
    /// none (points added in a pass count for the rest of it).
    fn grow_diag(&mut self, candidates: &Grid) {
        let mut pending: BTreeSet<(usize, usize)> = candidates
            .links()
            .filter(|&(i, j)| !self.result.get(i as isize, j as isize))
            .collect();
        loop {
            let added: Vec<(usize, usize)> = pending
                .iter()
                .copied()
                .filter(|&(i, j)| {
                    let grow = self.one_or_both_unaligned(i, j) && self.neighbour_aligned(i, j);
                    if grow {
                        self.align(i, j);
                    }
                    grow
                })
                .collect();
            if added.is_empty() {
                break;
            }
            for point in added {
                pending.remove(&point);
            }
        }
    }

    /// The final step: one pass over `from`'s points, adding those `keep` allows.
    fn finally(&mut self, from: &Grid, keep: fn(&Refine, usize, usize) -> bool) {
        for (i, j) in from.links() {
            if !self.result.get(i as isize, j as isize) && keep(self, i, j) {
                self.align(i, j);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(command: &str, a: &str, b: &str) -> String {
        let command = Command::parse(command).unwrap();
        apply(command, &Grid::parse(a).unwrap(), &Grid::parse(b).unwrap()).pharaoh()
    }

    #[test]
    fn worked_by_hand() {
        // Forward 0-0 1-1 2-1, reverse 0-0 1-1 1-2: they agree on 0-0 and 1-1; growing adds
        // 2-1 (source 2 unaligned, next to 1-1) and then 1-2 is refused (both words aligned).
        let (a, b) = ("0-0 1-1 2-1", "0-0 1-1 1-2");
        assert_eq!(run("intersect", a, b), "0-0 1-1");
        assert_eq!(run("union", a, b), "0-0 1-1 1-2 2-1");
        assert_eq!(run("grow-diag", a, b), "0-0 1-1 1-2 2-1");
        assert_eq!(run("invert", "0-1 2-0", ""), "0-2 1-0");
        // A point of one direction, far from the others: only the final steps add it.
        let (a, b) = ("0-0 3-3", "0-0");
        assert_eq!(run("grow-diag", a, b), "0-0");
        assert_eq!(run("grow-diag-final-and", a, b), "0-0 3-3");
    }

    #[test]
    fn every_command_reads_back_from_its_name() {
        for name in Command::NAMES {
            assert_eq!(Command::parse(name).map(Command::name), Some(name));
        }
        assert_eq!(Command::parse("grow"), None);
    }

    #[test]
    fn bad_links_are_named() {
        assert!(Grid::parse("0-1 x-2").unwrap_err().contains("x-2"));
        assert!(Grid::parse("0-1 3").is_err());
        assert_eq!(Grid::parse("").unwrap().pharaoh(), "");
        assert_eq!(Grid::parse("a b ||| 0-1").unwrap().pharaoh(), "0-1");
    }
}
