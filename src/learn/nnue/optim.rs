//! Adam, as PyTorch's `Adam` (dense parameters) and `SparseAdam` (the transformer rows).
//!
//! `m = b1 m + (1 - b1) g`, `v = b2 v + (1 - b2) g^2`, and the parameter moves by
//! `lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)`, with `t` the step count. Sparse
//! (lazy) updates: only the HalfKP and factor rows a batch touched are updated; the moments of
//! the others stay as they are (not decayed), as in SparseAdam. Dense parameters are updated
//! every step.

use super::model::{DENSE_LEN, Row};

/// First-moment decay.
pub const BETA1: f32 = 0.9;
/// Second-moment decay.
pub const BETA2: f32 = 0.999;
/// Added to the denominator.
pub const EPS: f32 = 1e-8;

/// The moments of every parameter, shaped as the model, and the number of steps taken.
#[derive(Clone)]
pub struct Adam {
    pub step: u64,
    pub ft_m: Vec<Row>,
    pub ft_v: Vec<Row>,
    pub factor_m: Vec<Row>,
    pub factor_v: Vec<Row>,
    pub dense_m: Vec<f32>,
    pub dense_v: Vec<f32>,
}

impl Adam {
    /// Zero moments for a model of `rows` transformer rows.
    pub fn new(rows: usize) -> Adam {
        Adam {
            step: 0,
            ft_m: vec![Row::ZERO; rows],
            ft_v: vec![Row::ZERO; rows],
            factor_m: vec![Row::ZERO; super::model::FACTOR_ROWS],
            factor_v: vec![Row::ZERO; super::model::FACTOR_ROWS],
            dense_m: vec![0.0; DENSE_LEN],
            dense_v: vec![0.0; DENSE_LEN],
        }
    }

    /// Counts a step and returns its constants.
    pub fn next_step(&mut self, lr: f32) -> Step {
        self.step += 1;
        Step::new(lr, self.step)
    }
}

/// The constants of step `t`.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    step_size: f32,
    bias_correction2_sqrt: f32,
}

impl Step {
    pub fn new(lr: f32, t: u64) -> Step {
        let t = t.min(i32::MAX as u64) as i32;
        let bc1 = 1.0 - (BETA1 as f64).powi(t);
        let bc2 = 1.0 - (BETA2 as f64).powi(t);
        Step { step_size: (lr as f64 / bc1) as f32, bias_correction2_sqrt: bc2.sqrt() as f32 }
    }

    /// Updates parameters `w` with moments `m`, `v` by gradients `g` (all of one length).
    #[inline(always)]
    pub fn update(&self, w: &mut [f32], m: &mut [f32], v: &mut [f32], g: &[f32]) {
        for (((w, m), v), &g) in w.iter_mut().zip(m.iter_mut()).zip(v.iter_mut()).zip(g) {
            *m = BETA1 * *m + (1.0 - BETA1) * g;
            *v = BETA2 * *v + (1.0 - BETA2) * g * g;
            *w -= self.step_size * *m / (v.sqrt() / self.bias_correction2_sqrt + EPS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_steps_move_by_the_learning_rate() {
        // With bias correction, Adam's first step moves each parameter by lr against the sign
        // of its gradient, whatever the gradient's size.
        let (mut w, mut m, mut v) = (vec![1.0f32, 1.0, 1.0], vec![0.0; 3], vec![0.0; 3]);
        Step::new(0.01, 1).update(&mut w, &mut m, &mut v, &[3.0, -1e-3, 0.0]);
        assert!((w[0] - 0.99).abs() < 1e-6 && (w[1] - 1.01).abs() < 1e-6 && w[2] == 1.0, "{w:?}");
        // A steady gradient keeps the step at lr, large or small: 49 steps in all.
        for t in 2..50 {
            Step::new(0.01, t).update(&mut w, &mut m, &mut v, &[3.0, -1e-3, 0.0]);
        }
        assert!((w[0] - 0.51).abs() < 1e-4 && (w[1] - 1.49).abs() < 1e-4 && w[2] == 1.0, "{w:?}");
    }
}
