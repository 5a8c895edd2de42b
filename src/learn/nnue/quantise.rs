//! Quantisation of the float model into the standard network's integers, and the integer
//! forward pass of the reference (to check an export against `Network::evaluate`).
//!
//! Scales: transformer weights and biases x127 (int16; a clipped output of 1.0 is 127), dense
//! weights x64 (int8; the clipped ReLU's shift by 6 undoes it), dense biases x127x64 (int32).
//! The output is then `127 * 64 * y`, which the engine divides by FV_SCALE 16: `cp = 508 y`.
//! Factor rows are rounded each on its own and their integers added to the HalfKP row's, so
//! that a file is exactly the sum its factors give wherever the HalfKP rows learned nothing
//! (which `nnue::packed` compresses to almost nothing). Values are rounded to the nearest integer and saturate at the type's limits (the
//! trainer clips dense weights to +-127/64, so those never do). The hidden biases get
//! `SHIFT_ROUNDING` more, so that the clipped ReLU's shift rounds to the nearest step instead
//! of down (which would lower every hidden output by half a step on average).

use super::data::{NO_FEATURE, SAMPLE_SIDE, SampleFeatures};
use super::model::{self, FT_BIAS, L1_BIAS, L2_BIAS, Model, OUT_BIAS, OUT_WEIGHTS};
use crate::nnue::{DEFAULT_FV_SCALE, HALF_DIMENSIONS, HIDDEN, MAX_EVAL, NetworkParameters, TRANSFORMED_DIMENSIONS};
use std::path::Path;

/// Transformer scale: a float output of 1.0 is 127.
pub const FT_SCALE: f32 = 127.0;
/// Dense weight scale (the clipped ReLU shifts right by 6).
pub const WEIGHT_SCALE: f32 = 64.0;

fn bias32(x: f32) -> i32 {
    (x as f64 * (FT_SCALE * WEIGHT_SCALE) as f64).round() as i32
}

/// Added to the hidden layers' biases: half the clipped ReLU's divisor 64, so that its shift
/// (which rounds down, half a step low on average) rounds to the nearest step instead.
pub const SHIFT_ROUNDING: i32 = 1 << 5;

fn weight8(x: f32) -> i8 {
    (x * WEIGHT_SCALE).round() as i8
}

/// The integer parameters of the model, factor rows folded in (a network of the model's
/// feature set).
pub fn quantise(m: &Model) -> NetworkParameters {
    let mut p = NetworkParameters::zeroed_for(m.features);
    for (k, b) in p.ft_biases.iter_mut().enumerate() {
        *b = (m.dense[FT_BIAS + k] * FT_SCALE).round() as i16;
    }
    let round = |w: f32| (w * FT_SCALE).round() as i32;
    let factors: Vec<[i32; HALF_DIMENSIONS]> = m.factor.iter().map(|r| r.0.map(round)).collect();
    for (i, (q, row)) in p.ft_weights.iter_mut().zip(&m.ft).enumerate() {
        let mut w = row.0.map(round);
        for r in model::factor_rows(m.features, i) {
            for (w, &f) in w.iter_mut().zip(&factors[r]) {
                *w += f;
            }
        }
        for (q, &w) in q.iter_mut().zip(&w) {
            *q = w.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
        }
    }
    for (j, row) in model::l1_rows(&m.dense).iter().enumerate() {
        p.l1_biases[j] = bias32(m.dense[L1_BIAS + j]).saturating_add(SHIFT_ROUNDING);
        for (q, &w) in p.l1_weights[j].iter_mut().zip(row) {
            *q = weight8(w);
        }
    }
    for (j, row) in model::l2_rows(&m.dense).iter().enumerate() {
        p.l2_biases[j] = bias32(m.dense[L2_BIAS + j]).saturating_add(SHIFT_ROUNDING);
        for (q, &w) in p.l2_weights[j].iter_mut().zip(row) {
            *q = weight8(w);
        }
    }
    p.output_bias = bias32(m.dense[OUT_BIAS]);
    for (q, &w) in p.output_weights.iter_mut().zip(&m.dense[OUT_WEIGHTS..OUT_BIAS]) {
        *q = weight8(w);
    }
    p
}

/// The raw integer output for a sample, computed as the reference does: 16-bit wrapping
/// transformer sums clamped to 0..=127, 32-bit wrapping dense sums, clipped ReLU
/// `clamp(x >> 6, 0, 127)`.
pub fn raw_output(p: &NetworkParameters, features: &SampleFeatures) -> i32 {
    let mut input = [0u8; TRANSFORMED_DIMENSIONS];
    for side in 0..2 {
        let mut acc = p.ft_biases;
        for &f in features[side * SAMPLE_SIDE..(side + 1) * SAMPLE_SIDE].iter().filter(|&&f| f != NO_FEATURE) {
            for (a, &w) in acc.iter_mut().zip(&p.ft_weights[f as usize]) {
                *a = a.wrapping_add(w);
            }
        }
        for (x, &a) in input[side * HALF_DIMENSIONS..].iter_mut().zip(&acc) {
            *x = a.clamp(0, 127) as u8;
        }
    }
    let h1 = hidden(&p.l1_biases, &p.l1_weights[..], &input);
    let h2 = hidden(&p.l2_biases, &p.l2_weights, &h1);
    p.output_weights.iter().zip(&h2).fold(p.output_bias, |s, (&w, &x)| s.wrapping_add(w as i32 * x as i32))
}

/// An affine layer with its clipped ReLU.
fn hidden<const IN: usize>(biases: &[i32; HIDDEN], rows: &[[i8; IN]], x: &[u8; IN]) -> [u8; HIDDEN] {
    let mut out = [0u8; HIDDEN];
    for ((o, row), &b) in out.iter_mut().zip(rows).zip(biases) {
        let s = row.iter().zip(x).fold(b, |s, (&w, &x)| s.wrapping_add(w as i32 * x as i32));
        *o = (s >> 6).clamp(0, 127) as u8;
    }
    out
}

/// The evaluation the engine reports for a sample (FV_SCALE 16): the raw output divided with
/// truncation, clamped to the largest evaluation.
pub fn evaluate(p: &NetworkParameters, features: &SampleFeatures) -> i32 {
    (raw_output(p, features) / DEFAULT_FV_SCALE).clamp(-MAX_EVAL, MAX_EVAL)
}

/// Writes the network file (through a temporary file renamed into place, so that a reader
/// never sees half a network).
pub fn write(p: &NetworkParameters, path: &Path) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, p.to_bytes())?;
    std::fs::rename(&tmp, path)
}
