//! sacrebleu's metrics, number for number: BLEU ([`bleu`]), chrF and chrF++ ([`chrf`]), TER
//! ([`ter`]), the mteval tokenisation they share ([`mteval`]), the three behind one face with
//! corpus statistics in sacrebleu's arithmetic ([`corpus`]), and its confidence intervals and
//! paired tests ([`paired`]).

pub mod bleu;
pub mod chrf;
pub mod corpus;
pub mod mteval;
pub mod paired;
pub mod ter;
