//! A CPU trainer for halfkp_256x2-32-32 networks, exporting the standard `nn.bin`.
//!
//! - `data`: PackedSfenValue files decoded once into HalfKP feature indices (the numbering of
//!   `crate::nnue::features`, so training and inference see the same features), a contiguous
//!   validation tail per file.
//! - `model`: the float network, its forward pass and the backward pass of a sample.
//! - `optim`: Adam, sparse (lazy) for the transformer rows.
//! - `trainer`: batches on several threads, sparse gradient merging, the update.
//! - `quantise`: the integer network and its file (written by `crate::nnue::NetworkParameters`).
//! - `checkpoint`: the float model and optimiser state, to resume.
//!
//! **Model.** The transformer (125,388 HalfKP features x 256, plus biases) is applied to both
//! perspectives, side to move first; clipped ReLU to [0, 1]; affine 512->32, clipped ReLU;
//! 32->32, clipped ReLU; 32->1. A factoriser adds 1,548 king-independent rows (one per
//! BonaPiece) to every HalfKP row of the same BonaPiece: what a piece on a square is worth
//! whatever the king's square is learnt from every position at once, which is what lets a few
//! million positions train 32 M transformer weights. A second one adds 5,202 rows of a board
//! piece's place relative to the own king (18 piece classes x 17 x 17 offsets) to the HalfKP
//! rows of that piece and offset, whatever the king's square. The factor rows are folded into
//! the HalfKP rows at export.
//!
//! **Loss.** The output `y` is in units where `cp = 508 y` (127 x 64 / FV_SCALE 16, see
//! `quantise`). The predicted win probability is `p = sigmoid(cp / scale)` (`scale` 600), the
//! target `t = lambda sigmoid(score / scale) + (1 - lambda) (result + 1) / 2`, and the loss the
//! plain cross entropy `-t ln p - (1 - t) ln(1 - p)` (not minus the target's own entropy, so a
//! perfect fit does not reach 0 unless the targets are 0 or 1), averaged over the samples.
//!
//! **Optimiser.** Adam (`optim`: betas 0.9 and 0.999, eps 1e-8), learning rate `lr` times
//! `lr_decay` per epoch; sparse updates of the transformer and factor rows a batch touched,
//! dense for the rest; after every step the dense weights are clipped to +-127/64, so that
//! int8 weights with a scale of 64 hold them. The HalfKP rows learn at `halfkp_lr_scale` (0.03)
//! times the rate: Adam moves a row seen once as far as one seen in every batch, so at the full
//! rate the king-specific rows memorise their few positions (docs/training.md has the losses
//! behind the choice; more data should favour larger scales).
//!
//! **Speed.** A batch is taken in order of its two king squares, so that consecutive samples
//! share most of their rows in the cache, and the rows of the next sample are prefetched; the
//! forward and backward passes are compiled for AVX2 where the CPU has it (`trainer`).
//!
//! **Initialisation** (seeded): factor rows uniform in +-0.042, HalfKP rows 0, transformer and
//! hidden biases 0.5 (the middle of the clipped ReLU's linear range), dense weights uniform in
//! +-1/sqrt(inputs), output bias 0. HalfKP rows starting at 0 rather than the factor rows
//! starting at 0 train as well (docs/training.md), and the rows of king squares no position
//! trained are then exactly the factor rows, so the exported king blocks repeat and the packed
//! network (`crate::nnue::packed`) is much smaller.
//!
//! **Runs.** `run` trains epoch after epoch, computes the validation loss, writes the network of
//! the best validation epoch so far to `out` (of every epoch when there is no validation set,
//! so the last one), and the checkpoint.

pub mod checkpoint;
pub mod data;
pub mod gensfen;
pub mod model;
pub mod optim;
pub mod quantise;
pub mod trainer;

pub use checkpoint::{CheckpointError, State};
pub use data::{DataError, Dataset};
pub use model::{Loss, Model};
pub use trainer::{TrainOptions, Trainer};

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What a run reports as it goes.
pub enum Event<'a> {
    /// After each batch: samples done of the epoch, and their mean loss.
    Batch {
        epoch: usize,
        done: usize,
        total: usize,
        loss: f64,
    },
    Epoch(&'a EpochReport),
}

/// The outcome of an epoch.
#[derive(Clone, Debug)]
pub struct EpochReport {
    pub epoch: usize,
    pub epochs: usize,
    pub lr: f32,
    /// Mean training loss of the epoch's batches (each before its step).
    pub train_loss: f64,
    /// Loss on the validation set after the epoch (None without one).
    pub validation_loss: Option<f64>,
    /// Whether the network was written to `out` (the best validation loss so far).
    pub written: bool,
    /// Training time of the epoch (without the validation and the files).
    pub seconds: f64,
    pub samples_per_second: f64,
}

/// Why a run stopped.
#[derive(Debug)]
pub enum TrainError {
    Checkpoint(CheckpointError),
    /// The network file could not be written.
    Export {
        path: PathBuf,
        err: std::io::Error,
    },
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            TrainError::Checkpoint(e) => write!(f, "{e}"),
            TrainError::Export { path, err } => write!(f, "{}: {err}", path.display()),
        }
    }
}

impl std::error::Error for TrainError {}

impl From<CheckpointError> for TrainError {
    fn from(e: CheckpointError) -> Self {
        TrainError::Checkpoint(e)
    }
}

/// Trains from the trainer's state up to `opts.epochs` epochs (see the module doc).
pub fn run(
    trainer: &mut Trainer,
    train: &Dataset,
    valid: &Dataset,
    opts: &TrainOptions,
    out: Option<&Path>,
    checkpoint_path: Option<&Path>,
    mut on: impl FnMut(Event),
) -> Result<(), TrainError> {
    while trainer.state.epochs_done < opts.epochs {
        let epoch = trainer.state.epochs_done + 1;
        let start = Instant::now();
        let train_loss = trainer.train_epoch(train, opts, |done, loss| {
            on(Event::Batch { epoch, done, total: train.len(), loss });
        });
        let seconds = start.elapsed().as_secs_f64();
        let validation_loss = (!valid.is_empty()).then(|| trainer.loss(valid, &opts.loss));
        let better = match validation_loss {
            Some(v) => trainer.state.best.is_none_or(|(_, best)| v < best),
            None => true,
        };
        if let (true, Some(v)) = (better, validation_loss) {
            trainer.state.best = Some((epoch, v));
        }
        let mut written = false;
        if let (true, Some(path)) = (better, out) {
            let params = quantise::quantise(trainer.model());
            quantise::write(&params, path).map_err(|err| TrainError::Export { path: path.to_path_buf(), err })?;
            written = true;
        }
        if let Some(path) = checkpoint_path {
            checkpoint::save(&trainer.state, path)?;
        }
        on(Event::Epoch(&EpochReport {
            epoch,
            epochs: opts.epochs,
            lr: opts.lr_of_epoch(epoch),
            train_loss,
            validation_loss,
            written,
            seconds,
            samples_per_second: train.len() as f64 / seconds.max(1e-9),
        }));
    }
    Ok(())
}
