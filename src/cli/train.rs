//! `hayate train`: trains a halfkp_256x2-32-32 network on PackedSfenValue records (as
//! `hayate gensfen` writes them) and exports YaneuraOu's standard `nn.bin` (see
//! `crate::learn::nnue` for the model, loss and optimiser).

use super::{CliError, spin_arg};
use crate::engine::options::THREADS;
use crate::learn::nnue::{self, Event, Loss, TrainOptions, Trainer};
use crate::nnue::FeatureSet;
use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Training data: files of 40-byte PackedSfenValue records, or games files (`.games`, of
    /// `gensfen --out FILE.games`: their searched positions, filtered as gensfen keeps them).
    #[arg(long, required = true, num_args = 1..)]
    data: Vec<String>,
    /// The network file written: that of the epoch with the best validation loss.
    #[arg(long)]
    out: String,
    /// Only the first this many games of each games file's run (`.games`: the games numbered
    /// below it, as `gensfen --games N` plays them) are read.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    max_games: Option<u64>,
    /// Fraction of each file, from its end, held out for validation.
    #[arg(long, default_value_t = 0.05, value_parser = fraction)]
    validation: f64,
    /// Epochs in all (a resumed run continues up to this).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    epochs: u64,
    /// Positions per optimiser step.
    #[arg(long, default_value_t = nnue::trainer::DEFAULT_BATCH as u64, value_parser = clap::value_parser!(u64).range(1..=1 << 24))]
    batch: u64,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 1e-3, value_parser = positive)]
    lr: f64,
    /// Learning rate factor per epoch (1: constant).
    #[arg(long, default_value_t = 1.0, value_parser = positive)]
    lr_decay: f64,
    /// Learning rate of the HalfKP rows relative to --lr (the king-independent factor rows and
    /// the dense layers learn at --lr).
    #[arg(long, default_value = "0.03", value_parser = positive)]
    halfkp_lr_scale: f64,
    /// Weight of the search score in the target; the rest is the game result.
    #[arg(long, default_value_t = 0.5, value_parser = unit)]
    lambda: f64,
    /// Centipawns per unit of the logistic that turns evaluations into win probabilities.
    #[arg(long, default_value_t = 600.0, value_parser = positive)]
    scale: f64,
    #[arg(long, default_value_t = 1, value_parser = spin_arg::<usize>(&THREADS))]
    threads: usize,
    /// Seeds the initial weights and the shuffles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where to save the float model and optimiser state after every epoch.
    #[arg(long)]
    checkpoint: Option<String>,
    /// Continue from a checkpoint (its epochs count towards --epochs; with the same options
    /// and threads, the same network as an uninterrupted run). --out is then written only when
    /// an epoch beats the best validation loss before the interruption.
    #[arg(long)]
    resume: Option<String>,
    /// Train a correction to the linear evaluation: the network's output is added to the
    /// linear evaluation of each position (the engine then evaluates with both).
    #[arg(long)]
    on_linear: bool,
    /// The network's input features, `halfkp`, `halfkp_vm` or `kp`: the shape is
    /// `FEATURES_256x2-32-32`, which YaneuraOu's NNUE editions of that shape read.
    #[arg(long, default_value = "halfkp", value_parser = trained_features)]
    features: FeatureSet,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// A feature set the trainer trains, by its short name (as in `halfkp_256x2-32-32`).
fn trained_features(s: &str) -> Result<FeatureSet, String> {
    let names = || nnue::model::TRAINED_SETS.iter().map(|f| f.short_name()).collect::<Vec<_>>().join(", ");
    nnue::model::TRAINED_SETS
        .into_iter()
        .find(|f| f.short_name() == s)
        .ok_or_else(|| format!("not a trained feature set (one of {})", names()))
}

fn number(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .map_err(|e| e.to_string())
        .and_then(|x| if x.is_finite() { Ok(x) } else { Err("not finite".into()) })
}

fn fraction(s: &str) -> Result<f64, String> {
    number(s).and_then(|x| if (0.0..1.0).contains(&x) { Ok(x) } else { Err("must be in [0, 1)".into()) })
}

fn unit(s: &str) -> Result<f64, String> {
    number(s).and_then(|x| if (0.0..=1.0).contains(&x) { Ok(x) } else { Err("must be in [0, 1]".into()) })
}

fn positive(s: &str) -> Result<f64, String> {
    number(s).and_then(|x| if x > 0.0 { Ok(x) } else { Err("must be positive".into()) })
}

pub fn run(args: TrainArgs) -> Result<(), CliError> {
    let opts = TrainOptions {
        epochs: args.epochs as usize,
        batch: args.batch as usize,
        lr: args.lr as f32,
        lr_decay: args.lr_decay as f32,
        halfkp_lr_scale: args.halfkp_lr_scale as f32,
        loss: Loss { lambda: args.lambda as f32, scale: args.scale as f32 },
        threads: args.threads,
        seed: args.seed,
    };
    let start = Instant::now();
    // What can fail fast does, before the data is decoded: the checkpoint, the output paths.
    let mut trainer = match &args.resume {
        Some(path) => {
            let state = nnue::checkpoint::load(Path::new(path)).map_err(|e| CliError::Data(e.to_string()))?;
            if state.model.features != args.features {
                return Err(CliError::Data(format!(
                    "{path} trains {} features, this run {} (--features)",
                    state.model.features.file_name(),
                    args.features.file_name()
                )));
            }
            eprintln!("resuming from {path} after epoch {}", state.epochs_done);
            Trainer::from_state(state, args.threads)
        }
        None => Trainer::new_for(args.features, args.seed, args.threads),
    };
    if trainer.state.epochs_done >= opts.epochs {
        eprintln!("{} epochs already done; nothing to train (raise --epochs)", trainer.state.epochs_done);
        return Ok(());
    }
    for path in std::iter::once(&args.out).chain(&args.checkpoint) {
        writable(path)?;
    }
    let decoding = Instant::now();
    let base = if args.on_linear { nnue::data::Base::Linear } else { nnue::data::Base::None };
    let selection = nnue::data::Selection { max_games: args.max_games.map(|n| n as usize), features: args.features };
    let (train, valid, reports) = nnue::data::load_with(&args.data, args.validation, args.threads, base, selection)
        .map_err(|e| CliError::Data(e.to_string()))?;
    for r in &reports {
        eprintln!(
            "{}: {} records, {} for training, {} for validation, {} undecodable, {} not evaluable",
            r.path.display(),
            r.records,
            r.train,
            r.validation,
            r.undecodable,
            r.not_evaluable
        );
    }
    eprintln!(
        "{} training and {} validation positions decoded in {:.1} s",
        train.len(),
        valid.len(),
        decoding.elapsed().as_secs_f64()
    );
    if trainer.state.epochs_done == 0 && !valid.is_empty() {
        eprintln!("initial validation loss {:.5}", trainer.loss(&valid, &opts.loss));
    }
    let show = !args.quiet && std::io::stderr().is_terminal();
    let mut bar = indicatif::ProgressBar::hidden();
    let out = Path::new(&args.out);
    let result =
        nnue::run(&mut trainer, &train, &valid, &opts, Some(out), args.checkpoint.as_deref().map(Path::new), |event| {
            match event {
                Event::Batch { epoch, done, total, loss } => {
                    if show && bar.is_hidden() {
                        bar = epoch_bar(epoch, opts.epochs, total);
                    }
                    bar.set_position(done as u64);
                    bar.set_message(format!("loss {loss:.5}"));
                }
                Event::Epoch(r) => {
                    bar.finish_and_clear();
                    bar = indicatif::ProgressBar::hidden();
                    let valid = r.validation_loss.map_or("-".to_string(), |v| format!("{v:.5}"));
                    eprintln!(
                        "epoch {}/{}: train loss {:.5}, validation loss {valid}, lr {:.3e}, {:.0} positions/s{}",
                        r.epoch,
                        r.epochs,
                        r.train_loss,
                        r.lr,
                        r.samples_per_second,
                        if r.written { format!(", written to {}", args.out) } else { String::new() }
                    );
                }
            }
        });
    bar.finish_and_clear();
    result.map_err(|e| CliError::Data(e.to_string()))?;
    match trainer.state.best {
        Some((epoch, loss)) => {
            eprintln!("{}: the network of epoch {epoch} (validation loss {loss:.5})", args.out)
        }
        None => eprintln!("{}: the network of the last epoch (no validation set)", args.out),
    }
    eprintln!("{:.1} s in all", start.elapsed().as_secs_f64());
    Ok(())
}

/// Whether a file can be written next to `path` (its temporary file, created and removed).
fn writable(path: &str) -> Result<(), CliError> {
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, b"").and_then(|_| std::fs::remove_file(&tmp)).map_err(|err| CliError::File { path: tmp, err })
}

fn epoch_bar(epoch: usize, epochs: usize, total: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(total as u64);
    let template = format!("epoch {epoch}/{epochs} {{bar:30}} {{pos}}/{{len}} {{elapsed}} (eta {{eta}}) {{msg}}");
    let style =
        indicatif::ProgressStyle::with_template(&template).unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}
