//! Fitting the evaluation's weights (`merels tune`), by Texel's method: the engine plays itself
//! from seeded random openings at a fixed node budget, every quiet position of those games is
//! labelled with the game's result for its side to move, and the weights are moved one step at
//! a time while that lowers the squared error between the results and the evaluation turned into
//! an expected score (a logistic curve whose scale is fitted first).
//!
//! Pure: the games come from the seed alone (a node budget, never a clock), so one seed gives one
//! set of weights on any machine.

use super::Rng;
use super::eval::{self, Terms, Weights};
use super::search::{Limits, Search};
use crate::rules::{Game, Position, Variant};
use std::sync::Arc;

/// How many numbers a position gives the fit: each term, once per phase.
const FACTORS: usize = 2 * Terms::LEN;

/// The steps, in hundredths of a man, by which the fit moves a weight: coarse first.
const STEPS: [i32; 5] = [16, 8, 4, 2, 1];

/// The largest weight the fit may give a term (a term worth more than four men is a mistake of
/// the data, not a judgement).
const MAX_WEIGHT: i32 = 400;

/// At most how many times the scale and the weights are fitted in turn.
const ROUNDS: usize = 6;

/// How the games that the weights are fitted to are played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Where the openings come from.
    pub seed: u64,
    /// Games to play.
    pub games: usize,
    /// The search's node budget for every turn.
    pub nodes: u64,
    /// Random plies before the engine takes over: between the two numbers.
    pub opening: (usize, usize),
    /// Plies after which an unfinished game counts as a draw.
    pub max_plies: usize,
}

/// A quiet position of a game, as the fit sees it: the evaluation's terms and the result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The part of the evaluation no weight changes (men, a side that cannot move).
    fixed: f64,
    /// What each weight multiplies: placing weights first, then sliding.
    factors: [f64; FACTORS],
    /// The game's result for the side to move: 1, ½ or 0.
    result: f64,
}

impl Sample {
    /// `pos` labelled with `result` for its side to move.
    fn new(variant: &Variant, pos: &Position, result: f64) -> Sample {
        let mut factors = [0.0; FACTORS];
        let mut fixed = 0.0;
        let side = pos.to_move();
        for (color, sign) in [(side, 1.0), (side.opponent(), -1.0)] {
            let counts = eval::counts(variant, pos, color);
            fixed += sign * f64::from(counts.fixed);
            let offset = if counts.placing { 0 } else { Terms::LEN };
            for (i, f) in counts.terms.factors().into_iter().enumerate() {
                factors[offset + i] += sign * f;
            }
        }
        Sample {
            fixed,
            factors,
            result,
        }
    }

    /// The evaluation with `weights` (in [`flatten`]'s order).
    fn score(&self, weights: &[f64; FACTORS]) -> f64 {
        self.fixed
            + self
                .factors
                .iter()
                .zip(weights)
                .map(|(f, w)| f * w)
                .sum::<f64>()
    }
}

/// What the fit found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fitted {
    /// The weights.
    pub weights: Weights,
    /// The logistic curve's scale: an evaluation `e` means an expected score of
    /// `1 / (1 + exp(-scale * e))`.
    pub scale: f64,
    /// Positions fitted to.
    pub samples: usize,
    /// The mean squared error with the weights the fit started from.
    pub error_before: f64,
    /// And with the weights it found.
    pub error_after: f64,
}

/// Plays the plan's games and fits the weights to them, starting from `start`.
pub fn tune(variant: &Arc<Variant>, plan: &Plan, start: &Weights) -> Fitted {
    fit(&play(variant, plan), start)
}

/// The plan's games, each quiet position labelled with its game's result.
pub fn play(variant: &Arc<Variant>, plan: &Plan) -> Vec<Sample> {
    let mut samples = Vec::new();
    let limits = Limits {
        depth: 64,
        nodes: plan.nodes,
    };
    for g in 0..plan.games {
        let mut rng = Rng::new(plan.seed ^ (g as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut game = opening(variant, plan.opening, &mut rng);
        let mut search = Search::for_nodes(variant, plan.nodes);
        let mut quiet = Vec::new();
        while game.outcome().is_none() && game.turns().len() < plan.max_plies {
            let positions: Vec<Position> = game.positions().collect();
            let (pos, earlier) = positions.split_last().expect("a game has a position");
            // A capture in hand is worth a man the evaluation does not see: not quiet.
            if variant.legal_turns(pos).iter().all(|t| t.remove.is_none()) {
                quiet.push(*pos);
            }
            let Some(found) = search.best(earlier, pos, limits) else {
                break;
            };
            game.play(found.turn).expect("the search plays legal turns");
        }
        let winner = game.outcome().and_then(|o| o.winner);
        samples.extend(quiet.iter().map(|pos| {
            let result = match winner {
                None => 0.5,
                Some(w) if w == pos.to_move() => 1.0,
                Some(_) => 0.0,
            };
            Sample::new(variant, pos, result)
        }));
    }
    samples
}

/// A game after between `plies.0` and `plies.1` random legal turns from the start, none of them
/// ending it (the openings of `merels match` too).
pub fn opening(variant: &Arc<Variant>, plies: (usize, usize), rng: &mut Rng) -> Game {
    loop {
        let n = plies.0 + rng.below(plies.1.saturating_sub(plies.0) + 1);
        let mut game = Game::new(Arc::clone(variant));
        for _ in 0..n {
            let legal = game.legal_turns();
            if game.outcome().is_some() || legal.is_empty() {
                break;
            }
            game.play(legal[rng.below(legal.len())])
                .expect("a legal turn");
        }
        if game.outcome().is_none() {
            return game;
        }
    }
}

/// Fits the weights to `samples`, starting from `start`: the logistic curve's scale, then each
/// weight in turn moved by a step while that lowers the error, the steps halving until a single
/// hundredth of a man changes nothing; then the scale again for those weights, and so on until
/// the weights stay (the men's fixed worth anchors the scale, so the two settle together).
pub fn fit(samples: &[Sample], start: &Weights) -> Fitted {
    let as_f64 = |w: &[i32; FACTORS]| w.map(f64::from);
    let mut weights = flatten(start);
    let mut scale = fit_scale(samples, &as_f64(&weights));
    let error_before = error(samples, &as_f64(&weights), scale);
    for _ in 0..ROUNDS {
        let before = weights;
        let mut best = error(samples, &as_f64(&weights), scale);
        for step in STEPS {
            loop {
                let mut moved = false;
                for i in 0..FACTORS {
                    for delta in [step, -step] {
                        let mut tried = weights;
                        tried[i] = (tried[i] + delta).clamp(0, MAX_WEIGHT);
                        if tried[i] == weights[i] {
                            continue;
                        }
                        let e = error(samples, &as_f64(&tried), scale);
                        if e < best {
                            best = e;
                            weights = tried;
                            moved = true;
                            break;
                        }
                    }
                }
                if !moved {
                    break;
                }
            }
        }
        if weights == before {
            break;
        }
        scale = fit_scale(samples, &as_f64(&weights));
    }
    Fitted {
        weights: unflatten(weights),
        scale,
        samples: samples.len(),
        error_before,
        error_after: error(samples, &as_f64(&weights), scale),
    }
}

/// The mean squared error between the results and the expected scores.
fn error(samples: &[Sample], weights: &[f64; FACTORS], scale: f64) -> f64 {
    let sum: f64 = samples
        .iter()
        .map(|s| {
            let expected = 1.0 / (1.0 + (-scale * s.score(weights)).exp());
            (s.result - expected).powi(2)
        })
        .sum();
    sum / samples.len().max(1) as f64
}

/// The scale that makes `weights` fit best: a golden-section search over its logarithm (the
/// error is unimodal in it), from a thousandth to a tenth per hundredth of a man.
fn fit_scale(samples: &[Sample], weights: &[f64; FACTORS]) -> f64 {
    let at = |log: f64| error(samples, weights, log.exp());
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (0.001f64.ln(), 0.1f64.ln());
    for _ in 0..60 {
        let a = hi - ratio * (hi - lo);
        let b = lo + ratio * (hi - lo);
        if at(a) < at(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// The weights in the fit's order: placing, then sliding.
fn flatten(w: &Weights) -> [i32; FACTORS] {
    let mut all = [0; FACTORS];
    all[..Terms::LEN].copy_from_slice(&w.placing.to_array());
    all[Terms::LEN..].copy_from_slice(&w.sliding.to_array());
    all
}

fn unflatten(all: [i32; FACTORS]) -> Weights {
    let half =
        |i: usize| Terms::from_array(all[i..i + Terms::LEN].try_into().expect("a phase's terms"));
    Weights {
        placing: half(0),
        sliding: half(Terms::LEN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nine Men's Morris, as the evaluation's tests make it.
    fn nine() -> Arc<Variant> {
        Arc::new(eval::tests::nine())
    }

    fn plan(seed: u64) -> Plan {
        Plan {
            seed,
            games: 6,
            nodes: 300,
            opening: (2, 6),
            max_plies: 120,
        }
    }

    #[test]
    fn one_seed_gives_one_set_of_weights_and_another_seed_other_games() {
        let nine = nine();
        let once = tune(&nine, &plan(7), &Weights::DEFAULT);
        let again = tune(&nine, &plan(7), &Weights::DEFAULT);
        assert_eq!(once, again);
        assert!(once.samples > 100, "{} positions", once.samples);
        assert!(once.error_after < once.error_before);
        assert_ne!(play(&nine, &plan(7)), play(&nine, &plan(8)));
    }

    #[test]
    fn a_sample_scores_as_the_evaluation_does() {
        let nine = nine();
        let weights = flatten(&Weights::DEFAULT).map(f64::from);
        for position in [
            "a7 d7,a4 8/7 w",
            "a7,d7,g7,a1 a4,d6,g4,d1 0/1 b",
            "a1,d1,g1,b2,f2 a7,d7,g7,c5,e5 0/0 w",
        ] {
            let pos = nine.parse_position(position).expect("a position");
            let sample = Sample::new(&nine, &pos, 0.5);
            let exact = eval::evaluate(&nine, &pos);
            // Only the blockade's share is rounded by the evaluation.
            assert!(
                (sample.score(&weights) - f64::from(exact)).abs() < 2.0,
                "{position}"
            );
        }
    }

    #[test]
    fn the_fit_finds_the_weight_that_made_the_results() {
        // Results made by a known curve from one term alone (mobility while sliding, worth 30):
        // starting from nothing, the fit finds it to within a few hundredths.
        let mut samples = Vec::new();
        let mut rng = Rng::new(3);
        for _ in 0..4000 {
            let mut factors = [0.0; FACTORS];
            factors[Terms::LEN + 5] = rng.below(21) as f64 - 10.0;
            let fixed = (rng.below(5) as f64 - 2.0) * f64::from(eval::MAN);
            let p = 1.0 / (1.0 + (-0.01 * (fixed + 30.0 * factors[Terms::LEN + 5])).exp());
            samples.push(Sample {
                fixed,
                factors,
                result: p,
            });
        }
        let zero = unflatten([0; FACTORS]);
        let fitted = fit(&samples, &zero);
        let found = fitted.weights.sliding.mobility;
        assert!((27..=33).contains(&found), "{found}");
        assert_eq!(fitted.weights.placing, Terms::default());
    }
}
