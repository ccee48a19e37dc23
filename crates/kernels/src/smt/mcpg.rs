//! MCPG, the Monte-Carlo paraphrase generator (Chevelu et al., ACL-IJCNLP 2009), as Chevelu et
//! al. (Coling 2010, §4) run it with the true score. Plain Rust: no Arrow.
//!
//! Paraphrasing S is a one-player game. A state is S with rules of the phrase table applied on
//! disjoint spans, in place (no reordering); an action applies one more rule, or stops. The
//! search is UCT (Kocsis & Szepesvári 2006) with UCB1-tuned exploration (Auer et al. 2002) and
//! RAVE (Gelly & Silver 2007), uniform random roll-outs to a final state and max-reward backup
//! (the best paraphrase is wanted, not the best average); after η episodes from a root the root
//! moves to its best child, keeping that subtree. docs/mcpg.md gives the reasons for every
//! choice the papers leave open.

use std::collections::{HashMap, VecDeque};
use std::f64::consts::LN_10;

use crate::lm::ngram::{self, NgramModel};
use crate::pair::true_score::{
    Application, Identity, ModelWeights, PhraseIndex, Scratch as DpScratch,
};
use crate::stats::random::{SplitMix64, mix};

/// What the search maximises, and so when a state may end the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Any state that changed S may stop; its reward is its full model score with the true
    /// score (the best derivation of the sentence, whichever the search played).
    #[default]
    TrueScore,
    /// As a decoder: a state may stop once every source word is covered by a rule (a word the
    /// table has no one-word rule for is kept by an identity rule, ln 1); its reward is the
    /// score of the derivation the search played.
    Translator,
}

impl Mode {
    pub const NAMES: [&str; 2] = ["true-score", "translator"];

    pub fn name(self) -> &'static str {
        match self {
            Mode::TrueScore => Self::NAMES[0],
            Mode::Translator => Self::NAMES[1],
        }
    }

    pub fn parse(name: &str) -> Option<Mode> {
        [Mode::TrueScore, Mode::Translator]
            .into_iter()
            .find(|m| m.name() == name)
    }
}

/// Episodes from each root before the root moves (η), when not told.
pub const DEFAULT_EPISODES: u64 = 100_000;
/// Rules kept per source phrase, the most probable (Moses' default table limit).
pub const DEFAULT_RULES_PER_PHRASE: usize = 20;
/// RAVE's equivalence parameter k: a child's own statistics and its all-moves-as-first ones
/// weigh the same after k / 3 visits (β = sqrt(k / (3n + k))).
pub const RAVE_EQUIVALENCE: f64 = 1000.0;
/// Distinct sentences whose scores are remembered (then the cache starts afresh).
const CACHE_LIMIT: usize = 1 << 20;

#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub mode: Mode,
    /// Episodes from each root before the root moves (η).
    pub episodes: u64,
    /// Paraphrases returned, best first.
    pub nbest: usize,
    pub seed: u64,
    pub weights: ModelWeights,
    /// At most this many rules per source phrase, the most probable (0: all).
    pub rules_per_phrase: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::default(),
            episodes: DEFAULT_EPISODES,
            nbest: 1,
            seed: 0,
            weights: ModelWeights::default(),
            rules_per_phrase: DEFAULT_RULES_PER_PHRASE,
        }
    }
}

/// A generated paraphrase.
#[derive(Debug, Clone, PartialEq)]
pub struct Paraphrase {
    pub tokens: Vec<String>,
    /// What the search maximised: the model score in true-score mode; in translator mode the
    /// best score of a derivation of it the search played.
    pub reward: f64,
    /// The phrase-table part of the reward: the true score in true-score mode, the ln p of
    /// the best derivation played in translator mode.
    pub phrase_score: f64,
    /// The true score of the paraphrase (its best derivation), whatever the mode.
    pub true_score: f64,
    /// log10 P(paraphrase), with a language model.
    pub lm_log10: Option<f64>,
    /// α_Φ · true_score + α_LM · ln P: the paper's model score, comparable across modes.
    pub model_score: f64,
    /// Rules that changed something in the derivation the search played.
    pub rules: u32,
}

/// What a search found and what it took.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    /// Best first; empty when no rule applies (or none changes the sentence).
    pub paraphrases: Vec<Paraphrase>,
    pub episodes: u64,
    /// Times the root moved.
    pub moves: u32,
    /// Rule applications the sentence offers.
    pub actions: usize,
}

/// A task's reward for a paraphrase, maximised instead of the model score (the "global task
/// scoring function" Chevelu et al. propose): of the source, the paraphrase and the reward the
/// mode gives it. None, or a value that is not finite (±inf, NaN), leaves the paraphrase
/// unrewarded.
pub trait TaskReward: Sync {
    fn reward(&self, source: &[&str], paraphrase: &[&str], model_score: f64) -> Option<f64>;
}

/// Generate paraphrases of `source` with the rules of `index` (and `lm`, weighted as
/// `options.weights` say). Same source, table, model and options: same outcome.
pub fn mcpg(
    index: &PhraseIndex,
    lm: Option<&NgramModel>,
    source: &[&str],
    options: &Options,
) -> Outcome {
    mcpg_for(index, lm, source, options, None)
}

/// [`mcpg`] maximising `task`'s reward when given (each paraphrase's `reward` is then the
/// task's; its model score stays the model's).
pub fn mcpg_for(
    index: &PhraseIndex,
    lm: Option<&NgramModel>,
    source: &[&str],
    options: &Options,
    task: Option<&dyn TaskReward>,
) -> Outcome {
    let mut evaluator = Evaluator::new(Problem::new(index, lm, source, options), options.nbest);
    evaluator.task = task;
    let actions = evaluator.problem.actions.len();
    if actions == 0 || options.episodes == 0 {
        return Outcome {
            actions,
            ..Outcome::default()
        };
    }
    let mut search = Search::new(&evaluator.problem, sentence_seed(options.seed, source));
    let mut episodes = 0;
    let mut moves = 0;
    loop {
        for _ in 0..options.episodes {
            search.episode(&mut evaluator);
        }
        episodes += options.episodes;
        if !search.advance(&evaluator.problem) {
            break;
        }
        moves += 1;
    }
    Outcome {
        paraphrases: evaluator.paraphrases(),
        episodes,
        moves,
        actions,
    }
}

/// The paraphrase with the best model score among every sentence the rules reach from
/// `source` (rules on disjoint spans, in place), found by enumerating the rule sets: MCPG's
/// yardstick on small cases. None when no rule changes the sentence; with the number of rule
/// sets enumerated; Err past `limit` of them.
pub fn exhaustive(
    index: &PhraseIndex,
    lm: Option<&NgramModel>,
    source: &[&str],
    options: &Options,
    limit: u64,
) -> Result<(Option<Paraphrase>, u64), u64> {
    let options = Options {
        mode: Mode::TrueScore,
        ..options.clone()
    };
    let mut evaluator = Evaluator::new(Problem::new(index, lm, source, &options), 1);
    let mut state = State::new(&evaluator.problem);
    let mut sets = 0;
    enumerate(&mut evaluator, &mut state, 0, &mut sets, limit)?;
    Ok((evaluator.paraphrases().into_iter().next(), sets))
}

/// Every rule set that extends `state` with actions from `from` on, each once: actions in
/// source order, each starting at or after the previous one's end.
fn enumerate(
    evaluator: &mut Evaluator,
    state: &mut State,
    from: usize,
    sets: &mut u64,
    limit: u64,
) -> Result<(), u64> {
    for id in from..evaluator.problem.actions.len() {
        let action = evaluator.problem.actions[id];
        if !state.fits(&action) {
            continue;
        }
        *sets += 1;
        if *sets > limit {
            return Err(*sets);
        }
        let saved = state.clone();
        state.apply(id as u32, &action, &evaluator.problem.free);
        evaluator.evaluate(state);
        let next = evaluator
            .problem
            .actions
            .partition_point(|a| a.start < action.end);
        enumerate(evaluator, state, next, sets, limit)?;
        *state = saved;
    }
    Ok(())
}

/// A seed for one sentence: the same sentence gets the same draws wherever it is in a corpus.
fn sentence_seed(seed: u64, tokens: &[&str]) -> u64 {
    // FNV-1a: stable across platforms and Rust releases, unlike std's hasher.
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for token in tokens {
        for &byte in token.as_bytes().iter().chain(&[0xff]) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    mix(seed ^ mix(hash))
}

/// 128 bits of (sentence, stop), so that a transposition key costs no allocation: two chains
/// of a bijective mix from unrelated constants, each word marked (never 0), stop mixed in
/// last. Two keys sharing one would share their statistics (the search's guidance, never a
/// reported score); at about 2^-128 a pair, that does not happen.
fn fingerprint(sentence: &[u32], stop: bool) -> u128 {
    let (mut a, mut b) = (0x243f_6a88_85a3_08d3u64, 0x1319_8a2e_0370_7344u64);
    for &id in sentence {
        let word = u64::from(id) | 1 << 32;
        a = mix(a ^ word);
        b = mix(b.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(word));
    }
    let end = if stop {
        0xa409_3822_299f_31d0
    } else {
        0x082e_fa98_ec4e_6c89
    };
    u128::from(mix(a ^ end)) << 64 | u128::from(mix(b ^ end))
}

/// A rule application, with its target as ids of the phrase table and of the language model.
#[derive(Debug, Clone, Copy)]
struct Action {
    start: u32,
    end: u32,
    log_p: f64,
    /// The target differs from the source span.
    changes: bool,
    /// Range of the target in `Problem::targets` and `Problem::targets_lm`.
    target: (u32, u32),
}

/// One sentence's game: its words and the actions on them. Fixed during the search.
struct Problem<'a> {
    index: &'a PhraseIndex,
    lm: Option<&'a NgramModel>,
    mode: Mode,
    weights: ModelWeights,
    /// The source as ids of the phrase table; `dp` holds it for the true score too.
    source: Vec<u32>,
    source_lm: Vec<u32>,
    /// In source order (by start).
    actions: Vec<Action>,
    targets: Vec<u32>,
    targets_lm: Vec<u32>,
    /// Per source word: translator mode may leave it uncovered (no rule of one word rewrites
    /// it, or --free-identity).
    free: Vec<bool>,
    dp: DpScratch,
}

impl<'a> Problem<'a> {
    fn new(
        index: &'a PhraseIndex,
        lm: Option<&'a NgramModel>,
        tokens: &[&str],
        options: &Options,
    ) -> Self {
        let mut dp = DpScratch::default();
        let source = index.source_ids(tokens, &mut dp).to_vec();
        let lm_id = |word: &str| lm.map_or(0, |lm| lm.id(word));
        let (mut actions, mut targets, mut targets_lm) = (Vec::new(), Vec::new(), Vec::new());
        let mut free = vec![true; source.len()];
        for application in index.applications(&source, options.rules_per_phrase) {
            let Application {
                start, end, log_p, ..
            } = application;
            if end - start == 1 {
                free[start as usize] = index.identity() == Identity::Always;
            }
            let target = index.target_ids(&application);
            let changes = target != &source[start as usize..end as usize];
            // In true-score mode an unchanging rule does nothing: the true score of the
            // sentence does not depend on the derivation the search played.
            if !changes && options.mode == Mode::TrueScore {
                continue;
            }
            let range = (targets.len() as u32, (targets.len() + target.len()) as u32);
            targets.extend_from_slice(target);
            targets_lm.extend(target.iter().map(|&id| lm_id(index.word(id, &dp))));
            actions.push(Action {
                start,
                end,
                log_p,
                changes,
                target: range,
            });
        }
        Problem {
            index,
            lm,
            mode: options.mode,
            weights: options.weights,
            source_lm: tokens.iter().map(|w| lm_id(w)).collect(),
            free,
            source,
            actions,
            targets,
            targets_lm,
            dp,
        }
    }

    fn target(&self, action: &Action) -> (&[u32], &[u32]) {
        let range = action.target.0 as usize..action.target.1 as usize;
        (&self.targets[range.clone()], &self.targets_lm[range])
    }

    /// The state may end the game.
    fn may_stop(&self, state: &State) -> bool {
        state.changes > 0 && (self.mode == Mode::TrueScore || state.blocked == 0)
    }
}

/// Rules applied so far.
#[derive(Debug, Clone)]
struct State {
    applied: Vec<u32>,
    covered: Vec<bool>,
    /// Uncovered words that cannot be kept for free.
    blocked: u32,
    /// Applied rules that changed their span.
    changes: u32,
    /// ln p summed over the applied rules: the played derivation's score.
    log_p: f64,
}

impl State {
    fn new(problem: &Problem) -> Self {
        State {
            applied: Vec::new(),
            covered: vec![false; problem.source.len()],
            blocked: problem.free.iter().filter(|&&free| !free).count() as u32,
            changes: 0,
            log_p: 0.0,
        }
    }

    fn fits(&self, action: &Action) -> bool {
        !self.covered[action.start as usize..action.end as usize].contains(&true)
    }

    fn apply(&mut self, id: u32, action: &Action, free: &[bool]) {
        for i in action.start as usize..action.end as usize {
            self.covered[i] = true;
            self.blocked -= u32::from(!free[i]);
        }
        self.applied.push(id);
        self.changes += u32::from(action.changes);
        self.log_p += action.log_p;
    }
}

/// A final state's sentence among the best seen.
struct Best {
    sentence: Vec<u32>,
    reward: f64,
    phrase: f64,
    lm_log10: f64,
    /// NaN until computed (translator mode needs it only for the output).
    true_score: f64,
    rules: u32,
}

/// Scores final states, remembers the best and caches the costly part per sentence.
struct Evaluator<'a> {
    problem: Problem<'a>,
    nbest: usize,
    best: Vec<Best>,
    /// Sentence -> (true score or NaN, log10 P).
    cache: HashMap<Vec<u32>, (f64, f64)>,
    task: Option<&'a dyn TaskReward>,
    /// (sentence, the mode's reward as bits) -> the task's reward.
    task_cache: HashMap<(Vec<u32>, u64), Option<f64>>,
    /// Scratch: the sentence as phrase-table and LM ids, the action starting at each position.
    sentence: Vec<u32>,
    sentence_lm: Vec<u32>,
    starts: Vec<u32>,
    lm_scratch: ngram::Scratch,
}

const NONE: u32 = u32::MAX;

impl<'a> Evaluator<'a> {
    fn new(problem: Problem<'a>, nbest: usize) -> Self {
        let n = problem.source.len();
        Evaluator {
            problem,
            nbest,
            best: Vec::new(),
            cache: HashMap::new(),
            task: None,
            task_cache: HashMap::new(),
            sentence: Vec::new(),
            sentence_lm: Vec::new(),
            starts: vec![NONE; n],
            lm_scratch: ngram::Scratch::default(),
        }
    }

    /// The sentence `state` reads, as phrase-table ids (and as LM ids in `sentence_lm`).
    fn sentence_of(&mut self, state: &State) -> &[u32] {
        let p = &self.problem;
        for &id in &state.applied {
            self.starts[p.actions[id as usize].start as usize] = id;
        }
        self.sentence.clear();
        self.sentence_lm.clear();
        let mut i = 0;
        while i < p.source.len() {
            match std::mem::replace(&mut self.starts[i], NONE) {
                NONE => {
                    self.sentence.push(p.source[i]);
                    self.sentence_lm.push(p.source_lm[i]);
                    i += 1;
                }
                id => {
                    let action = &p.actions[id as usize];
                    let (target, target_lm) = p.target(action);
                    self.sentence.extend_from_slice(target);
                    self.sentence_lm.extend_from_slice(target_lm);
                    i = action.end as usize;
                }
            }
        }
        &self.sentence
    }

    /// The reward of ending the game in `state`, None when its sentence is the source.
    fn evaluate(&mut self, state: &State) -> Option<f64> {
        self.sentence_of(state);
        let p = &self.problem;
        if self.sentence == p.source {
            return None;
        }
        if self.cache.len() >= CACHE_LIMIT {
            self.cache.clear();
        }
        let (true_score, lm_log10) = match self.cache.get(&self.sentence) {
            Some(&cached) => cached,
            None => {
                let lm_log10 = p.lm.map_or(0.0, |lm| {
                    lm.sentence_log10_of_ids(self.sentence_lm.iter().copied(), &mut self.lm_scratch)
                });
                let true_score = match p.mode {
                    Mode::TrueScore => self.true_score(),
                    Mode::Translator => f64::NAN,
                };
                self.cache
                    .insert(self.sentence.clone(), (true_score, lm_log10));
                (true_score, lm_log10)
            }
        };
        let p = &self.problem;
        let phrase = match p.mode {
            Mode::TrueScore => true_score,
            Mode::Translator => state.log_p,
        };
        let mut reward = p.weights.phrase * phrase + p.weights.lm * lm_log10 * LN_10;
        if let Some(task) = self.task {
            if self.task_cache.len() >= CACHE_LIMIT {
                self.task_cache.clear();
            }
            let key = (self.sentence.clone(), reward.to_bits());
            let task_reward = match self.task_cache.get(&key) {
                Some(&cached) => cached,
                None => {
                    let words = |ids: &[u32]| -> Vec<&str> {
                        ids.iter().map(|&id| p.index.word(id, &p.dp)).collect()
                    };
                    let computed = task
                        .reward(&words(&p.source), &words(&self.sentence), reward)
                        .filter(|r| r.is_finite());
                    self.task_cache.insert(key, computed);
                    computed
                }
            };
            reward = task_reward?;
        }
        self.remember(reward, phrase, lm_log10, true_score, state.changes);
        Some(reward)
    }

    /// The true score of `self.sentence`: a derivation always exists (the applied rules, the
    /// other words kept by identity or their `w -> w` rule).
    fn true_score(&mut self) -> f64 {
        let p = &mut self.problem;
        p.index
            .true_score_of_ids(&self.sentence, &mut p.dp)
            .expect("the played derivation reaches the sentence")
            .score
    }

    fn remember(&mut self, reward: f64, phrase: f64, lm_log10: f64, true_score: f64, rules: u32) {
        if let Some(seen) = self.best.iter_mut().find(|b| b.sentence == self.sentence) {
            if reward > seen.reward {
                (seen.reward, seen.phrase, seen.rules) = (reward, phrase, rules);
            }
        } else if self.best.len() < self.nbest
            || self.best.last().is_some_and(|last| reward > last.reward)
        {
            let sentence = self.sentence.clone();
            self.best.push(Best {
                sentence,
                reward,
                phrase,
                lm_log10,
                true_score,
                rules,
            });
        } else {
            return;
        }
        // Stable: equal rewards keep the order they were found in.
        self.best.sort_by(|a, b| b.reward.total_cmp(&a.reward));
        self.best.truncate(self.nbest);
    }

    fn paraphrases(&mut self) -> Vec<Paraphrase> {
        let best = std::mem::take(&mut self.best);
        best.into_iter()
            .map(|b| {
                self.sentence.clone_from(&b.sentence);
                let true_score = if b.true_score.is_nan() {
                    self.true_score()
                } else {
                    b.true_score
                };
                let p = &self.problem;
                let lm_log10 = p.lm.map(|_| b.lm_log10);
                Paraphrase {
                    tokens: b
                        .sentence
                        .iter()
                        .map(|&id| p.index.word(id, &p.dp).to_owned())
                        .collect(),
                    reward: b.reward,
                    phrase_score: b.phrase,
                    true_score,
                    lm_log10,
                    model_score: p.weights.phrase * true_score + p.weights.lm * b.lm_log10 * LN_10,
                    rules: b.rules,
                }
            })
            .collect()
    }
}

/// The rewards of the episodes through a node. In true-score mode a reward depends only on the
/// final sentence, so nodes whose states read the same sentence share one record, whichever
/// rules and order reached it (a transposition table: Chevelu et al. merge such states); in
/// translator mode the played derivation counts too, and each node has its own.
#[derive(Debug, Clone, Copy)]
struct Stats {
    /// Episodes that ended with a reward (not at the source sentence).
    rewarded: u32,
    sum: f64,
    sum_sq: f64,
    max: f64,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            rewarded: 0,
            sum: 0.0,
            sum_sq: 0.0,
            max: f64::NEG_INFINITY,
        }
    }
}

/// A node of the search tree: a state, reached from the root by the actions on its path.
#[derive(Debug, Clone)]
struct Node {
    /// Episodes through the node: its own, as exploration asks how often this move was tried
    /// here, not how often its sentence was reached.
    visits: u32,
    /// Its entry of `Search::stats`.
    stats: u32,
    /// Its children, `slots[start..start + len]`, sorted by action (stop last). A node keeps
    /// its own children even when it shares its statistics: the actions left depend on which
    /// words its rules covered, not only on the sentence.
    slots: (u32, u32),
    expanded: bool,
    /// The leaf of a stop action: the game ends in its parent's state.
    stop: bool,
}

impl Node {
    fn new(stats: u32, stop: bool) -> Self {
        Node {
            visits: 0,
            stats,
            slots: (0, 0),
            expanded: false,
            stop,
        }
    }
}

/// An action of a node: its child once visited, and its all-moves-as-first statistics.
#[derive(Debug, Clone, Copy)]
struct Slot {
    action: u32,
    child: u32,
    amaf_visits: u32,
    amaf_max: f32,
}

const STOP: u32 = u32::MAX;

struct Search {
    nodes: Vec<Node>,
    slots: Vec<Slot>,
    stats: Vec<Stats>,
    /// True-score mode: the fingerprint of (sentence, stop) -> its entry of `stats`.
    transpositions: Option<HashMap<u128, u32>>,
    root: u32,
    root_state: State,
    rng: SplitMix64,
    /// Rewards seen: they are normalised to [0, 1] over this range.
    low: f64,
    high: f64,
    // Scratch of one episode.
    path: Vec<u32>,
    played: Vec<u32>,
    available: Vec<u32>,
    touched: Vec<u32>,
}

impl Search {
    fn new(problem: &Problem, seed: u64) -> Self {
        Search {
            nodes: vec![Node::new(0, false)],
            slots: Vec::new(),
            stats: vec![Stats::default()],
            transpositions: (problem.mode == Mode::TrueScore).then(HashMap::new),
            root: 0,
            root_state: State::new(problem),
            rng: SplitMix64::new(seed),
            low: f64::INFINITY,
            high: f64::NEG_INFINITY,
            path: Vec::new(),
            played: Vec::new(),
            available: Vec::new(),
            touched: Vec::new(),
        }
    }

    fn slots_of(&self, node: u32) -> std::ops::Range<usize> {
        let (start, len) = self.nodes[node as usize].slots;
        start as usize..(start + len) as usize
    }

    /// Selection down the tree, expansion of one node, a roll-out from it, backup.
    fn episode(&mut self, evaluator: &mut Evaluator) {
        let mut state = self.root_state.clone();
        self.path.clear();
        self.played.clear();
        let mut node = self.root;
        self.path.push(node);
        let reward = loop {
            let here = &self.nodes[node as usize];
            if here.stop {
                break evaluator.evaluate(&state);
            }
            if !here.expanded {
                self.expand(node, &state, &evaluator.problem);
                break self.roll_out(node, &mut state, evaluator);
            }
            if here.slots.1 == 0 {
                break None;
            }
            let slot = self.select(node);
            let Slot { action, child, .. } = self.slots[slot];
            if action != STOP {
                let problem = &evaluator.problem;
                state.apply(action, &problem.actions[action as usize], &problem.free);
                self.played.push(action);
            }
            node = match child {
                NONE => {
                    let child = self.nodes.len() as u32;
                    let stats = self.stats_of(&state, action == STOP, evaluator);
                    self.nodes.push(Node::new(stats, action == STOP));
                    self.slots[slot].child = child;
                    child
                }
                child => child,
            };
            self.path.push(node);
        };
        self.backup(reward);
    }

    /// The statistics of a new node in `state`: shared with the nodes reading the same
    /// sentence in true-score mode, its own otherwise.
    fn stats_of(&mut self, state: &State, stop: bool, evaluator: &mut Evaluator) -> u32 {
        let fresh = self.stats.len() as u32;
        let Some(transpositions) = &mut self.transpositions else {
            self.stats.push(Stats::default());
            return fresh;
        };
        let key = fingerprint(evaluator.sentence_of(state), stop);
        let stats = *transpositions.entry(key).or_insert(fresh);
        if stats == fresh {
            self.stats.push(Stats::default());
        }
        stats
    }

    /// Give `node` a slot per action its state allows.
    fn expand(&mut self, node: u32, state: &State, problem: &Problem) {
        let start = self.slots.len() as u32;
        let fitting = problem
            .actions
            .iter()
            .enumerate()
            .filter(|(_, a)| state.fits(a));
        self.slots.extend(fitting.map(|(id, _)| Slot {
            action: id as u32,
            child: NONE,
            amaf_visits: 0,
            amaf_max: f32::NEG_INFINITY,
        }));
        if problem.may_stop(state) {
            self.slots.push(Slot {
                action: STOP,
                child: NONE,
                amaf_visits: 0,
                amaf_max: f32::NEG_INFINITY,
            });
        }
        let here = &mut self.nodes[node as usize];
        here.slots = (start, self.slots.len() as u32 - start);
        here.expanded = true;
    }

    /// Uniformly random actions from `node`'s state, stopping with the same chance as any
    /// action once the state may stop, until it stops or nothing is left.
    fn roll_out(&mut self, node: u32, state: &mut State, evaluator: &mut Evaluator) -> Option<f64> {
        let problem = &evaluator.problem;
        self.available.clear();
        let range = self.slots_of(node);
        self.available.extend(
            self.slots[range]
                .iter()
                .map(|s| s.action)
                .filter(|&a| a != STOP),
        );
        loop {
            let stop = problem.may_stop(state);
            let choices = self.available.len() + usize::from(stop);
            if choices == 0 {
                return None;
            }
            let pick = self.rng.below(choices);
            if pick == self.available.len() {
                return evaluator.evaluate(state);
            }
            let id = self.available[pick];
            let action = problem.actions[id as usize];
            state.apply(id, &action, &problem.free);
            self.played.push(id);
            self.available
                .retain(|&a| state.fits(&problem.actions[a as usize]));
        }
    }

    fn normalise(&self, reward: f64) -> f64 {
        match self.high > self.low {
            // Clamped: a RAVE maximum is kept as f32 and may round past the range.
            true => ((reward - self.low) / (self.high - self.low)).clamp(0.0, 1.0),
            false => 1.0,
        }
    }

    /// The slot of `node` with the best value: (1 - β) · its best reward + β · its RAVE best
    /// reward + the UCB1-tuned bonus; an unvisited action is worth 1 + its RAVE value (1
    /// without one), so every action is tried before any is tried twice unless RAVE already
    /// says it is poor. Ties are broken at random.
    fn select(&mut self, node: u32) -> usize {
        let ln_visits = f64::from(self.nodes[node as usize].visits.max(1)).ln();
        let (mut best, mut best_value, mut ties) = (usize::MAX, f64::NEG_INFINITY, 0u32);
        for i in self.slots_of(node) {
            let slot = self.slots[i];
            let rave = (slot.amaf_visits > 0).then(|| self.normalise(f64::from(slot.amaf_max)));
            let child = (slot.child != NONE)
                .then(|| &self.nodes[slot.child as usize])
                .filter(|c| c.visits > 0);
            let value = match child {
                None => 1.0 + rave.unwrap_or(1.0),
                Some(child) => {
                    let n = f64::from(child.visits);
                    let c = &self.stats[child.stats as usize];
                    let own = if c.rewarded > 0 {
                        self.normalise(c.max)
                    } else {
                        0.0
                    };
                    let beta = (RAVE_EQUIVALENCE / (3.0 * n + RAVE_EQUIVALENCE)).sqrt();
                    let exploit = (1.0 - beta) * own + beta * rave.unwrap_or(own);
                    let variance = match c.rewarded {
                        0 | 1 => 0.25,
                        m => {
                            let (m, range) = (f64::from(m), self.high - self.low);
                            let mean = c.sum / m;
                            ((c.sum_sq / m - mean * mean).max(0.0) / (range * range)).min(0.25)
                        }
                    };
                    exploit
                        + (ln_visits / n * (variance + (2.0 * ln_visits / n).sqrt()).min(0.25))
                            .sqrt()
                }
            };
            if value > best_value {
                (best, best_value, ties) = (i, value, 1);
            } else if value == best_value {
                ties += 1;
                if self.rng.below(ties as usize) == 0 {
                    best = i;
                }
            }
        }
        best
    }

    fn backup(&mut self, reward: Option<f64>) {
        for &node in &self.path {
            self.nodes[node as usize].visits += 1;
        }
        let Some(r) = reward else { return };
        // An episode counts once for statistics that nodes of its path share (rules that
        // undo each other can bring a path back to a sentence).
        self.touched.clear();
        (self.touched).extend(
            self.path
                .iter()
                .map(|&node| self.nodes[node as usize].stats),
        );
        self.touched.sort_unstable();
        self.touched.dedup();
        for &stats in &self.touched {
            let stats = &mut self.stats[stats as usize];
            stats.rewarded += 1;
            stats.sum += r;
            stats.sum_sq += r * r;
            stats.max = stats.max.max(r);
        }
        (self.low, self.high) = (self.low.min(r), self.high.max(r));
        // All moves as first: every action played at or after a node counts for that node's
        // slot of the action. Disjoint rules commute, so playing it there reaches the same
        // final state.
        for (depth, &node) in self.path.iter().enumerate() {
            let range = self.slots_of(node);
            let slots = &mut self.slots[range];
            for action in self.played.get(depth..).unwrap_or_default() {
                if let Ok(i) = slots.binary_search_by_key(action, |s| s.action) {
                    let slot = &mut slots[i];
                    slot.amaf_visits += 1;
                    slot.amaf_max = slot.amaf_max.max(r as f32);
                }
            }
        }
    }

    /// Move the root to its child with the best reward (then the most visits), keeping only
    /// that subtree. False when the game ends: the best is to stop, or nothing was rewarded.
    fn advance(&mut self, problem: &Problem) -> bool {
        let mut best: Option<(Slot, (f64, u32))> = None;
        for slot in &self.slots[self.slots_of(self.root)] {
            let Some(child) = (slot.child != NONE).then(|| &self.nodes[slot.child as usize]) else {
                continue;
            };
            let stats = &self.stats[child.stats as usize];
            let value = (stats.max, child.visits);
            if stats.rewarded > 0 && best.is_none_or(|(_, b)| value > b) {
                best = Some((*slot, value));
            }
        }
        let Some((slot, _)) = best.filter(|(slot, _)| slot.action != STOP) else {
            return false;
        };
        self.root_state.apply(
            slot.action,
            &problem.actions[slot.action as usize],
            &problem.free,
        );
        self.keep_subtree(slot.child);
        true
    }

    /// Drop every node but `root`'s subtree, which becomes the tree.
    fn keep_subtree(&mut self, root: u32) {
        let mut nodes = vec![self.nodes[root as usize].clone()];
        let mut slots = Vec::new();
        let mut queue = VecDeque::from([(root, 0u32)]);
        while let Some((old, new)) = queue.pop_front() {
            let start = slots.len() as u32;
            for slot in &self.slots[self.slots_of(old)] {
                let mut slot = *slot;
                if slot.child != NONE {
                    let child = nodes.len() as u32;
                    nodes.push(self.nodes[slot.child as usize].clone());
                    queue.push_back((slot.child, child));
                    slot.child = child;
                }
                slots.push(slot);
            }
            nodes[new as usize].slots.0 = start;
        }
        // The statistics the kept nodes use, renumbered; the transpositions forget the rest.
        let mut renumbered = vec![NONE; self.stats.len()];
        let mut stats = Vec::new();
        for node in &mut nodes {
            let old = node.stats as usize;
            if renumbered[old] == NONE {
                renumbered[old] = stats.len() as u32;
                stats.push(self.stats[old]);
            }
            node.stats = renumbered[old];
        }
        if let Some(transpositions) = &mut self.transpositions {
            transpositions.retain(|_, stats| {
                *stats = renumbered[*stats as usize];
                *stats != NONE
            });
        }
        (self.nodes, self.slots, self.stats, self.root) = (nodes, slots, stats, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<&str> {
        s.split_whitespace().collect()
    }

    fn options(mode: Mode, episodes: u64) -> Options {
        Options {
            mode,
            episodes,
            nbest: 10,
            ..Options::default()
        }
    }

    #[test]
    fn finds_the_best_rule_and_never_returns_the_source() {
        let index = PhraseIndex::of_rules(&[
            ("a", "x", 0.5),
            ("a", "y", 0.25),
            ("b c", "z", 0.9),
            ("a", "a", 0.8),
        ]);
        let outcome = mcpg(
            &index,
            None,
            &words("a b c"),
            &options(Mode::TrueScore, 200),
        );
        let got: Vec<(String, f64)> = outcome
            .paraphrases
            .iter()
            .map(|p| (p.tokens.join(" "), p.reward))
            .collect();
        // "a" has an a -> a rule, so keeping it costs ln 0.8; keeping b, c is free.
        let expected = [
            ("a z", 0.8f64.ln() + 0.9f64.ln()),
            ("x b c", 0.5f64.ln()),
            ("x z", 0.5f64.ln() + 0.9f64.ln()),
            ("y b c", 0.25f64.ln()),
            ("y z", 0.25f64.ln() + 0.9f64.ln()),
        ];
        let expected: Vec<(String, f64)> =
            expected.iter().map(|(s, r)| (s.to_string(), *r)).collect();
        assert_eq!(got, expected);
        for p in &outcome.paraphrases {
            assert_eq!(
                (p.true_score, p.model_score, p.lm_log10),
                (p.reward, p.reward, None)
            );
        }
        assert_eq!(
            outcome.actions, 3,
            "the a -> a rule is no action in true-score mode"
        );
    }

    #[test]
    fn translator_mode_scores_the_derivation_it_played() {
        // "a b" -> "x y" by one rule (0.1) or by two (0.5 * 0.5): a decoder finding the first
        // scores it ln 0.1 where its true score is ln 0.25. Every word has a rule, so every
        // word must be covered: "x b" and "a y" are no translations.
        let index = PhraseIndex::of_rules(&[("a b", "x y", 0.1), ("a", "x", 0.5), ("b", "y", 0.5)]);
        let play = |episodes| {
            let outcome = mcpg(
                &index,
                None,
                &words("a b"),
                &options(Mode::Translator, episodes),
            );
            let got: Vec<(String, f64, f64)> = (outcome.paraphrases.iter())
                .map(|p| (p.tokens.join(" "), p.reward, p.true_score))
                .collect();
            got
        };
        let half = 0.5f64.ln();
        // the better of the two derivations, once both were played
        assert_eq!(play(200), [("x y".into(), 2.0 * half, 2.0 * half)]);

        // c has no rule of one word: it may stay as it is; a and d have one and may not.
        let index = PhraseIndex::of_rules(&[("a", "x", 0.5), ("c d", "z", 0.2), ("d", "w", 0.4)]);
        let outcome = mcpg(
            &index,
            None,
            &words("a c d"),
            &options(Mode::Translator, 200),
        );
        let got: Vec<String> = (outcome.paraphrases.iter())
            .map(|p| p.tokens.join(" "))
            .collect();
        assert_eq!(got, ["x c w", "x z"]);
    }

    #[test]
    fn seeded_and_anytime() {
        let index = PhraseIndex::of_rules(&[
            ("a", "x", 0.5),
            ("a", "y", 0.4),
            ("b", "z", 0.3),
            ("c", "w", 0.2),
            ("b c", "v", 0.1),
        ]);
        let run = |seed, episodes| {
            mcpg(
                &index,
                None,
                &words("a b c d"),
                &Options {
                    seed,
                    ..options(Mode::TrueScore, episodes)
                },
            )
        };
        assert_eq!(run(7, 50), run(7, 50));
        let (exact, sets) =
            exhaustive(&index, None, &words("a b c d"), &Options::default(), 1000).unwrap();
        let exact = exact.unwrap();
        // {}, x, y, z, w, v, xz, xw, xv, yz, yw, yv, zw, xzw, yzw: 14 non-empty
        assert_eq!(sets, 14);
        assert_eq!(exact.tokens, ["x", "b", "c", "d"]);
        assert_eq!(run(7, 100).paraphrases[0], exact);
    }

    /// The index follows the table's row order; the game must not: the same rules added in
    /// any order give the same outcome for a seed, and a rule limit keeps the same rules.
    #[test]
    fn the_same_rules_in_any_order_give_the_same_game() {
        let rules = [
            ("a", "x", 0.5),
            ("a", "y", 0.5),
            ("a", "w", 0.5),
            ("b", "z", 0.3),
            ("b", "u", 0.3),
            ("a b", "v", 0.3),
            ("c", "t", 0.2),
            ("c", "c", 0.2),
            ("b c", "s", 0.2),
        ];
        let source = words("a b c a b");
        let play = |rules: &[(&str, &str, f64)], mode, rules_per_phrase| {
            let options = Options {
                seed: 11,
                rules_per_phrase,
                ..options(mode, 40)
            };
            mcpg(&PhraseIndex::of_rules(rules), None, &source, &options)
        };
        for mode in [Mode::TrueScore, Mode::Translator] {
            for limit in [0, 1] {
                let expected = play(&rules, mode, limit);
                let mut order = rules.to_vec();
                for step in 0..rules.len() {
                    order.rotate_left(step % 4 + 1);
                    order.swap(0, step);
                    assert_eq!(play(&order, mode, limit), expected, "{mode:?} {order:?}");
                }
                order.reverse();
                assert_eq!(play(&order, mode, limit), expected, "{mode:?} reversed");
            }
        }
    }

    /// "a b" with a -> x and b -> y: the tree reaches "x y", the best paraphrase (keeping a
    /// word costs its w -> w rule), by two orders. True-score mode gives the two nodes (and
    /// their stop leaves) one record of statistics; translator mode gives each its own.
    #[test]
    fn true_score_mode_pools_a_sentence_however_it_was_reached() {
        let index = PhraseIndex::of_rules(&[
            ("a", "x", 0.5),
            ("b", "y", 0.5),
            ("a", "a", 0.1),
            ("b", "b", 0.1),
        ]);
        for mode in [Mode::TrueScore, Mode::Translator] {
            let options = options(mode, 100);
            let problem = Problem::new(&index, None, &words("a b"), &options);
            let mut evaluator = Evaluator::new(problem, 1);
            let mut search = Search::new(&evaluator.problem, 1);
            for _ in 0..100 {
                search.episode(&mut evaluator);
            }
            let actions = &evaluator.problem.actions;
            let rule = |start| (actions.iter()).position(|a| a.start == start && a.changes);
            let child = |node: u32, start: u32| {
                let action = rule(start).unwrap() as u32;
                let slots = &search.slots[search.slots_of(node)];
                slots.iter().find(|s| s.action == action).unwrap().child
            };
            let (ab, ba) = (child(child(0, 0), 1), child(child(0, 1), 0));
            let (ab, ba) = (&search.nodes[ab as usize], &search.nodes[ba as usize]);
            assert!(ab.visits > 0 && ba.visits > 0, "{mode:?}");
            assert_eq!(ab.stats == ba.stats, mode == Mode::TrueScore, "{mode:?}");
            if mode == Mode::TrueScore {
                // root; a -> x, b -> y; then the other rule or stop under each; stop under "x y"
                assert_eq!((search.nodes.len(), search.stats.len()), (9, 7));
                let pooled = &search.stats[ab.stats as usize];
                assert_eq!(pooled.rewarded, ab.visits + ba.visits);
            }
        }
    }

    /// Every sentence of up to three words over 20 ids, stopped or not: no two share a key
    /// (a weaker mix once gave [1, 2] stopped the key of [0, 2] not stopped).
    #[test]
    fn fingerprints_of_short_sentences_differ() {
        let mut sentences: Vec<Vec<u32>> = vec![vec![]];
        for length in 1..=3 {
            let shorter: Vec<Vec<u32>> = (sentences.iter())
                .filter(|s| s.len() == length - 1)
                .cloned()
                .collect();
            for s in shorter {
                sentences.extend((0..20).map(|id| [&s[..], &[id]].concat()));
            }
        }
        let keys: std::collections::HashSet<u128> = (sentences.iter())
            .flat_map(|s| [fingerprint(s, false), fingerprint(s, true)])
            .collect();
        assert_eq!(keys.len(), 2 * sentences.len());
    }

    #[test]
    fn nothing_to_do() {
        let index = PhraseIndex::of_rules(&[("a", "a", 0.5)]);
        for mode in [Mode::TrueScore, Mode::Translator] {
            let outcome = mcpg(&index, None, &words("a b"), &options(mode, 100));
            assert!(outcome.paraphrases.is_empty(), "{mode:?}: {outcome:?}");
        }
        assert_eq!(
            mcpg(&index, None, &[], &Options::default()),
            Outcome::default()
        );
        assert_eq!(
            exhaustive(&index, None, &words("a b"), &Options::default(), 10),
            Ok((None, 0))
        );
    }
}
