//! The NNUE trainer (`hayate::learn::nnue`, `hayate train`) on a small self-play set:
//! tests/data/nnue/gensfen_small.bin, 3,397 PackedSfenValue records of 80 games made by
//! `hayate gensfen --games 80 --nodes 1000 --seed 11 --threads 1` (reproducible byte for byte).
//!
//! Checked: training lowers the validation loss and exports the best epoch only; the exported file
//! loads and evaluates exactly as the trainer's own integer forward pass, and close to the
//! float model; the export adds the factor rows rounded each on its own; checkpoints resume to the same model as an
//! uninterrupted run, and damaged ones are errors; bad data files are errors; the command line.

use hayate::learn::nnue::checkpoint::{self, CheckpointError};
use hayate::learn::nnue::data::{self, DataError, sample_features};
use hayate::learn::nnue::model::{FT_BIAS, OUTPUT_SCALE, Row, factor_rows};
use hayate::learn::nnue::{Dataset, Event, Loss, Model, TrainOptions, Trainer, quantise, run};
use hayate::nnue::{Network, NnueError};
use hayate::records::packed_sfen::{PackedSfenValue, RECORD_BYTES};
use hayate::shogi::Position;
use std::path::PathBuf;
use std::sync::OnceLock;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/nnue/gensfen_small.bin");

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hayate-train-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn options() -> TrainOptions {
    TrainOptions { epochs: 4, batch: 256, threads: 2, seed: 3, ..TrainOptions::default() }
}

fn datasets() -> &'static (Dataset, Dataset) {
    static SETS: OnceLock<(Dataset, Dataset)> = OnceLock::new();
    SETS.get_or_init(|| {
        let (train, valid, reports) = data::load(&[DATA], 0.1, 2, data::Base::None).expect("test data loads");
        assert_eq!(reports[0].records, 3397);
        assert_eq!(reports[0].undecodable + reports[0].not_evaluable, 0);
        assert!(valid.len() > 250 && train.len() > 3000, "{} {}", train.len(), valid.len());
        (train, valid)
    })
}

/// A network trained for a few epochs, the validation loss before and after each epoch, and
/// the file written (the best epoch's).
struct Trained {
    trainer: Trainer,
    initial: f64,
    losses: Vec<(f64, bool)>,
    file: Vec<u8>,
}

fn trained() -> &'static Trained {
    static TRAINED: OnceLock<Trained> = OnceLock::new();
    TRAINED.get_or_init(|| {
        let (train, valid) = datasets();
        let opts = options();
        let mut trainer = Trainer::new(opts.seed, opts.threads);
        let initial = trainer.loss(valid, &opts.loss);
        let out = temp("trained.bin");
        let mut losses = Vec::new();
        run(&mut trainer, train, valid, &opts, Some(&out), None, |e| {
            if let Event::Epoch(r) = e {
                losses.push((r.validation_loss.unwrap(), r.written));
            }
        })
        .unwrap();
        let file = std::fs::read(&out).unwrap();
        Trained { trainer, initial, losses, file }
    })
}

#[test]
fn training_lowers_the_validation_loss_and_exports_the_best_epoch() {
    let _cpu = crate::common::shared();
    let t = trained();
    assert_eq!(t.losses.len(), 4);
    let best = t.losses.iter().map(|l| l.0).fold(f64::INFINITY, f64::min);
    // Better than the start, and than predicting an even game everywhere (ln 2).
    assert!(
        best < t.initial && best < std::f64::consts::LN_2 - 0.01,
        "validation loss {} -> {:?}",
        t.initial,
        t.losses
    );
    // Written exactly when the validation loss improved on every earlier epoch.
    let mut so_far = f64::INFINITY;
    for &(loss, written) in &t.losses {
        assert_eq!(written, loss < so_far, "{:?}", t.losses);
        so_far = so_far.min(loss);
    }
    let (best_epoch, best_loss) = t.trainer.state.best.unwrap();
    assert_eq!(best_loss, best);
    assert_eq!(t.losses[best_epoch - 1].0, best);
}

#[test]
fn only_epochs_that_improve_the_validation_loss_are_written() {
    let _cpu = crate::common::shared();
    let (train, valid) = datasets();
    // HalfKP rows at the full rate memorise 3,000 positions: the validation loss soon rises.
    let opts =
        TrainOptions { epochs: 4, batch: 128, halfkp_lr_scale: 1.0, threads: 1, seed: 4, ..TrainOptions::default() };
    let mut trainer = Trainer::new(opts.seed, opts.threads);
    let out = temp("best.bin");
    let mut log = Vec::new();
    run(&mut trainer, train, valid, &opts, Some(&out), None, |e| {
        if let Event::Epoch(r) = e {
            log.push((r.validation_loss.unwrap(), r.written, Network::load(&out).unwrap().checksum()));
        }
    })
    .unwrap();
    assert!(log.iter().any(|l| !l.1), "every epoch improved: {log:?}");
    let mut best = (f64::INFINITY, 0);
    for &(loss, written, file) in &log {
        assert_eq!(written, loss < best.0, "{log:?}");
        if written {
            best = (loss, file);
        }
        // The file holds the best epoch's network so far.
        assert_eq!(file, best.1);
    }
    let last = Network::from_bytes(&quantise::quantise(trainer.model()).to_bytes()).unwrap();
    assert_ne!(last.checksum(), best.1, "the file holds the last epoch's network, not the best");
    std::fs::remove_file(&out).unwrap();
}

/// Positions of the data file, decoded.
fn positions() -> Vec<Position> {
    let bytes = std::fs::read(DATA).unwrap();
    bytes
        .as_chunks::<RECORD_BYTES>()
        .0
        .iter()
        .step_by(11)
        .map(|r| PackedSfenValue::from_bytes(r).position().unwrap())
        .collect()
}

/// The float model whose transformer is the export's integers (divided by the scale 127),
/// factor rows zero: what the integer network computes but for the hidden layers' rounding.
fn with_exported_transformer(model: &Model, params: &hayate::nnue::NetworkParameters) -> Model {
    let mut m = model.clone();
    for (row, q) in m.ft.iter_mut().zip(params.ft_weights.iter()) {
        for (w, &q) in row.0.iter_mut().zip(q) {
            *w = q as f32 / quantise::FT_SCALE;
        }
    }
    m.factor.iter_mut().for_each(|r| *r = Row::ZERO);
    for (k, &b) in params.ft_biases.iter().enumerate() {
        m.dense[FT_BIAS + k] = b as f32 / quantise::FT_SCALE;
    }
    m
}

#[test]
fn the_export_loads_and_evaluates_as_the_trainer_computes() {
    let _cpu = crate::common::shared();
    let t = trained();
    let model = t.trainer.model();
    let params = quantise::quantise(model);
    // Writing the current model differs from the best epoch's file only if training went on.
    let net = Network::from_bytes(&params.to_bytes()).expect("export loads");
    let from_file = Network::from_bytes(&t.file).expect("the written file loads");
    assert_eq!(from_file.architecture(), hayate::nnue::ARCHITECTURE);
    let rounded_transformer = with_exported_transformer(model, &params);
    let positions = positions();
    assert!(positions.len() >= 300);
    let (mut worst, mut sum, mut sum_trained) = (0f32, 0f32, 0f32);
    for pos in &positions {
        let f = sample_features(pos).unwrap();
        let integer = quantise::evaluate(&params, &f);
        assert_eq!(net.evaluate(pos, 16), Some(integer), "{}", pos.to_sfen());
        let float = OUTPUT_SCALE * rounded_transformer.evaluate(&f);
        let diff = (float - integer as f32).abs();
        worst = worst.max(diff);
        sum += diff;
        sum_trained += (OUTPUT_SCALE * model.evaluate(&f) - integer as f32).abs();
    }
    // With the transformer's integers given, the integer network rounds every hidden output to
    // a step of 1/127: one step of one of the last 32 moves the output by |w| * 508 / 127 cp,
    // up to 8 cp for the largest weight (127/64), and 32 such roundings add up to a few
    // centipawns on average, rarely to several steps of the largest weights. Near the clipped
    // ReLU's bounds the rounding noise does not average out (clipping is not linear).
    // Tolerance: 20 cp on average, 60 cp at most.
    let n = positions.len() as f32;
    let mean = sum / n;
    assert!(worst <= 60.0 && mean <= 20.0, "float and integer differ by {worst} cp at most, {mean} on average");
    // The transformer's own rounding (each factor row and the HalfKP row rounded on its own,
    // up to 1.5/127 a weight) moves this small, briefly trained network, many of whose units
    // sit near the bounds, by about 18 cp on average from the trained float model.
    let mean_trained = sum_trained / n;
    assert!(mean_trained <= 25.0, "the export differs from the trained model by {mean_trained} cp on average");
    // The trained network is not flat.
    let spread: Vec<i32> = positions.iter().map(|p| net.evaluate(p, 16).unwrap()).collect();
    assert!(spread.iter().max().unwrap() - spread.iter().min().unwrap() > 50, "{spread:?}");
}

/// HalfKP_vm and K+P networks: trained on the same records (features of their own), they lower
/// the validation loss, and their files are the shapes YaneuraOu names, which the engine's
/// inference (checked against YaneuraOu's evaluations for every shape, tests/integration/nnue)
/// evaluates exactly as the trainer's integer forward pass.
#[test]
fn other_feature_sets_train_and_export_their_own_shape() {
    use hayate::nnue::FeatureSet;
    let _cpu = crate::common::shared();
    let positions = positions();
    for (set, name) in [(FeatureSet::HalfKpVm, "halfkp_vm_256x2-32-32"), (FeatureSet::Kp, "kp_256x2-32-32")] {
        let (train, valid, _) =
            data::load_with(&[DATA], 0.1, 2, data::Base::None, data::Selection { max_games: None, features: set })
                .unwrap();
        assert_eq!(train.len(), datasets().0.len());
        let opts = TrainOptions { epochs: 2, ..options() };
        let mut trainer = Trainer::new_for(set, opts.seed, opts.threads);
        let initial = trainer.loss(&valid, &opts.loss);
        run(&mut trainer, &train, &valid, &opts, None, None, |_| {}).unwrap();
        let after = trainer.loss(&valid, &opts.loss);
        assert!(after < initial - 0.01, "{name}: validation loss {initial} -> {after}");
        let params = quantise::quantise(trainer.model());
        assert_eq!(params.ft_weights.len(), set.rows());
        let net = Network::from_bytes(&params.to_bytes()).expect("export loads");
        assert_eq!(net.arch().name(), name);
        let mut values = Vec::new();
        for pos in &positions {
            let f = data::sample_features_of(set, pos).unwrap();
            let integer = quantise::evaluate(&params, &f);
            assert_eq!(net.evaluate(pos, 16), Some(integer), "{name} {}", pos.to_sfen());
            let float = OUTPUT_SCALE * trainer.model().evaluate(&f);
            assert!((float - integer as f32).abs() < 80.0, "{name}: float {float}, integer {integer}");
            values.push(integer);
        }
        assert!(values.iter().max().unwrap() - values.iter().min().unwrap() > 50, "{name}: {values:?}");
    }
}

#[test]
fn the_export_adds_the_rounded_factor_rows() {
    let _cpu = crate::common::shared();
    let model = trained().trainer.model();
    assert!(model.factor.iter().any(|r| r.0.iter().any(|&w| w != 0.0)), "factor rows trained");
    // Folding the factor rows into the HalfKP rows changes no evaluation.
    let folded = model.folded();
    for pos in positions().iter().take(100) {
        let f = sample_features(pos).unwrap();
        assert_eq!(model.evaluate(&f).to_bits(), folded.evaluate(&f).to_bits());
    }
    let (a, b) = (quantise::quantise(model), quantise::quantise(&folded));
    // The dense layers are the same; each transformer weight is the sum of its rows' rounded
    // values, within 2 of the folded sum rounded once (three roundings of at most 1/2 each,
    // against one).
    assert!(a.ft_biases == b.ft_biases && a.l1_weights == b.l1_weights && a.l1_biases == b.l1_biases);
    assert!(a.l2_weights == b.l2_weights && a.output_weights == b.output_weights && a.output_bias == b.output_bias);
    let round = |w: f32| (w * quantise::FT_SCALE).round() as i32;
    let (mut untouched, mut differ) = (0, 0);
    for (i, (qa, qb)) in a.ft_weights.iter().zip(b.ft_weights.iter()).enumerate() {
        let own = &model.ft[i].0;
        let mut sum: Vec<i32> = own.iter().map(|&w| round(w)).collect();
        for r in factor_rows(model.features, i) {
            for (s, &w) in sum.iter_mut().zip(&model.factor[r].0) {
                *s += round(w);
            }
        }
        for k in 0..qa.len() {
            assert_eq!(qa[k] as i32, sum[k], "feature {i}, output {k}");
            assert!((qa[k] as i32 - qb[k] as i32).abs() <= 2, "feature {i}, output {k}");
            differ += (qa[k] != qb[k]) as usize;
        }
        untouched += own.iter().all(|&w| w == 0.0) as usize;
    }
    // A row no position touched is exactly its factor rows' sum (what `nnue::packed` stores
    // as zeros), and these 3,000 positions leave most rows untouched.
    assert!(untouched > a.ft_weights.len() / 2, "{untouched} untouched rows");
    assert!(differ > 0, "the roundings never differed: the test checks nothing");
}

#[test]
fn a_resumed_run_equals_an_uninterrupted_one() {
    let _cpu = crate::common::shared();
    let (train, valid) = datasets();
    let opts = TrainOptions { epochs: 2, batch: 512, threads: 2, seed: 5, ..TrainOptions::default() };
    let mut straight = Trainer::new(opts.seed, opts.threads);
    run(&mut straight, train, valid, &opts, None, None, |_| {}).unwrap();

    let path = temp("resume.ckpt");
    let mut first = Trainer::new(opts.seed, opts.threads);
    let one = TrainOptions { epochs: 1, ..opts };
    run(&mut first, train, valid, &one, None, Some(&path), |_| {}).unwrap();
    drop(first);
    let state = checkpoint::load(&path).unwrap();
    assert_eq!(state.epochs_done, 1);
    let mut resumed = Trainer::from_state(state, opts.threads);
    run(&mut resumed, train, valid, &opts, None, None, |_| {}).unwrap();

    let same = |a: &Model, b: &Model| a.ft == b.ft && a.factor == b.factor && a.dense == b.dense;
    assert!(same(straight.model(), resumed.model()), "the resumed run trained another model");
    assert_eq!(straight.state.adam.step, resumed.state.adam.step);
    assert_eq!(straight.state.best, resumed.state.best);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn damaged_checkpoints_are_errors() {
    let _cpu = crate::common::shared();
    let path = temp("damaged.ckpt");
    let trainer = Trainer::new(1, 1);
    checkpoint::save(&trainer.state, &path).unwrap();
    let good = std::fs::read(&path).unwrap();
    let back = checkpoint::load(&path).unwrap();
    assert!(back.model.ft == trainer.state.model.ft && back.model.dense == trainer.state.model.dense);

    let try_bytes = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap();
        checkpoint::load(&path).err().expect("a damaged checkpoint loads")
    };
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 0x10;
    assert!(matches!(try_bytes(&flipped), CheckpointError::Checksum));
    assert!(matches!(try_bytes(&good[..good.len() - 3]), CheckpointError::Truncated));
    assert!(matches!(try_bytes(&good[..100]), CheckpointError::Truncated));
    assert!(matches!(try_bytes(&[good.as_slice(), b"x"].concat()), CheckpointError::TrailingBytes));
    assert!(matches!(try_bytes(b"not a checkpoint at all"), CheckpointError::NotACheckpoint));
    assert!(matches!(try_bytes(&[]), CheckpointError::Truncated));
    let mut version = good.clone();
    version[8] = 9;
    assert!(matches!(try_bytes(&version), CheckpointError::Version { found: 9 }));
    // A count that does not fit the architecture (the first tensor's, after the 36-byte header).
    let mut count = good.clone();
    count[36] ^= 1;
    assert!(matches!(try_bytes(&count), CheckpointError::WrongLength { tensor: "ft", .. }));
    let missing = temp("missing.ckpt");
    assert!(matches!(checkpoint::load(&missing), Err(CheckpointError::Io { .. })));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn unreadable_data_files_are_errors() {
    let _cpu = crate::common::shared();
    assert!(matches!(data::load(&[temp("no-such-file.bin")], 0.05, 1, data::Base::None), Err(DataError::Io { .. })));
    let bytes = std::fs::read(DATA).unwrap();
    let partial = temp("partial.bin");
    std::fs::write(&partial, &bytes[..RECORD_BYTES * 10 + 7]).unwrap();
    assert!(matches!(
        data::load(&[&partial], 0.05, 1, data::Base::None),
        Err(DataError::PartialRecord { bytes: 407, .. })
    ));
    // Records that are not positions are skipped and counted; none left is an error.
    let garbage = temp("garbage.bin");
    std::fs::write(&garbage, vec![0xffu8; RECORD_BYTES * 5]).unwrap();
    assert!(matches!(data::load(&[&garbage], 0.0, 1, data::Base::None), Err(DataError::NoPositions)));
    let (train, _, reports) = data::load(&[&garbage, &PathBuf::from(DATA)], 0.0, 1, data::Base::None).unwrap();
    assert_eq!((reports[0].undecodable, train.len()), (5, 3397));
    std::fs::remove_file(&partial).unwrap();
    std::fs::remove_file(&garbage).unwrap();
}

#[test]
fn targets_blend_score_and_result() {
    let _cpu = crate::common::shared();
    let loss = Loss { lambda: 0.25, scale: 600.0 };
    assert!((loss.target(0, 1) - (0.25 * 0.5 + 0.75)).abs() < 1e-6);
    assert!((loss.target(600, -1) - 0.25 / (1.0 + (-1f32).exp())).abs() < 1e-6);
    // The loss is smallest where the prediction equals the target, with slope 0 there.
    let t = loss.target(300, 0);
    let y = 600.0 * (t / (1.0 - t)).ln() / OUTPUT_SCALE;
    let (at, slope) = loss.of(y, t);
    assert!(slope.abs() < 1e-5 && at < loss.of(y + 0.1, t).0 && at < loss.of(y - 0.1, t).0);
}

#[test]
fn the_command_line_trains_and_refuses_bad_input() {
    let _cpu = crate::common::shared();
    let exe = env!("CARGO_BIN_EXE_hayate");
    let out = temp("cli.bin");
    let ckpt = temp("cli.ckpt");
    let o = std::process::Command::new(exe)
        .args(["train", "--data", DATA, "--epochs", "1", "--batch", "1024", "--quiet", "--out"])
        .arg(&out)
        .arg("--checkpoint")
        .arg(&ckpt)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("epoch 1/1: train loss") && stderr.contains("3397 records"), "{stderr}");
    Network::load(&out).expect("the command's network loads");
    // The checkpoint of a finished run has nothing left to train.
    let o = std::process::Command::new(exe)
        .args(["train", "--data", DATA, "--epochs", "1", "--quiet", "--out"])
        .arg(&out)
        .arg("--resume")
        .arg(&ckpt)
        .output()
        .unwrap();
    assert!(o.status.success() && String::from_utf8_lossy(&o.stderr).contains("nothing to train"));

    std::fs::write(&ckpt, b"HYNNCKPT garbage").unwrap();
    let out_arg = out.to_str().unwrap();
    let bad: [&[&str]; 5] = [
        &["--data", "/nonexistent/data.bin", "--out", out_arg],
        &["--data", DATA, "--resume", ckpt.to_str().unwrap(), "--out", out_arg],
        &["--data", DATA, "--validation", "1.5", "--out", out_arg],
        &["--data", DATA, "--epochs", "0", "--out", out_arg],
        &["--data", DATA, "--out", "/nonexistent/folder/nn.bin"],
    ];
    for args in bad {
        let o = std::process::Command::new(exe).arg("train").args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("error"), "{args:?}");
    }
    assert!(matches!(Network::load(temp("none.bin")), Err(NnueError::FileNotFound(_))));
    std::fs::remove_file(&out).unwrap();
    std::fs::remove_file(&ckpt).unwrap();
}
