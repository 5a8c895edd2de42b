//! Mini-batch training on several threads.
//!
//! A step splits its batch into one contiguous share per thread; each thread runs the forward
//! and backward passes of its samples into its own gradients (HalfKP rows sparsely, see
//! `model::SparseRows`). The update then takes the sorted union of the touched rows, cut into
//! one range per thread: each thread sums the threads' gradients of its rows (in thread
//! order, so a run is repeatable for a given thread count), updates them with Adam, and sums
//! them per BonaPiece into the factor rows' gradient. The factor rows and the dense parameters
//! are then updated once, and the dense weights clipped. Nothing is allocated per sample.

use super::checkpoint::State;
use super::data::Dataset;
use super::data::SAMPLE_SIDE;
use super::model::{self, Activations, Gradients, Loss, Model, Row, SparseRows};
use super::optim::{Adam, Step};
use crate::learn::rng::Rng;
use crate::nnue::Backend;
use crate::nnue::FeatureSet;
use crate::nnue::features::FE_END;

/// Hyper-parameters of a training run.
#[derive(Clone, Copy, Debug)]
pub struct TrainOptions {
    /// Epochs in all (a resumed run continues up to this).
    pub epochs: usize,
    pub batch: usize,
    /// Adam's learning rate in the first epoch.
    pub lr: f32,
    /// Factor applied to the learning rate after every epoch.
    pub lr_decay: f32,
    /// Learning rate of the HalfKP rows relative to the rest. Adam moves a row touched for
    /// the first time as far as a row seen in every batch, so that at full rate the king-specific
    /// rows memorise their few positions; slower, they learn only what the factor rows (shared
    /// by all king squares) cannot.
    pub halfkp_lr_scale: f32,
    pub loss: Loss,
    pub threads: usize,
    /// Seeds the initial weights and each epoch's shuffle.
    pub seed: u64,
}

/// Positions per step. On 285 k positions, 4096 reached the best validation loss in half the
/// epochs 16384 took, and a lower one (0.5854 in 4 epochs against 0.5891 in 8).
pub const DEFAULT_BATCH: usize = 4096;

/// See `TrainOptions::halfkp_lr_scale`.
pub const DEFAULT_HALFKP_LR_SCALE: f32 = 0.03;

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            epochs: 10,
            batch: DEFAULT_BATCH,
            lr: 1e-3,
            lr_decay: 1.0,
            halfkp_lr_scale: DEFAULT_HALFKP_LR_SCALE,
            loss: Loss { lambda: 0.5, scale: 600.0 },
            threads: 1,
            seed: 1,
        }
    }
}

impl TrainOptions {
    /// The learning rate of epoch `epoch` (1-based).
    pub fn lr_of_epoch(&self, epoch: usize) -> f32 {
        self.lr * self.lr_decay.powi(epoch.saturating_sub(1).min(i32::MAX as usize) as i32)
    }
}

/// Defines `$name`, which runs `$body` compiled for AVX2 where the CPU has it (the loops over
/// 256, 512 and 32 floats then run on 8-lane vectors) and for the baseline otherwise. Both give
/// the same numbers: the same operations in the same order, and no fused multiply-add.
macro_rules! simd_fn {
    ($(#[$m:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$m])*
        #[allow(clippy::too_many_arguments)]
        fn $name($($arg: $ty),*) $(-> $ret)? {
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            fn body($($arg: $ty),*) $(-> $ret)? $body
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            #[allow(clippy::too_many_arguments)]
            fn avx2($($arg: $ty),*) $(-> $ret)? {
                body($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            if Backend::detect().avx2_support().is_some() {
                // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2.
                return unsafe { avx2($($arg),*) };
            }
            body($($arg),*)
        }
    };
}

simd_fn! {
    /// Forward and backward passes of the samples `part` into `g`.
    fn accumulate(model: &Model, data: &Dataset, part: &[u32], loss: &Loss, weight: f32, g: &mut Gradients) {
        let mut a = Activations::new();
        for (j, &i) in part.iter().enumerate() {
            if let Some(&next) = part.get(j + 1) {
                model::prefetch_sample(model, data.features(next as usize), g);
            }
            let i = i as usize;
            let t = loss.target(data.score(i), data.result(i));
            let base = data.base(i) as f32 / model::OUTPUT_SCALE;
            model::backward(model, data.features(i), t, base, loss, weight, &mut a, g);
        }
    }
}

simd_fn! {
    /// Sum of the losses of samples `range`.
    fn loss_sum(model: &Model, data: &Dataset, range: std::ops::Range<usize>, loss: &Loss) -> f64 {
        let mut a = Activations::new();
        let mut sum = 0.0;
        for i in range {
            let y = model::forward(model, data.features(i), &mut a) + data.base(i) as f32 / model::OUTPUT_SCALE;
            sum += loss.of(y, loss.target(data.score(i), data.result(i))).0;
        }
        sum
    }
}

simd_fn! {
    /// Adam on the HalfKP rows `rows` (sorted; `ft`, `m`, `v` start at row `base`), their
    /// gradients summed over `grads`; adds those per BonaPiece to `factor`.
    fn update_rows(
        step: Step,
        rows: &[u32],
        base: usize,
        ft: &mut [Row],
        m: &mut [Row],
        v: &mut [Row],
        grads: &[Gradients],
        factor: &mut SparseRows,
        set: FeatureSet,
    ) {
        let mut g = Row::ZERO;
        for &r in rows {
            let r = r as usize;
            g.0.fill(0.0);
            for t in grads {
                if let Some(x) = t.ft.get(r) {
                    for (g, &x) in g.0.iter_mut().zip(&x.0) {
                        *g += x;
                    }
                }
            }
            let i = r - base;
            step.update(&mut ft[i].0, &mut m[i].0, &mut v[i].0, &g.0);
            for fr in model::factor_rows(set, r) {
                for (f, &g) in factor.row_mut(fr).0.iter_mut().zip(&g.0) {
                    *f += g;
                }
            }
        }
    }
}

simd_fn! {
    /// Adam on the factor rows touched in `g`, and on the dense parameters.
    fn update_rest(step: Step, model: &mut Model, adam: &mut Adam, g: &SparseRows, dense: &[f32]) {
        for &b in g.touched() {
            let b = b as usize;
            if let Some(grad) = g.get(b) {
                step.update(&mut model.factor[b].0, &mut adam.factor_m[b].0, &mut adam.factor_v[b].0, &grad.0);
            }
        }
        step.update(&mut model.dense, &mut adam.dense_m, &mut adam.dense_v, dense);
    }
}

/// Runs the tasks, the first on this thread and the others on threads of their own.
fn run_all<T: FnOnce() -> R + Send, R: Send>(tasks: Vec<T>) -> Vec<R> {
    let mut tasks = tasks.into_iter();
    let Some(first) = tasks.next() else { return Vec::new() };
    std::thread::scope(|s| {
        let handles: Vec<_> = tasks.map(|t| s.spawn(t)).collect();
        let mut out = vec![first()];
        // The work returns no errors; a panic would be a bug, passed on as it is.
        out.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))));
        out
    })
}

/// A model being trained, with its optimiser and the buffers of its threads.
pub struct Trainer {
    pub state: State,
    grads: Vec<Gradients>,
    factor_grads: Vec<SparseRows>,
    /// The union of the rows touched in a step, and marks for building it.
    union: Vec<u32>,
    marked: Vec<bool>,
    /// The batch by king squares (key, index), and its indices in that order.
    order: Vec<u64>,
    sorted: Vec<u32>,
}

impl Trainer {
    /// A new HalfKP model (seeded) to be trained on `threads` threads.
    pub fn new(seed: u64, threads: usize) -> Trainer {
        Trainer::new_for(FeatureSet::HalfKp, seed, threads)
    }

    /// A new model of the feature set `features` (one of `model::TRAINED_SETS`).
    pub fn new_for(features: FeatureSet, seed: u64, threads: usize) -> Trainer {
        let model = Model::new_for(features, seed);
        let adam = Adam::new(model.ft.len());
        Trainer::from_state(State { model, adam, epochs_done: 0, best: None }, threads)
    }

    /// Continues from a state (a checkpoint's).
    pub fn from_state(state: State, threads: usize) -> Trainer {
        let threads = threads.max(1);
        let rows = state.model.ft.len();
        Trainer {
            state,
            grads: (0..threads).map(|_| Gradients::new(rows)).collect(),
            factor_grads: (0..threads).map(|_| SparseRows::new(model::FACTOR_ROWS)).collect(),
            union: Vec::new(),
            marked: vec![false; rows],
            order: Vec::new(),
            sorted: Vec::new(),
        }
    }

    pub fn model(&self) -> &Model {
        &self.state.model
    }

    fn threads(&self) -> usize {
        self.grads.len()
    }

    /// Mean loss over a data set (0 when it is empty).
    pub fn loss(&self, data: &Dataset, loss: &Loss) -> f64 {
        if data.is_empty() {
            return 0.0;
        }
        let n = data.len();
        let share = n.div_ceil(self.threads());
        let model = &self.state.model;
        let tasks: Vec<_> =
            (0..n).step_by(share).map(|lo| move || loss_sum(model, data, lo..(lo + share).min(n), loss)).collect();
        run_all(tasks).iter().sum::<f64>() / n as f64
    }

    /// Trains one epoch (the next one) on `data` shuffled; `progress` is told the samples done
    /// and the mean loss so far after each batch. Returns the epoch's mean training loss (of
    /// each batch before its step).
    pub fn train_epoch(&mut self, data: &Dataset, opts: &TrainOptions, mut progress: impl FnMut(usize, f64)) -> f64 {
        let epoch = self.state.epochs_done + 1;
        let lr = opts.lr_of_epoch(epoch);
        let mut order: Vec<u32> = (0..data.len() as u32).collect();
        let mut rng = Rng::new(opts.seed, epoch as u64);
        for i in (1..order.len()).rev() {
            order.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
        }
        let (mut sum, mut done) = (0.0, 0);
        for batch in order.chunks(opts.batch.max(1)) {
            sum += self.step(data, batch, lr, opts.halfkp_lr_scale, &opts.loss);
            done += batch.len();
            progress(done, sum / done as f64);
        }
        self.state.epochs_done = epoch;
        if done == 0 { 0.0 } else { sum / done as f64 }
    }

    /// One optimiser step on the samples `batch` (the HalfKP rows at `lr * halfkp_lr_scale`);
    /// returns the sum of their losses.
    pub fn step(&mut self, data: &Dataset, batch: &[u32], lr: f32, halfkp_lr_scale: f32, loss: &Loss) -> f64 {
        if batch.is_empty() {
            return 0.0;
        }
        let weight = 1.0 / batch.len() as f32;
        let share = batch.len().div_ceil(self.threads());
        self.grads.iter_mut().for_each(Gradients::clear);
        // Samples with the same two king squares read and write the same rows for most of their
        // pieces: taken one after another, those rows are still in the cache.
        self.order.clear();
        self.order.extend(batch.iter().map(|&i| {
            let f = data.features(i as usize);
            let kings = f[0] as u64 / FE_END as u64 * 81 + f[SAMPLE_SIDE] as u64 / FE_END as u64;
            kings << 32 | i as u64
        }));
        self.order.sort_unstable();
        self.sorted.clear();
        self.sorted.extend(self.order.iter().map(|&k| k as u32));
        let model = &self.state.model;
        let tasks: Vec<_> = self
            .grads
            .iter_mut()
            .zip(self.sorted.chunks(share))
            .map(|(g, part)| move || accumulate(model, data, part, loss, weight, g))
            .collect();
        run_all(tasks);
        let total = self.grads.iter().map(|g| g.loss).sum();
        self.update(lr, halfkp_lr_scale);
        total
    }

    fn update(&mut self, lr: f32, halfkp_lr_scale: f32) {
        let Trainer { state, grads, factor_grads, union, marked, .. } = self;
        let step = state.adam.next_step(lr);
        let set = state.model.features;
        let halfkp_step = Step::new(lr * halfkp_lr_scale, state.adam.step);

        union.clear();
        for g in grads.iter() {
            for &r in g.ft.touched() {
                if !marked[r as usize] {
                    marked[r as usize] = true;
                    union.push(r);
                }
            }
        }
        union.iter().for_each(|&r| marked[r as usize] = false);
        union.sort_unstable();

        // Disjoint row ranges per thread, split off the tables in order.
        let share = union.len().div_ceil(grads.len()).max(1);
        let (mut ft, mut m, mut v) = (&mut state.model.ft[..], &mut state.adam.ft_m[..], &mut state.adam.ft_v[..]);
        let mut base = 0;
        let grads_ref: &[Gradients] = grads;
        let mut tasks = Vec::new();
        for (rows, factor) in union.chunks(share).zip(factor_grads.iter_mut()) {
            let end = rows[rows.len() - 1] as usize + 1;
            let (ft_part, ft_rest) = std::mem::take(&mut ft).split_at_mut(end - base);
            let (m_part, m_rest) = std::mem::take(&mut m).split_at_mut(end - base);
            let (v_part, v_rest) = std::mem::take(&mut v).split_at_mut(end - base);
            (ft, m, v) = (ft_rest, m_rest, v_rest);
            let first = base;
            base = end;
            factor.clear();
            tasks.push(move || update_rows(halfkp_step, rows, first, ft_part, m_part, v_part, grads_ref, factor, set));
        }
        let used = tasks.len();
        run_all(tasks);

        // Factor gradients and dense gradients summed into the first thread's buffers.
        let (first, others) = factor_grads.split_at_mut(1);
        for f in &others[..used.saturating_sub(1)] {
            for &b in f.touched() {
                if let Some(row) = f.get(b as usize) {
                    for (x, &y) in first[0].row_mut(b as usize).0.iter_mut().zip(&row.0) {
                        *x += y;
                    }
                }
            }
        }
        let (g0, gs) = grads.split_at_mut(1);
        for g in gs.iter() {
            for (x, &y) in g0[0].dense.iter_mut().zip(&g.dense) {
                *x += y;
            }
        }
        if used == 0 {
            first[0].clear();
        }
        update_rest(step, &mut state.model, &mut state.adam, &first[0], &g0[0].dense);
        state.model.clip_weights();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::nnue::data::sample_features;
    use crate::shogi::Position;

    fn tiny_data() -> Dataset {
        let mut d = Dataset::default();
        let sfens = [
            (crate::shogi::STARTPOS, 40, 0),
            ("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1", -900, -1),
            ("8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124", 1200, 1),
            ("lnsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1", 500, 1),
        ];
        for (s, score, result) in sfens {
            d.push(&sample_features(&Position::from_sfen(s).unwrap()).unwrap(), score, result);
        }
        d
    }

    #[test]
    fn thread_counts_agree_and_steps_fit_the_data() {
        let data = tiny_data();
        let opts = TrainOptions { epochs: 1, batch: 4, ..TrainOptions::default() };
        let mut one = Trainer::new(9, 1);
        let mut three = Trainer::new(9, 3);
        let before = one.loss(&data, &opts.loss);
        assert!((before - three.loss(&data, &opts.loss)).abs() < 1e-12);
        for _ in 0..30 {
            one.train_epoch(&data, &opts, |_, _| {});
            three.train_epoch(&data, &opts, |_, _| {});
        }
        let after = one.loss(&data, &opts.loss);
        assert!(after < before - 0.01, "loss {before} -> {after}");
        // Gradients summed in another grouping differ only by rounding.
        assert!((after - three.loss(&data, &opts.loss)).abs() < 1e-4);
        assert!(one.state.adam.step == 30 && one.state.epochs_done == 30);
        // Dense weights stay inside what int8 holds.
        assert!(one.model().dense.iter().all(|w| w.is_finite()));
    }
}
