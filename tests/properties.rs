//! Properties of the LePoD kernels over generated sentences and alignments.

use pairmetrics::kernels::Link;
use pairmetrics::pair::lepod::{Punctuation, Scratch, led_aligned, led_unaligned, pod};
use proptest::prelude::*;

const VOCAB: &[&str] = &["a", "b", "c", "d", ",", "."];

/// Two non-empty sentences over a small vocabulary and links between them.
fn pair() -> impl Strategy<Value = (Vec<&'static str>, Vec<&'static str>, Vec<Link>)> {
    (1usize..12, 1usize..12).prop_flat_map(|(n1, n2)| {
        (
            prop::collection::vec(prop::sample::select(VOCAB), n1),
            prop::collection::vec(prop::sample::select(VOCAB), n2),
            prop::collection::vec((0..n1 as u32, 0..n2 as u32), 0..16),
        )
    })
}

fn swapped(links: &[Link]) -> Vec<Link> {
    links.iter().map(|&(a, b)| (b, a)).collect()
}

proptest! {
    #[test]
    fn scores_are_bounded((s1, s2, links) in pair()) {
        let scratch = &mut Scratch::default();
        let punct = Punctuation::new(",.");
        for v in [
            led_aligned(&s1, &s2, &links, scratch).unwrap(),
            led_unaligned(&s1, &s2, &mut Default::default()).unwrap(),
            pod(&s1, &s2, &links, &punct, scratch).unwrap(),
        ] {
            prop_assert!((0.0..=1.0).contains(&v), "{v}");
        }
        prop_assert!(pod(&s1, &s2, &links, &punct, scratch).unwrap() < 1.0);
    }

    #[test]
    fn swapping_sides_and_links_keeps_both_scores((s1, s2, links) in pair()) {
        let scratch = &mut Scratch::default();
        let punct = Punctuation::new(",");
        let back = swapped(&links);
        prop_assert_eq!(
            pod(&s1, &s2, &links, &punct, scratch).unwrap(),
            pod(&s2, &s1, &back, &punct, scratch).unwrap()
        );
        let (l12, l21) = (
            led_aligned(&s1, &s2, &links, scratch).unwrap(),
            led_aligned(&s2, &s1, &back, scratch).unwrap(),
        );
        prop_assert!((l12 - l21).abs() < 1e-15);
        let (u12, u21) = (
            led_unaligned(&s1, &s2, &mut Default::default()).unwrap(),
            led_unaligned(&s2, &s1, &mut Default::default()).unwrap(),
        );
        prop_assert!((u12 - u21).abs() < 1e-15);
    }

    #[test]
    fn identical_sentences_score_zero((s1, _, _) in pair()) {
        let scratch = &mut Scratch::default();
        let identity: Vec<Link> = (0..s1.len() as u32).map(|i| (i, i)).collect();
        prop_assert_eq!(led_aligned(&s1, &s1, &identity, scratch).unwrap(), 0.0);
        prop_assert_eq!(led_unaligned(&s1, &s1, &mut Default::default()).unwrap(), 0.0);
        prop_assert_eq!(pod(&s1, &s1, &identity, &Punctuation::new(","), scratch).unwrap(), 0.0);
    }

    #[test]
    fn no_links_means_every_token_differs((s1, s2, _) in pair()) {
        let scratch = &mut Scratch::default();
        prop_assert_eq!(led_aligned(&s1, &s2, &[], scratch).unwrap(), 1.0);
        prop_assert_eq!(pod(&s1, &s2, &[], &Punctuation::default(), scratch).unwrap(), 0.0);
    }

    #[test]
    fn the_best_alignment_never_loses_to_a_given_one((s1, s2, links) in pair()) {
        // Alignment-free LeD keeps as many tokens as any exact-match alignment can.
        let scratch = &mut Scratch::default();
        let aligned = led_aligned(&s1, &s2, &links, scratch).unwrap();
        let best = led_unaligned(&s1, &s2, &mut Default::default()).unwrap();
        prop_assert!(best <= aligned + 1e-15);
    }
}
