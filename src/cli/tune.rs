//! `hayate tune`: fits the linear evaluation's weights to recorded games and self-play records
//! and writes `weights.rs`.

use super::CliError;
use crate::learn::linear::train;

#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// Self-play records (may be given several times).
    #[arg(long)]
    data: Vec<String>,
    /// Played games in CSA (e.g. `match.py --csa` against a stronger engine; may be given
    /// several, as in `--games data/games-vs-fsf/*.csa`): their positions train towards the
    /// game result, blended with the recorded score where `--scores-of` was to move.
    #[arg(long, num_args = 1..)]
    games: Vec<String>,
    /// Opening plies of `--games` records left out (book lines both colours share).
    #[arg(long, default_value_t = crate::learn::recorded::SKIP_PLIES)]
    skip_plies: usize,
    /// Whose search scores in `--games` records join the target (player name prefix;
    /// "" for none).
    #[arg(long, default_value = crate::learn::recorded::SCORER)]
    scores_of: String,
    /// Where to write the Rust source of the weights.
    #[arg(long, default_value = "src/eval/weights.rs")]
    out: String,
    #[arg(long, default_value_t = train::DEFAULT_EPOCHS)]
    epochs: usize,
    /// Weight of the search score against the game result in the target.
    #[arg(long, default_value_t = 0.5)]
    lambda: f64,
    #[arg(long, default_value_t = 1.0)]
    learning_rate: f64,
    /// Pull of every weight towards its starting value.
    #[arg(long, default_value_t = train::DEFAULT_L2)]
    l2: f64,
    /// Logistic scale in centipawns (default: fitted to the game results).
    #[arg(long)]
    scale: Option<f64>,
    /// Keep material and hand values as they start.
    #[arg(long)]
    freeze_material: bool,
    /// Start from the hand-made weights instead of the compiled-in ones.
    #[arg(long)]
    from_scratch: bool,
    /// Only write the hand-made starting weights (no data needed).
    #[arg(long)]
    init_only: bool,
}

pub fn run(args: TuneArgs) -> Result<(), CliError> {
    let init: Vec<f64> = if args.from_scratch || args.init_only {
        crate::learn::linear::initial_weights()
    } else {
        crate::eval::WEIGHTS.iter().map(|&x| x as f64).collect()
    };
    let weights = if args.init_only { init } else { fit(&args, &init)? };
    let src = train::weights_source(&train::quantise(&weights));
    std::fs::write(&args.out, src).map_err(|err| CliError::File { path: args.out.clone(), err })?;
    eprintln!("wrote {}; rebuild to use it", args.out);
    Ok(())
}

fn fit(args: &TuneArgs, init: &[f64]) -> Result<Vec<f64>, CliError> {
    let mut samples = Vec::new();
    for path in &args.data {
        let text = std::fs::read_to_string(path).map_err(|err| CliError::File { path: path.clone(), err })?;
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            samples.push(train::parse_record(line).map_err(|e| CliError::Data(format!("{path}:{}: {e}", i + 1)))?);
        }
    }
    let recorded =
        crate::learn::linear::samples_from_csa_files(&args.games, args.skip_plies, &args.scores_of, |line| {
            eprintln!("{line}")
        })
        .map_err(CliError::Data)?;
    samples.extend(recorded);
    if samples.is_empty() {
        return Err(CliError::Data("no training data (use --data FILE, --games FILE, or --init-only)".into()));
    }
    eprintln!("{} positions", samples.len());
    let opts = train::TrainOptions {
        epochs: args.epochs,
        lambda: args.lambda,
        learning_rate: args.learning_rate,
        l2: args.l2,
        scale: args.scale,
        freeze_material: args.freeze_material,
        ..Default::default()
    };
    let report = train::train(&samples, init, &opts, |l| {
        eprintln!(
            "epoch {:3}: train loss {:.6}, validation loss {:.6} (game results alone: {:.6})",
            l.epoch, l.train, l.valid, l.valid_result
        );
    });
    eprintln!("scale {:.0} cp; best validation loss against the results at epoch {}", report.scale, report.best_epoch);
    Ok(report.weights)
}
