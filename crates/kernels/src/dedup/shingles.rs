//! The pieces a text's MinHash signature is taken over.

/// Python's `[text[i:i+n] for i in range(max(len(text) - n + 1, 1))]` over characters, except
/// that an empty text has none (Python gives one empty string). `n` is at least 1.
pub fn char_ngrams<'t>(text: &'t str, n: usize, out: &mut Vec<&'t str>) {
    assert!(n >= 1, "n-grams of at least one character");
    let starts: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let chars = starts.len() - 1;
    if chars > 0 {
        for i in 0..chars.saturating_sub(n - 1).max(1) {
            out.push(&text[starts[i]..starts[(i + n).min(chars)]]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ngrams(text: &str, n: usize) -> Vec<&str> {
        let mut out = Vec::new();
        char_ngrams(text, n, &mut out);
        out
    }

    #[test]
    fn as_python_slices_them() {
        assert_eq!(ngrams("abcd", 2), ["ab", "bc", "cd"]);
        // Shorter than n: the whole text, once.
        assert_eq!(ngrams("ab", 5), ["ab"]);
        assert_eq!(ngrams("", 3), Vec::<&str>::new());
        // Characters, not bytes.
        assert_eq!(ngrams("é😀x", 2), ["é😀", "😀x"]);
    }
}
