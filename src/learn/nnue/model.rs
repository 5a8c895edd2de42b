//! The float model of halfkp_256x2-32-32 (or halfkp_vm or kp_256x2-32-32, `TRAINED_SETS`)
//! with its factoriser, the forward pass, and the backward pass of one sample into a thread's
//! gradients.
//!
//! Parameters: the transformer rows `ft` (HalfKP: 125,388 x 256), the factor rows `factor`
//! (`factor_rows`: per BonaPiece and per piece relative to the king, added to every HalfKP row
//! they share), and the
//! small dense parameters in one flat vector (`dense`, layout below) so that the optimiser,
//! the merging of gradients and the checkpoint treat them as one block. Dense weights are kept
//! row per output (`[output][input]`, the file's order): the forward pass is then 32 dot
//! products, and the backward pass adds whole rows of 512, both over contiguous memory.
//!
//! Units: a transformer output of 1.0 is 127 in the integer network, a hidden output of 1.0
//! too, and the output `y` is `cp / OUTPUT_SCALE` (see `quantise`).

use super::data::{NO_FEATURE, SAMPLE_SIDE, SampleFeatures};
use crate::learn::rng::Rng;
use crate::nnue::features::FE_END;
use crate::nnue::{DEFAULT_FV_SCALE, FeatureSet, HALF_DIMENSIONS, HIDDEN, TRANSFORMED_DIMENSIONS};

/// Outputs of the transformer per perspective.
pub const HALF: usize = HALF_DIMENSIONS;
/// Centipawns per unit of the output: 127 (transformer scale) x 64 (weight scale) / FV_SCALE.
pub const OUTPUT_SCALE: f32 = (127 * 64 / DEFAULT_FV_SCALE) as f32;
/// Largest magnitude of a dense weight: what an int8 weight with a scale of 64 holds.
pub const WEIGHT_LIMIT: f32 = 127.0 / 64.0;

// Layout of `Model::dense` (and of the dense gradients and moments).
pub const FT_BIAS: usize = 0;
pub const L1_WEIGHTS: usize = FT_BIAS + HALF;
pub const L1_BIAS: usize = L1_WEIGHTS + HIDDEN * TRANSFORMED_DIMENSIONS;
pub const L2_WEIGHTS: usize = L1_BIAS + HIDDEN;
pub const L2_BIAS: usize = L2_WEIGHTS + HIDDEN * HIDDEN;
pub const OUT_WEIGHTS: usize = L2_BIAS + HIDDEN;
pub const OUT_BIAS: usize = OUT_WEIGHTS + HIDDEN;
pub const DENSE_LEN: usize = OUT_BIAS + 1;

/// Factor rows: one per BonaPiece (what every king square shares: the "P" features), then one
/// per board piece class (friend or enemy, kind: 18) and offset from the own king (17 x 17):
/// what a piece's place relative to the king is worth wherever the king stands. Each HalfKP
/// row's weights are its own plus those of its factor rows (`factor_rows`).
pub const FACTOR_ROWS: usize = FE_END + RELATIVE_ROWS;
/// Factor rows of the piece-relative-to-king kind.
pub const RELATIVE_ROWS: usize = 18 * 17 * 17;

/// The piece-relative-to-king factor row of HalfKP feature `f`, for a board piece.
#[inline(always)]
pub fn relative_row(f: usize) -> Option<usize> {
    let (king, bona) = (f / FE_END, f % FE_END);
    let board = bona.checked_sub(90)?;
    let (class, sq) = (board / 81, board % 81);
    let file = sq / 9 + 8 - king / 9;
    let rank = sq % 9 + 8 - king % 9;
    Some(FE_END + (class * 17 + file) * 17 + rank)
}

/// The factor rows of feature `f` of `set`: for HalfKP and HalfKP_vm its BonaPiece's, and for
/// a board piece its piece-relative-to-king row (HalfKP_vm's mirrored king squares number
/// files 1-5 as HalfKP does, so the same rows serve); for K+P, whose features are already
/// king-independent, a row of its own, so that every feature learns at the factor rows' rate.
#[inline(always)]
pub fn factor_rows(set: FeatureSet, f: usize) -> impl Iterator<Item = usize> {
    let kp = set == FeatureSet::Kp;
    std::iter::once(if kp { f } else { f % FE_END }).chain(if kp { None } else { relative_row(f) })
}

/// The feature sets the trainer trains (each as `*_256x2-32-32`).
pub const TRAINED_SETS: [FeatureSet; 3] = [FeatureSet::HalfKp, FeatureSet::HalfKpVm, FeatureSet::Kp];

/// A row of zeros, for the features without a relative factor row.
static ZERO_ROW: Row = Row::ZERO;

/// One row of 256 transformer weights (or their gradients or moments).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(64))]
pub struct Row(pub [f32; HALF]);

impl Row {
    pub const ZERO: Row = Row([0.0; HALF]);
}

/// The float network.
#[derive(Clone)]
pub struct Model {
    /// The input features (one of `TRAINED_SETS`).
    pub features: FeatureSet,
    /// Transformer rows, one per feature.
    pub ft: Vec<Row>,
    /// Factor rows (`FACTOR_ROWS`): per BonaPiece, then per piece relative to the king.
    pub factor: Vec<Row>,
    /// Transformer biases and the dense layers (layout: the constants above).
    pub dense: Vec<f32>,
}

/// Spread of the initial factor weights: 38 of them give an accumulator spread of about 0.15
/// around the bias, inside the clipped ReLU's linear range.
const INIT_FT: f32 = 0.042;
/// Initial transformer and hidden biases: the middle of the linear range [0, 1].
const INIT_BIAS: f32 = 0.5;

impl Model {
    /// A model with small seeded random weights: factor rows uniform in +-`INIT_FT`, HalfKP
    /// rows zero (a king square's rows only learn how it differs from what all king squares
    /// share, and a row no position touched exports as its factor row: no noise for rare
    /// king squares, and a file whose king blocks repeat), dense weights uniform in
    /// +-1/sqrt(inputs), biases in the middle of the linear range (output bias 0).
    pub fn new(seed: u64) -> Model {
        Model::new_for(FeatureSet::HalfKp, seed)
    }

    /// `new` for the feature set `features` (one of `TRAINED_SETS`; K+P's kings' rows start
    /// at 0 like the relative rows).
    pub fn new_for(features: FeatureSet, seed: u64) -> Model {
        debug_assert!(TRAINED_SETS.contains(&features));
        let mut rng = Rng::new(seed, 0x6e6e_7565);
        let mut uniform = |a: f32| {
            let u = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
            (2.0 * u - 1.0) * a
        };
        // The relative rows start at 0, as the HalfKP rows do.
        let mut factor = vec![Row::ZERO; FACTOR_ROWS];
        for row in &mut factor[..FE_END] {
            row.0.iter_mut().for_each(|w| *w = uniform(INIT_FT));
        }
        let mut dense = vec![0.0; DENSE_LEN];
        dense[FT_BIAS..L1_WEIGHTS].fill(INIT_BIAS);
        let l1 = 1.0 / (TRANSFORMED_DIMENSIONS as f32).sqrt();
        dense[L1_WEIGHTS..L1_BIAS].iter_mut().for_each(|w| *w = uniform(l1));
        dense[L1_BIAS..L2_WEIGHTS].fill(INIT_BIAS);
        let l2 = 1.0 / (HIDDEN as f32).sqrt();
        dense[L2_WEIGHTS..L2_BIAS].iter_mut().for_each(|w| *w = uniform(l2));
        dense[L2_BIAS..OUT_WEIGHTS].fill(INIT_BIAS);
        dense[OUT_WEIGHTS..OUT_BIAS].iter_mut().for_each(|w| *w = uniform(l2));
        Model { features, ft: vec![Row::ZERO; features.rows()], factor, dense }
    }

    /// The same function without factor rows: each folded into the HalfKP rows of its
    /// BonaPiece, added exactly as the forward pass adds them.
    pub fn folded(&self) -> Model {
        let mut m = self.clone();
        for (i, row) in m.ft.iter_mut().enumerate() {
            for r in factor_rows(self.features, i) {
                for (w, &p) in row.0.iter_mut().zip(&self.factor[r].0) {
                    *w += p;
                }
            }
        }
        m.factor.iter_mut().for_each(|r| *r = Row::ZERO);
        m
    }

    /// Keeps the dense weights within what int8 with a scale of 64 holds, so that
    /// quantisation never saturates.
    pub fn clip_weights(&mut self) {
        for range in [L1_WEIGHTS..L1_BIAS, L2_WEIGHTS..L2_BIAS, OUT_WEIGHTS..OUT_BIAS] {
            self.dense[range].iter_mut().for_each(|w| *w = w.clamp(-WEIGHT_LIMIT, WEIGHT_LIMIT));
        }
    }

    /// The output `y` (centipawns / `OUTPUT_SCALE`) of a sample.
    pub fn evaluate(&self, features: &SampleFeatures) -> f32 {
        let mut a = Activations::new();
        forward(self, features, &mut a)
    }
}

pub fn l1_rows(dense: &[f32]) -> &[[f32; TRANSFORMED_DIMENSIONS]] {
    dense[L1_WEIGHTS..L1_BIAS].as_chunks().0
}

pub fn l2_rows(dense: &[f32]) -> &[[f32; HIDDEN]] {
    dense[L2_WEIGHTS..L2_BIAS].as_chunks().0
}

/// What the backward pass needs of the forward pass.
pub struct Activations {
    /// Transformer sums per perspective (side to move first), before clipping.
    acc: [Row; 2],
    /// Clipped transformer outputs, side to move first.
    h0: [f32; TRANSFORMED_DIMENSIONS],
    z1: [f32; HIDDEN],
    h1: [f32; HIDDEN],
    z2: [f32; HIDDEN],
    h2: [f32; HIDDEN],
}

impl Activations {
    pub fn new() -> Activations {
        Activations {
            acc: [Row::ZERO; 2],
            h0: [0.0; TRANSFORMED_DIMENSIONS],
            z1: [0.0; HIDDEN],
            h1: [0.0; HIDDEN],
            z2: [0.0; HIDDEN],
            h2: [0.0; HIDDEN],
        }
    }
}

impl Default for Activations {
    fn default() -> Self {
        Activations::new()
    }
}

/// Dot product of equal-length slices (a multiple of 16 long) in 16 lanes, summed in a fixed
/// order, so that it vectorises and gives the same result on every path.
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 16];
    for (x, y) in a.as_chunks::<16>().0.iter().zip(b.as_chunks::<16>().0) {
        for l in 0..16 {
            lanes[l] += x[l] * y[l];
        }
    }
    let mut s = 0.0;
    for l in lanes {
        s += l;
    }
    s
}

#[inline(always)]
fn clip(x: f32) -> f32 {
    x.clamp(0.0, 1.0)
}

/// Whether the clipped ReLU passes gradient at `x` (its linear range).
#[inline(always)]
fn active(x: f32) -> bool {
    x > 0.0 && x < 1.0
}

/// The forward pass of one sample; returns `y`.
#[inline(always)]
pub fn forward(model: &Model, features: &SampleFeatures, a: &mut Activations) -> f32 {
    let d = &model.dense;
    let kp = model.features == FeatureSet::Kp;
    for side in 0..2 {
        let acc = &mut a.acc[side].0;
        acc.copy_from_slice(&d[FT_BIAS..L1_WEIGHTS]);
        for &f in &features[side * SAMPLE_SIDE..(side + 1) * SAMPLE_SIDE] {
            if f == NO_FEATURE {
                continue;
            }
            let w = &model.ft[f as usize].0;
            let (p, r) = if kp {
                (&model.factor[f as usize].0, &ZERO_ROW.0)
            } else {
                let r = relative_row(f as usize).map_or(&ZERO_ROW.0, |r| &model.factor[r].0);
                (&model.factor[f as usize % FE_END].0, r)
            };
            // The row and its factors summed first, as the folded network has them.
            for k in 0..HALF {
                acc[k] += w[k] + p[k] + r[k];
            }
        }
        for (h, &x) in a.h0[side * HALF..(side + 1) * HALF].iter_mut().zip(acc.iter()) {
            *h = clip(x);
        }
    }
    for (j, row) in l1_rows(d).iter().enumerate() {
        a.z1[j] = d[L1_BIAS + j] + dot(row, &a.h0);
        a.h1[j] = clip(a.z1[j]);
    }
    for (j, row) in l2_rows(d).iter().enumerate() {
        a.z2[j] = d[L2_BIAS + j] + dot(row, &a.h1);
        a.h2[j] = clip(a.z2[j]);
    }
    d[OUT_BIAS] + dot(&d[OUT_WEIGHTS..OUT_BIAS], &a.h2)
}

/// Asks the CPU to start loading a row into the cache. Rows are read at random from a table of
/// 128 MB, and the wait for each row's first line would otherwise dominate the training time.
#[inline(always)]
pub fn prefetch(row: &Row) {
    #[cfg(target_arch = "x86_64")]
    for line in 0..HALF / 16 {
        // SAFETY: a prefetch is a hint that reads nothing architecturally and never faults; the
        // address lies inside `row` anyway.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>(row.0.as_ptr().add(line * 16).cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = row;
}

/// Prefetches what the backward pass of a sample will read: its HalfKP rows and the gradient
/// rows already made for them.
#[inline(always)]
pub fn prefetch_sample(model: &Model, features: &SampleFeatures, g: &Gradients) {
    for &f in features.iter().filter(|&&f| f != NO_FEATURE) {
        prefetch(&model.ft[f as usize]);
        if let Some(r) = g.ft.get(f as usize) {
            prefetch(r);
        }
    }
}

/// Gradients of the rows of a big table, kept only for the rows touched: a slot per touched
/// row, found through a dense index. Cleared between steps without freeing anything.
pub struct SparseRows {
    slot: Vec<u32>,
    rows: Vec<Row>,
    touched: Vec<u32>,
}

const NO_SLOT: u32 = u32::MAX;

impl SparseRows {
    pub fn new(len: usize) -> SparseRows {
        SparseRows { slot: vec![NO_SLOT; len], rows: Vec::new(), touched: Vec::new() }
    }

    /// The gradient row of `index`, zero when first touched.
    #[inline(always)]
    pub fn row_mut(&mut self, index: usize) -> &mut Row {
        let mut s = self.slot[index];
        if s == NO_SLOT {
            s = self.rows.len() as u32;
            self.slot[index] = s;
            self.rows.push(Row::ZERO);
            self.touched.push(index as u32);
        }
        &mut self.rows[s as usize]
    }

    #[inline(always)]
    pub fn get(&self, index: usize) -> Option<&Row> {
        let s = self.slot[index];
        (s != NO_SLOT).then(|| &self.rows[s as usize])
    }

    /// The rows touched since the last `clear`, in the order first touched.
    pub fn touched(&self) -> &[u32] {
        &self.touched
    }

    pub fn clear(&mut self) {
        for &i in &self.touched {
            self.slot[i as usize] = NO_SLOT;
        }
        self.touched.clear();
        self.rows.clear();
    }
}

/// One thread's gradients for a step: the HalfKP rows sparsely, the rest densely, and the sum
/// of the losses of its samples.
pub struct Gradients {
    pub ft: SparseRows,
    pub dense: Vec<f32>,
    pub loss: f64,
}

impl Gradients {
    /// Gradients for a model of `rows` transformer rows.
    pub fn new(rows: usize) -> Gradients {
        Gradients { ft: SparseRows::new(rows), dense: vec![0.0; DENSE_LEN], loss: 0.0 }
    }

    pub fn clear(&mut self) {
        self.ft.clear();
        self.dense.fill(0.0);
        self.loss = 0.0;
    }
}

/// Loss function: the win probability `sigmoid(cp / scale)` against the target, by cross
/// entropy.
#[derive(Clone, Copy, Debug)]
pub struct Loss {
    /// Weight of the score in the target (the rest is the game result).
    pub lambda: f32,
    /// Centipawns per unit of the logistic (600 by default).
    pub scale: f32,
}

impl Loss {
    /// The target probability: `lambda * sigmoid(score / scale) + (1 - lambda) * (result + 1) / 2`.
    #[inline(always)]
    pub fn target(&self, score: i16, result: i8) -> f32 {
        let s = sigmoid(score as f32 / self.scale);
        self.lambda * s + (1.0 - self.lambda) * (result as f32 + 1.0) * 0.5
    }

    /// Cross entropy of `sigmoid(z)` against `t`, `z = cp / scale`, and its derivative by `y`.
    #[inline(always)]
    pub fn of(&self, y: f32, t: f32) -> (f64, f32) {
        let k = OUTPUT_SCALE / self.scale;
        let z = y * k;
        // -t ln s(z) - (1 - t) ln(1 - s(z)) = softplus(z) - t z, without overflow.
        let zd = z as f64;
        let softplus = zd.max(0.0) + (-zd.abs()).exp().ln_1p();
        (softplus - t as f64 * zd, (sigmoid(z) - t) * k)
    }
}

#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Forward and backward pass of one sample whose output is added to `base` (in output units):
/// adds its loss to `g.loss` and its gradients, times `weight` (1 / batch size), to `g`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn backward(
    model: &Model,
    features: &SampleFeatures,
    target: f32,
    base: f32,
    loss: &Loss,
    weight: f32,
    a: &mut Activations,
    g: &mut Gradients,
) {
    let y = forward(model, features, a) + base;
    let (l, dy) = loss.of(y, target);
    g.loss += l;
    let dy = dy * weight;
    let d = &model.dense;
    let gd = &mut g.dense;

    gd[OUT_BIAS] += dy;
    let mut dz2 = [0f32; HIDDEN];
    for j in 0..HIDDEN {
        gd[OUT_WEIGHTS + j] += dy * a.h2[j];
        dz2[j] = if active(a.z2[j]) { dy * d[OUT_WEIGHTS + j] } else { 0.0 };
        gd[L2_BIAS + j] += dz2[j];
    }
    let mut dh1 = [0f32; HIDDEN];
    for (j, row) in l2_rows(d).iter().enumerate() {
        let dz = dz2[j];
        if dz == 0.0 {
            continue;
        }
        let grow = &mut gd[L2_WEIGHTS + j * HIDDEN..L2_WEIGHTS + (j + 1) * HIDDEN];
        for i in 0..HIDDEN {
            grow[i] += dz * a.h1[i];
            dh1[i] += dz * row[i];
        }
    }
    let mut dz1 = [0f32; HIDDEN];
    for j in 0..HIDDEN {
        dz1[j] = if active(a.z1[j]) { dh1[j] } else { 0.0 };
        gd[L1_BIAS + j] += dz1[j];
    }
    let mut dh0 = [0f32; TRANSFORMED_DIMENSIONS];
    for (j, row) in l1_rows(d).iter().enumerate() {
        let dz = dz1[j];
        if dz == 0.0 {
            continue;
        }
        let grow = &mut gd[L1_WEIGHTS + j * TRANSFORMED_DIMENSIONS..L1_WEIGHTS + (j + 1) * TRANSFORMED_DIMENSIONS];
        for i in 0..TRANSFORMED_DIMENSIONS {
            grow[i] += dz * a.h0[i];
            dh0[i] += dz * row[i];
        }
    }
    let mut dacc = [Row::ZERO; 2];
    for side in 0..2 {
        let acc = &a.acc[side].0;
        for k in 0..HALF {
            dacc[side].0[k] = if active(acc[k]) { dh0[side * HALF + k] } else { 0.0 };
        }
        for k in 0..HALF {
            gd[FT_BIAS + k] += dacc[side].0[k];
        }
    }
    for (d, side_features) in dacc.iter().zip(features.as_chunks::<SAMPLE_SIDE>().0) {
        if d.0.iter().all(|&x| x == 0.0) {
            continue;
        }
        for &f in side_features.iter().filter(|&&f| f != NO_FEATURE) {
            for (w, &x) in g.ft.row_mut(f as usize).0.iter_mut().zip(&d.0) {
                *w += x;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::nnue::data::sample_features;
    use crate::shogi::Position;

    fn samples() -> Vec<SampleFeatures> {
        [
            crate::shogi::STARTPOS,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
            "lnsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ]
        .iter()
        .map(|s| sample_features(&Position::from_sfen(s).unwrap()).unwrap())
        .collect()
    }

    /// A model whose factor rows are not zero.
    fn factored_model() -> Model {
        let mut m = Model::new(3);
        let mut rng = Rng::new(5, 0);
        for r in &mut m.factor {
            r.0.iter_mut().for_each(|w| *w = ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.02);
        }
        m
    }

    #[test]
    fn relative_rows_number_each_piece_and_offset_once() {
        // The same piece at the same offset from the king shares a row; rows fill the range.
        let mut seen = vec![false; RELATIVE_ROWS];
        for king in 0..81 {
            for bona in 90..FE_END {
                let r = relative_row(king * FE_END + bona).unwrap();
                seen[r - FE_END] = true;
                // Shifting the king and the piece together by one file keeps the row.
                let (sq, king_file) = ((bona - 90) % 81, king / 9);
                if king_file < 8 && sq / 9 < 8 {
                    assert_eq!(relative_row((king + 9) * FE_END + bona + 9), Some(r));
                }
            }
            assert_eq!(relative_row(king * FE_END + 89), None);
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn the_factoriser_fold_is_exact() {
        let m = factored_model();
        let folded = m.folded();
        assert!(folded.factor.iter().all(|r| *r == Row::ZERO));
        for f in samples() {
            assert_eq!(m.evaluate(&f).to_bits(), folded.evaluate(&f).to_bits());
        }
    }

    #[test]
    fn gradients_match_finite_differences() {
        let mut m = factored_model();
        // Enough spread that many units sit in the linear range and the output is not tiny.
        m.dense[OUT_WEIGHTS..OUT_BIAS].iter_mut().for_each(|w| *w *= 4.0);
        let loss = Loss { lambda: 0.5, scale: 600.0 };
        let f = samples()[1];
        let t = loss.target(250, -1);
        let mut g = Gradients::new(m.ft.len());
        let mut a = Activations::new();
        // On a base evaluation (a correction network) the loss is that of output + base.
        let base = 0.3;
        let mut on_base = Gradients::new(m.ft.len());
        backward(&m, &f, t, base, &loss, 1.0, &mut a, &mut on_base);
        assert!((on_base.loss - loss.of(m.evaluate(&f) + base, t).0).abs() < 1e-6);
        backward(&m, &f, t, 0.0, &loss, 1.0, &mut a, &mut g);
        assert!((on_base.loss - g.loss).abs() > 1e-3);
        let total = |m: &Model| loss.of(m.evaluate(&f), t).0;
        let h = 1e-3f32;
        let mut checked = 0;
        let mut check = |m: &mut Model, get: &dyn Fn(&mut Model) -> &mut f32, analytic: f32| {
            let x = *get(m);
            *get(m) = x + h;
            let up = total(m);
            *get(m) = x - h;
            let down = total(m);
            *get(m) = x;
            let numeric = ((up - down) / (2.0 * h as f64)) as f32;
            let tol = 2e-3 + 0.02 * analytic.abs().max(numeric.abs());
            assert!((numeric - analytic).abs() <= tol, "numeric {numeric} analytic {analytic}");
            checked += (analytic != 0.0) as usize;
        };
        for i in [OUT_BIAS, OUT_WEIGHTS + 3, L2_BIAS + 7, L2_WEIGHTS + 33, L1_BIAS + 1, L1_WEIGHTS + 700, FT_BIAS + 9] {
            check(&mut m, &move |m: &mut Model| &mut m.dense[i], g.dense[i]);
        }
        let (feature, k) = (f[2] as usize, 17);
        let analytic = g.ft.get(feature).map_or(0.0, |r| r.0[k]);
        check(&mut m, &move |m: &mut Model| &mut m.ft[feature].0[k], analytic);
        // The factor row of a feature of the other side gets the sum over its HalfKP rows.
        let (feature, k) = (f[SAMPLE_SIDE + 5] as usize, 40);
        let bona = feature % FE_END;
        let sum: f32 =
            g.ft.touched()
                .iter()
                .filter(|&&r| r as usize % FE_END == bona)
                .map(|&r| g.ft.get(r as usize).unwrap().0[k])
                .sum();
        check(&mut m, &move |m: &mut Model| &mut m.factor[bona].0[k], sum);
        // A piece-relative-to-king row: the sum over the HalfKP rows that share it.
        let feature = f
            .iter()
            .map(|&x| x as usize)
            .find(|&x| x != NO_FEATURE as usize && relative_row(x).is_some())
            .expect("a board piece");
        let rel = relative_row(feature).unwrap();
        let sum: f32 =
            g.ft.touched()
                .iter()
                .filter(|&&r| relative_row(r as usize) == Some(rel))
                .map(|&r| g.ft.get(r as usize).unwrap().0[k])
                .sum();
        check(&mut m, &move |m: &mut Model| &mut m.factor[rel].0[k], sum);
        assert!(checked >= 6, "only {checked} non-zero gradients checked");
    }
}
