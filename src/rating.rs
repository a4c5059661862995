//! Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system", 2013): a rating, its
//! deviation (how unsure it is) and its volatility (how erratic), moved by results. Puzzles and
//! the browsers that solve them are rated alike: an attempt is a game between the two, won by
//! the browser when it solves the puzzle, and each attempt is its own rating period, so ratings
//! move at once.
//!
//! Pure arithmetic: no I/O, no clock. Written out rather than taken from a crate: it is fifty
//! lines, and the test below is the paper's own worked example.

/// The paper's scale factor between the Glicko and Glicko-2 scales.
const SCALE: f64 = 173.7178;
/// The system constant τ: how much the volatility may change (the paper suggests 0.3 to 1.2).
const TAU: f64 = 0.5;
/// When the volatility's iteration stops.
const EPSILON: f64 = 0.000_001;
/// The deviation never grows past a new rating's, nor falls below this: a rating that can no
/// longer move would stop learning from a puzzle's attempts.
const MIN_DEVIATION: f64 = 45.0;

/// A Glicko-2 rating on the Glicko scale (1500 the centre).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    /// The rating.
    pub rating: f64,
    /// The rating deviation: 350 for an unknown player, smaller as results come in.
    pub deviation: f64,
    /// The volatility σ.
    pub volatility: f64,
}

impl Default for Rating {
    /// A new player's: 1500, deviation 350, volatility 0.06 (the paper's).
    fn default() -> Self {
        Rating {
            rating: 1500.0,
            deviation: 350.0,
            volatility: 0.06,
        }
    }
}

/// The g(φ) of the paper: how much an opponent's uncertainty damps a result.
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

impl Rating {
    /// The rating after one rating period of `results`: each an opponent's rating before it and
    /// the score (1 a win, 0.5 a draw, 0 a loss). With no results only the deviation grows.
    pub fn after(self, results: &[(Rating, f64)]) -> Rating {
        let mu = (self.rating - 1500.0) / SCALE;
        let phi = self.deviation / SCALE;
        if results.is_empty() {
            let grown = (phi * phi + self.volatility * self.volatility).sqrt() * SCALE;
            return Rating {
                deviation: grown.min(Rating::default().deviation),
                ..self
            };
        }
        let (mut inv_v, mut sum) = (0.0, 0.0);
        for (opponent, score) in results {
            let mu_j = (opponent.rating - 1500.0) / SCALE;
            let g_j = g(opponent.deviation / SCALE);
            let e = 1.0 / (1.0 + (-g_j * (mu - mu_j)).exp());
            inv_v += g_j * g_j * e * (1.0 - e);
            sum += g_j * (score - e);
        }
        let v = 1.0 / inv_v;
        let delta = v * sum;
        let sigma = self.new_volatility(phi, v, delta);
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu_new = mu + phi_new * phi_new * sum;
        Rating {
            rating: mu_new * SCALE + 1500.0,
            deviation: phi_new * SCALE,
            volatility: sigma,
        }
    }

    /// The paper's step 5: the new volatility, by the Illinois algorithm.
    fn new_volatility(self, phi: f64, v: f64, delta: f64) -> f64 {
        let a = (self.volatility * self.volatility).ln();
        let f = |x: f64| {
            let ex = x.exp();
            let d = phi * phi + v + ex;
            ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (TAU * TAU)
        };
        let mut big_a = a;
        let mut big_b = if delta * delta > phi * phi + v {
            (delta * delta - phi * phi - v).ln()
        } else {
            let mut k = 1.0;
            while f(a - k * TAU) < 0.0 {
                k += 1.0;
            }
            a - k * TAU
        };
        let (mut f_a, mut f_b) = (f(big_a), f(big_b));
        while (big_b - big_a).abs() > EPSILON {
            let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
            let f_c = f(c);
            if f_c * f_b <= 0.0 {
                (big_a, f_a) = (big_b, f_b);
            } else {
                f_a /= 2.0;
            }
            (big_b, f_b) = (c, f_c);
        }
        (big_a / 2.0).exp()
    }

    /// Both ratings after one attempt of a puzzle: the solver's and the puzzle's, the solver
    /// winning when `solved`. The deviations keep to at least [`MIN_DEVIATION`].
    pub fn attempt(solver: Rating, puzzle: Rating, solved: bool) -> (Rating, Rating) {
        let score = if solved { 1.0 } else { 0.0 };
        let floor = |r: Rating| Rating {
            deviation: r.deviation.max(MIN_DEVIATION),
            ..r
        };
        (
            floor(solver.after(&[(puzzle, score)])),
            floor(puzzle.after(&[(solver, 1.0 - score)])),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(a: f64, b: f64, within: f64) -> bool {
        (a - b).abs() <= within
    }

    /// The worked example of Glickman's paper (section "Example calculation").
    #[test]
    fn the_papers_worked_example() {
        let player = Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let opponent = |rating, deviation| Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let after = player.after(&[
            (opponent(1400.0, 30.0), 1.0),
            (opponent(1550.0, 100.0), 0.0),
            (opponent(1700.0, 300.0), 0.0),
        ]);
        assert!(near(after.rating, 1464.06, 0.01), "{after:?}");
        assert!(near(after.deviation, 151.52, 0.01), "{after:?}");
        assert!(near(after.volatility, 0.05999, 0.00001), "{after:?}");
    }

    #[test]
    fn a_period_without_results_only_widens_the_deviation() {
        let r = Rating {
            rating: 1600.0,
            deviation: 100.0,
            volatility: 0.06,
        };
        let after = r.after(&[]);
        assert_eq!(after.rating, 1600.0);
        assert!(after.deviation > 100.0 && after.deviation < 101.0);
        assert_eq!(Rating::default().after(&[]).deviation, 350.0);
    }

    #[test]
    fn a_solve_moves_the_solver_up_and_the_puzzle_down() {
        let (solver, puzzle) = Rating::attempt(Rating::default(), Rating::default(), true);
        assert!(solver.rating > 1500.0 && puzzle.rating < 1500.0);
        assert!(near(solver.rating - 1500.0, 1500.0 - puzzle.rating, 1e-9));
        let (solver, puzzle) = Rating::attempt(Rating::default(), Rating::default(), false);
        assert!(solver.rating < 1500.0 && puzzle.rating > 1500.0);
        let mut sure = Rating::default();
        for _ in 0..200 {
            sure = Rating::attempt(sure, Rating::default(), true).0;
        }
        assert!(sure.deviation >= MIN_DEVIATION);
    }
}
