//! Logistic-regression tuning of the evaluation weights.
//!
//! The model: the win probability of the side to move is `sigmoid(eval / K)`, with `eval` the
//! weighted feature sum of `crate::eval::features` and `K` the scale. `K` is fitted first, on
//! the starting weights against the game results (the Texel method), so that the weights keep
//! their centipawn meaning. The target blends the search score and the game result:
//! `lambda * sigmoid(score / K) + (1 - lambda) * result`. Loss: cross entropy, plus an L2 pull of
//! every weight towards its starting value (the hand-made or previous weights are the prior;
//! rare features stay near it). Material and hand values can be frozen. Optimiser: Adam on
//! mini-batches. Whole groups of samples (a self-play game, or the recorded games through one
//! opening: `Sample::group`) are held out for validation, and the weights with the best
//! validation loss are kept.

use crate::eval::features::{self, FeatureList, NUM_FEATURES};
use crate::records::Game;
use crate::search::movepick::is_capture;
use crate::search::see::see_ge;
use crate::shogi::movegen::{self, MoveList};
use crate::shogi::{Color, Position};

#[derive(Clone, Debug)]
pub struct Sample {
    pub features: Vec<(u32, i8)>,
    /// +1 if Black is to move, -1 if White (the features are in Black's view).
    pub stm_sign: i8,
    /// Search score (centipawns, side to move); None where there is none (a recorded game's
    /// position without a score of the chosen player), and the target is the result alone.
    pub score: Option<f32>,
    /// Game result for the side to move: 1, 0.5 or 0.
    pub result: f32,
    /// Hold-out group: samples of one group are all trained on or all held out (self-play:
    /// the game number; recorded games: the opening, see `linear::opening_group`).
    pub group: u64,
}

#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub epochs: usize,
    pub lambda: f64,
    pub learning_rate: f64,
    /// Pull towards the starting weights.
    pub l2: f64,
    pub batch: usize,
    /// Every n-th game goes to the validation set (0: none).
    pub holdout_every: u64,
    /// Scale `K`; fitted on the data when None.
    pub scale: Option<f64>,
    /// Keep material and hand values as they start.
    pub freeze_material: bool,
}

/// Epochs by default: on the recorded games the held-out loss is best after 3-4 epochs (the
/// weights of that epoch are kept).
pub const DEFAULT_EPOCHS: usize = 12;
/// Pull towards the starting weights by default. With the games held out by opening
/// (`linear::opening_group`), 1e-5 fits the held-out games better than 3e-5 or 1e-4 (cross
/// entropy 0.6019 against 0.6035 and 0.6063 on 3,000 games); early stopping does the rest.
pub const DEFAULT_L2: f64 = 1e-5;

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            epochs: DEFAULT_EPOCHS,
            lambda: 0.5,
            learning_rate: 1.0,
            l2: DEFAULT_L2,
            batch: 4096,
            holdout_every: 10,
            scale: None,
            freeze_material: false,
        }
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Parses one self-play record line (see `selfplay.rs`).
pub fn parse_record(line: &str) -> Result<Sample, String> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 5 {
        return Err(format!("expected 5 tab-separated fields, got {}", f.len()));
    }
    let game: u64 = f[0].parse().map_err(|_| format!("bad game id '{}'", f[0]))?;
    let pos = Position::from_sfen(f[2]).map_err(|e| format!("bad SFEN: {e}"))?;
    let score: f32 = f[3].parse().map_err(|_| format!("bad score '{}'", f[3]))?;
    let result: f32 = f[4].parse().map_err(|_| format!("bad result '{}'", f[4]))?;
    if !(0.0..=1.0).contains(&result) {
        return Err(format!("result {result} out of 0..1"));
    }
    Ok(sample(&pos, Some(score), result, game))
}

/// A training sample of `pos` with its targets.
pub fn sample(pos: &Position, score: Option<f32>, result: f32, group: u64) -> Sample {
    let mut list = FeatureList::default();
    features::visit(pos, &mut list);
    Sample { features: list.0, stm_sign: if pos.side_to_move() == Color::Black { 1 } else { -1 }, score, result, group }
}

/// Whether `pos` is quiet enough for its static evaluation to stand for it: not in check, and
/// no capture that wins material by exchange evaluation (a position in the middle of an
/// exchange would teach the tempo term to stand for the recapture).
pub fn is_quiet(pos: &Position) -> bool {
    if pos.in_check() {
        return false;
    }
    let mut list = MoveList::new();
    movegen::generate::<{ movegen::CAPTURES }>(pos, &mut list);
    !list.iter().any(|&m| is_capture(pos, m) && see_ge(pos, m, 1))
}

/// Samples from a played game (a record of a match, say against a stronger engine): every
/// quiet position (`is_quiet`) after the first `skip_plies`, with the game's result as the
/// target, and the recorded search score (`Game::scores`) where `scorer` is to move: match
/// records keep each engine's score of the position it moved in. `winner` is None for a draw.
pub fn game_samples(
    game: &Game,
    winner: Option<Color>,
    skip_plies: usize,
    group: u64,
    scorer: Option<Color>,
) -> Vec<Sample> {
    let mut pos = game.start.clone();
    let mut out = Vec::new();
    for (ply, &m) in game.moves.iter().enumerate() {
        if ply >= skip_plies && is_quiet(&pos) {
            let stm = pos.side_to_move();
            let result = match winner {
                None => 0.5,
                Some(c) if c == stm => 1.0,
                Some(_) => 0.0,
            };
            let score = match game.scores.get(ply) {
                Some(&Some(black_view)) if scorer == Some(stm) => {
                    let clamped = black_view.clamp(-MAX_RECORDED_SCORE, MAX_RECORDED_SCORE);
                    Some(if stm == Color::Black { clamped } else { -clamped } as f32)
                }
                _ => None,
            };
            out.push(sample(&pos, score, result, group));
        }
        pos.do_move(m);
    }
    out
}

/// Recorded scores are clamped to this (mate scores are written as +-100000 or so).
pub const MAX_RECORDED_SCORE: i32 = 10_000;

/// Evaluation of a sample from the side to move's view.
fn eval_stm(w: &[f64], s: &Sample) -> f64 {
    let mut v = 0.0;
    for &(i, c) in &s.features {
        v += w[i as usize] * c as f64;
    }
    v * s.stm_sign as f64
}

fn target(s: &Sample, lambda: f64, scale: f64) -> f64 {
    match s.score {
        Some(score) => lambda * sigmoid(score as f64 / scale) + (1.0 - lambda) * s.result as f64,
        None => s.result as f64,
    }
}

fn cross_entropy(p: f64, t: f64) -> f64 {
    let p = p.clamp(1e-9, 1.0 - 1e-9);
    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
}

/// Mean cross-entropy of `samples` under `w`.
pub fn loss(w: &[f64], samples: &[Sample], lambda: f64, scale: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let total: f64 =
        samples.iter().map(|s| cross_entropy(sigmoid(eval_stm(w, s) / scale), target(s, lambda, scale))).sum();
    total / samples.len() as f64
}

/// The scale that makes `sigmoid(eval / K)` predict the game results best (golden-section
/// search over 100..5000 centipawns).
pub fn fit_scale(w: &[f64], samples: &[Sample]) -> f64 {
    let evals: Vec<(f64, f64)> = samples.iter().map(|s| (eval_stm(w, s), s.result as f64)).collect();
    let f = |k: f64| evals.iter().map(|&(e, r)| cross_entropy(sigmoid(e / k), r)).sum::<f64>();
    let (mut a, mut b) = (100.0f64, 5000.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..40 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = f(d);
        }
    }
    (a + b) / 2.0
}

fn is_material(i: usize) -> bool {
    i < features::KP_OWN_BASE
}

#[derive(Clone, Copy, Debug)]
pub struct EpochLoss {
    pub epoch: usize,
    /// Against the training targets (search score and result blended by lambda).
    pub train: f64,
    /// Against the held-out samples' blended targets.
    pub valid: f64,
    /// Against the held-out samples' game results alone: what the weights are chosen by (the
    /// evaluation is to predict who wins; the scores only help it learn).
    pub valid_result: f64,
}

pub struct TrainReport {
    pub weights: Vec<f64>,
    pub scale: f64,
    /// Losses per epoch; epoch 0 is the start.
    pub history: Vec<EpochLoss>,
    pub best_epoch: usize,
}

/// Fits the weights, starting from (and regularised towards) `init`. `progress` gets each
/// epoch's losses.
pub fn train(
    samples: &[Sample],
    init: &[f64],
    opts: &TrainOptions,
    mut progress: impl FnMut(&EpochLoss),
) -> TrainReport {
    assert_eq!(init.len(), NUM_FEATURES);
    let (valid, train): (Vec<&Sample>, Vec<&Sample>) =
        samples.iter().partition(|s| opts.holdout_every > 0 && s.group % opts.holdout_every == 0);
    let scale = opts.scale.unwrap_or_else(|| fit_scale(init, samples));
    let lambda = opts.lambda;
    let train: Vec<&Sample> = train;
    let valid_or_train: Vec<Sample> = if valid.is_empty() {
        train.iter().map(|s| (*s).clone()).collect()
    } else {
        valid.into_iter().cloned().collect()
    };
    let train_owned: Vec<Sample> = train.iter().map(|s| (*s).clone()).collect();
    let mut w = init.to_vec();
    let mut m = vec![0.0; NUM_FEATURES];
    let mut v = vec![0.0; NUM_FEATURES];
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let mut step = 0i32;
    let mut grad = vec![0.0; NUM_FEATURES];
    let mut touched: Vec<usize> = Vec::new();
    let losses = |epoch: usize, w: &[f64]| EpochLoss {
        epoch,
        train: loss(w, &train_owned, lambda, scale),
        valid: loss(w, &valid_or_train, lambda, scale),
        valid_result: loss(w, &valid_or_train, 0.0, scale),
    };
    let start = losses(0, &w);
    progress(&start);
    let mut history = vec![start];
    let mut best = (start.valid_result, w.clone(), 0);
    // A fixed shuffle order (deterministic: a stride coprime to the sample count).
    let n = train_owned.len();
    let mut stride = (n as u64 * 7 / 13).max(1);
    while n > 1 && gcd(stride, n as u64) != 1 {
        stride += 1;
    }
    for epoch in 1..=opts.epochs {
        let mut k = 0usize;
        while k < n {
            let end = (k + opts.batch).min(n);
            touched.clear();
            for j in k..end {
                let s = &train_owned[((j as u64 * stride) % n as u64) as usize];
                let p = sigmoid(eval_stm(&w, s) / scale);
                // d(cross entropy)/d(logit) = p - t; logit = stm_sign * v / K.
                let g = (p - target(s, lambda, scale)) * s.stm_sign as f64 / scale;
                for &(i, c) in &s.features {
                    let i = i as usize;
                    if grad[i] == 0.0 {
                        touched.push(i);
                    }
                    grad[i] += g * c as f64;
                }
            }
            step += 1;
            let batch_len = (end - k) as f64;
            for &i in &touched {
                let mut g = grad[i] / batch_len;
                grad[i] = 0.0;
                if opts.freeze_material && is_material(i) {
                    continue;
                }
                g += opts.l2 * (w[i] - init[i]) / scale;
                m[i] = b1 * m[i] + (1.0 - b1) * g;
                v[i] = b2 * v[i] + (1.0 - b2) * g * g;
                let mh = m[i] / (1.0 - b1.powi(step));
                let vh = v[i] / (1.0 - b2.powi(step));
                w[i] -= opts.learning_rate * mh / (vh.sqrt() + eps);
            }
            k = end;
        }
        let l = losses(epoch, &w);
        progress(&l);
        history.push(l);
        if l.valid_result < best.0 {
            best = (l.valid_result, w.clone(), epoch);
        }
    }
    TrainReport { weights: best.1, scale, history, best_epoch: best.2 }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Weights rounded for the engine.
pub fn quantise(w: &[f64]) -> Vec<i16> {
    w.iter().map(|&x| x.round().clamp(i16::MIN as f64, i16::MAX as f64) as i16).collect()
}

/// The Rust source of `src/eval/weights.rs`.
pub fn weights_source(w: &[i16]) -> String {
    let mut s = String::from("// Generated by `hayate tune`; see README (Evaluation) to regenerate. Do not edit.\n[\n");
    for chunk in w.chunks(16) {
        s.push_str("    ");
        let parts: Vec<String> = chunk.iter().map(|x| x.to_string()).collect();
        s.push_str(&parts.join(", "));
        s.push_str(",\n");
    }
    s.push_str("]\n");
    s
}
