//! Logistic-regression tuning of the evaluation weights.
//!
//! The model: the win probability of the side to move is `sigmoid(eval / SCALE)`, with `eval`
//! the weighted feature sum of `crate::eval::features`. The target blends the search score and
//! the game result: `LAMBDA * sigmoid(score / SCALE) + (1 - LAMBDA) * result`. Loss: cross
//! entropy, plus an L2 pull of the positional weights towards zero. Optimiser: Adam on
//! mini-batches. Whole games are held out for validation, and the weights with the best
//! validation loss are kept.

use crate::eval::features::{self, FeatureList, NUM_FEATURES};
use crate::shogi::{Color, Position};

/// Centipawns per unit of logit (a 600 cp lead is a ~73% win chance).
pub const SCALE: f64 = 600.0;

#[derive(Clone, Debug)]
pub struct Sample {
    pub features: Vec<(u32, i8)>,
    /// +1 if Black is to move, -1 if White (the features are in Black's view).
    pub stm_sign: i8,
    pub target: f32,
    pub game: u64,
}

#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub epochs: usize,
    pub lambda: f64,
    pub learning_rate: f64,
    pub l2: f64,
    pub batch: usize,
    /// Every n-th game goes to the validation set.
    pub holdout_every: u64,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions { epochs: 30, lambda: 0.5, learning_rate: 2.0, l2: 1e-6, batch: 4096, holdout_every: 10 }
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Parses one self-play record line (see `selfplay.rs`).
pub fn parse_record(line: &str, lambda: f64) -> Result<Sample, String> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 5 {
        return Err(format!("expected 5 tab-separated fields, got {}", f.len()));
    }
    let game: u64 = f[0].parse().map_err(|_| format!("bad game id '{}'", f[0]))?;
    let pos = Position::from_sfen(f[2]).map_err(|e| format!("bad SFEN: {e}"))?;
    let score: f64 = f[3].parse().map_err(|_| format!("bad score '{}'", f[3]))?;
    let result: f64 = f[4].parse().map_err(|_| format!("bad result '{}'", f[4]))?;
    if !(0.0..=1.0).contains(&result) {
        return Err(format!("result {result} out of 0..1"));
    }
    let mut list = FeatureList::default();
    features::visit(&pos, &mut list);
    let target = lambda * sigmoid(score / SCALE) + (1.0 - lambda) * result;
    Ok(Sample {
        features: list.0,
        stm_sign: if pos.side_to_move() == Color::Black { 1 } else { -1 },
        target: target as f32,
        game,
    })
}

/// Predicted win probability of the side to move.
fn predict(w: &[f64], s: &Sample) -> f64 {
    let mut v = 0.0;
    for &(i, c) in &s.features {
        v += w[i as usize] * c as f64;
    }
    sigmoid(v * s.stm_sign as f64 / SCALE)
}

/// Mean cross-entropy of `samples` under `w`.
pub fn loss(w: &[f64], samples: &[Sample]) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let mut total = 0.0;
    for s in samples {
        let p = predict(w, s).clamp(1e-9, 1.0 - 1e-9);
        let t = s.target as f64;
        total -= t * p.ln() + (1.0 - t) * (1.0 - p).ln();
    }
    total / samples.len() as f64
}

/// Whether weight `i` is pulled towards zero (positional terms) or left free (material).
fn regularised(i: usize) -> bool {
    i >= features::KP_OWN_BASE
}

pub struct TrainReport {
    pub weights: Vec<f64>,
    /// (epoch, training loss, validation loss) per epoch; epoch 0 is the start.
    pub history: Vec<(usize, f64, f64)>,
    pub best_epoch: usize,
}

/// Fits the weights, starting from `init`. `progress` gets each epoch's losses.
pub fn train(
    samples: &[Sample],
    init: &[f64],
    opts: &TrainOptions,
    mut progress: impl FnMut(usize, f64, f64),
) -> TrainReport {
    assert_eq!(init.len(), NUM_FEATURES);
    let (valid, train): (Vec<&Sample>, Vec<&Sample>) =
        samples.iter().partition(|s| opts.holdout_every > 0 && s.game % opts.holdout_every == 0);
    let train: Vec<Sample> = train.into_iter().cloned().collect();
    let valid: Vec<Sample> = valid.into_iter().cloned().collect();
    let mut w = init.to_vec();
    let mut m = vec![0.0; NUM_FEATURES];
    let mut v = vec![0.0; NUM_FEATURES];
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let mut step = 0i32;
    let mut grad = vec![0.0; NUM_FEATURES];
    let mut touched: Vec<usize> = Vec::new();
    let start_valid = loss(&w, if valid.is_empty() { &train } else { &valid });
    let mut history = vec![(0, loss(&w, &train), start_valid)];
    progress(0, history[0].1, history[0].2);
    let mut best = (start_valid, w.clone(), 0);
    // A fixed shuffle order (deterministic: a multiplicative stride over the samples).
    let n = train.len();
    let stride = if n > 1 { (n as u64 * 7 / 13).max(1) | 1 } else { 1 };
    for epoch in 1..=opts.epochs {
        let mut k = 0usize;
        while k < n {
            let end = (k + opts.batch).min(n);
            touched.clear();
            for j in k..end {
                let s = &train[((j as u64 * stride) % n as u64) as usize];
                let p = predict(&w, s);
                // d(cross entropy)/d(logit) = p - t; logit = stm_sign * v / SCALE.
                let g = (p - s.target as f64) * s.stm_sign as f64 / SCALE;
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
            let lr = opts.learning_rate;
            for &i in &touched {
                let mut g = grad[i] / batch_len;
                if regularised(i) {
                    g += opts.l2 * w[i];
                }
                m[i] = b1 * m[i] + (1.0 - b1) * g;
                v[i] = b2 * v[i] + (1.0 - b2) * g * g;
                let mh = m[i] / (1.0 - b1.powi(step));
                let vh = v[i] / (1.0 - b2.powi(step));
                w[i] -= lr * mh / (vh.sqrt() + eps);
                grad[i] = 0.0;
            }
            k = end;
        }
        let tl = loss(&w, &train);
        let vl = if valid.is_empty() { tl } else { loss(&w, &valid) };
        history.push((epoch, tl, vl));
        progress(epoch, tl, vl);
        if vl < best.0 {
            best = (vl, w.clone(), epoch);
        }
    }
    TrainReport { weights: best.1, history, best_epoch: best.2 }
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
