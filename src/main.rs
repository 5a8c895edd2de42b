use clap::{Parser, Subcommand};
use hayate::mate::{
    DEFAULT_MATE_HASH_MIB, DEFAULT_MAX_PLY, MAX_SUPPORTED_PLY, MateLimits, MateSolver, SOLVER_STACK_BYTES,
};
use hayate::shogi::rules::{JudgeOptions, Verdict, judge};
use hayate::shogi::{EnteringKingRule, Position, movegen};
use hayate::tune::selfplay::{self, SelfPlayOptions};
use hayate::tune::train;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Time allowed to `hayate mate` without `--time-ms`.
const DEFAULT_MATE_TIME_MS: u64 = 10_000;

#[derive(Parser)]
#[command(name = "hayate", version, about = "hayate: a USI shogi engine")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count legal move sequences of DEPTH plies (leaves counted in bulk).
    Perft {
        depth: u32,
        /// Start position (default: the initial position).
        #[arg(long)]
        sfen: Option<String>,
        /// Moves to play from the start position first.
        #[arg(long, num_args = 1..)]
        moves: Vec<String>,
        /// One line per root move: `MOVE: COUNT`.
        #[arg(long)]
        divide: bool,
    },
    /// Referee: replay a game and print how it stands or ended (last line of stdout).
    Judge {
        /// Start position (default: the initial position).
        #[arg(long, conflicts_with = "startpos")]
        sfen: Option<String>,
        /// Start from the initial position (the default).
        #[arg(long)]
        startpos: bool,
        /// Moves in USI notation.
        #[arg(long, num_args = 0..)]
        moves: Vec<String>,
        /// After the moves, the side to move declares an entering-king win.
        #[arg(long)]
        declare: bool,
        /// Entering-king rule: NoEnteringKing, CSARule24, CSARule24H, CSARule27, CSARule27H, TryRule.
        #[arg(long, default_value = "CSARule27")]
        rule: String,
        /// Game length in plies that is drawn (0 = none).
        #[arg(long, default_value_t = 0)]
        max_moves: u32,
    },
    /// Play games against itself and record training positions (tab-separated lines).
    Selfplay {
        #[arg(long, default_value_t = 100)]
        games: u64,
        /// Node budget per move.
        #[arg(long, default_value_t = 5000)]
        nodes: u64,
        /// Games played in parallel.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Opening plies chosen at random among near-best moves.
        #[arg(long, default_value_t = 12)]
        random_plies: u32,
        /// Output file (appended to).
        #[arg(long)]
        out: String,
    },
    /// Fit the evaluation weights to self-play records and write `weights.rs`.
    Tune {
        /// Self-play records (may be given several times).
        #[arg(long)]
        data: Vec<String>,
        /// Played games in CSA (e.g. `match.py --csa` against a stronger engine; may be given
        /// several, as in `--games data/games-vs-fsf/*.csa`): their positions train towards the
        /// game result, blended with the recorded score where `--scores-of` was to move.
        #[arg(long, num_args = 1..)]
        games: Vec<String>,
        /// Opening plies of `--games` records left out (book lines both colours share).
        #[arg(long, default_value_t = hayate::tune::SKIP_PLIES)]
        skip_plies: usize,
        /// Whose search scores in `--games` records join the target (player name prefix;
        /// "" for none).
        #[arg(long, default_value = hayate::tune::SCORER)]
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
    },
    /// Analyse a game record (KIF, KI2, CSA, USI) or a list of positions (SFEN lines).
    Analyze(hayate::analyze::AnalyzeArgs),
    /// Mate search (tsume): prints `checkmate M1 M2 ...`, `checkmate nomate` or `checkmate timeout`.
    Mate {
        /// Position (default: the initial position); the side to move is the attacker.
        #[arg(long)]
        sfen: Option<String>,
        /// Moves to play from the position first.
        #[arg(long, num_args = 1..)]
        moves: Vec<String>,
        /// Time limit in milliseconds (0 = none).
        #[arg(long, default_value_t = DEFAULT_MATE_TIME_MS)]
        time_ms: u64,
        /// Node limit (default: none).
        #[arg(long)]
        nodes: Option<u64>,
        /// Table size (MiB).
        #[arg(long, default_value_t = DEFAULT_MATE_HASH_MIB)]
        hash: usize,
        /// Longest mate considered (plies, at most 1023).
        #[arg(long, default_value_t = DEFAULT_MAX_PLY)]
        max_ply: u16,
    },
    /// Deterministic search benchmark: fixed positions and depth; prints the node signature.
    Bench {
        /// Search depth per position.
        #[arg(long, default_value_t = hayate::search::BENCH_DEPTH)]
        depth: i32,
        /// Search threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Hash table size (MiB).
        #[arg(long, default_value_t = 16)]
        hash: usize,
    },
}

fn setup(sfen: Option<&str>, moves: &[String]) -> Result<Position, String> {
    let mut pos = match sfen {
        Some(s) => Position::from_sfen(s).map_err(|e| format!("bad SFEN: {e}"))?,
        None => Position::startpos(),
    };
    for (i, m) in moves.iter().enumerate() {
        let mv = pos.parse_usi_move(m).map_err(|e| format!("move {}: {e}", i + 1))?;
        pos.do_move(mv);
    }
    Ok(pos)
}

/// Recorded games to train on (`hayate tune --games`).
struct GameRecords<'a> {
    paths: &'a [String],
    skip_plies: usize,
    scores_of: &'a str,
}

fn run_tune(
    data: &[String],
    games: &GameRecords,
    out: &str,
    opts: &train::TrainOptions,
    from_scratch: bool,
    init_only: bool,
) -> ExitCode {
    let init: Vec<f64> = if from_scratch || init_only {
        hayate::tune::initial_weights()
    } else {
        hayate::eval::WEIGHTS.iter().map(|&x| x as f64).collect()
    };
    let weights = if init_only {
        init
    } else {
        let mut samples = Vec::new();
        for path in data {
            let text = match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: {path}: {e}");
                    return ExitCode::from(2);
                }
            };
            for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                match train::parse_record(line) {
                    Ok(s) => samples.push(s),
                    Err(e) => {
                        eprintln!("error: {path}:{}: {e}", i + 1);
                        return ExitCode::from(2);
                    }
                }
            }
        }
        match hayate::tune::samples_from_csa_files(games.paths, games.skip_plies, games.scores_of, |line| {
            eprintln!("{line}")
        }) {
            Ok(s) => samples.extend(s),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
        if samples.is_empty() {
            eprintln!("error: no training data (use --data FILE, --games FILE, or --init-only)");
            return ExitCode::from(2);
        }
        eprintln!("{} positions", samples.len());
        let report = train::train(&samples, &init, opts, |l| {
            eprintln!(
                "epoch {:3}: train loss {:.6}, validation loss {:.6} (game results alone: {:.6})",
                l.epoch, l.train, l.valid, l.valid_result
            );
        });
        eprintln!(
            "scale {:.0} cp; best validation loss against the results at epoch {}",
            report.scale, report.best_epoch
        );
        report.weights
    };
    let src = train::weights_source(&train::quantise(&weights));
    if let Err(e) = std::fs::write(out, src) {
        eprintln!("error: {out}: {e}");
        return ExitCode::from(2);
    }
    eprintln!("wrote {out}; rebuild to use it");
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Perft { depth, sfen, moves, divide }) => {
            let mut pos = match setup(sfen.as_deref(), &moves) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let start = Instant::now();
            let total = if divide {
                let mut total = 0;
                for (m, n) in movegen::perft_divide(&mut pos, depth) {
                    println!("{m}: {n}");
                    total += n;
                }
                total
            } else {
                movegen::perft(&mut pos, depth)
            };
            let secs = start.elapsed().as_secs_f64();
            println!("Nodes searched: {total}");
            eprintln!("time {:.3} s, {:.0} nodes/s", secs, total as f64 / secs.max(1e-9));
            ExitCode::SUCCESS
        }
        Some(Command::Judge { sfen, startpos: _, moves, declare, rule, max_moves }) => {
            let rule = match rule.parse::<EnteringKingRule>() {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let start = match setup(sfen.as_deref(), &[]) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            match judge(&start, &moves, JudgeOptions { rule, max_moves, declare }) {
                Ok(v) => {
                    if let Verdict::IllegalMove { ply, mv, reason } = &v {
                        println!("ply {ply}: {mv}: {reason}");
                    }
                    println!("{}", v.word());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {}", e.0);
                    ExitCode::from(2)
                }
            }
        }
        Some(Command::Selfplay { games, nodes, threads, seed, random_plies, out }) => {
            if !(1..=256).contains(&threads) || nodes == 0 {
                eprintln!("error: threads must be 1..=256 and nodes positive");
                return ExitCode::from(2);
            }
            let file = match std::fs::OpenOptions::new().create(true).append(true).open(&out) {
                Ok(f) => f,
                Err(e) => {
                    eprintln!("error: {out}: {e}");
                    return ExitCode::from(2);
                }
            };
            let mut w = std::io::BufWriter::new(file);
            let opts = SelfPlayOptions { games, nodes, threads, seed, random_plies, ..Default::default() };
            let start = Instant::now();
            match selfplay::run(&opts, &mut w) {
                Ok((g, p)) => {
                    eprintln!("{g} games, {p} positions in {:.1} s", start.elapsed().as_secs_f64());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {out}: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Some(Command::Tune {
            data,
            games,
            skip_plies,
            scores_of,
            out,
            epochs,
            lambda,
            learning_rate,
            l2,
            scale,
            freeze_material,
            from_scratch,
            init_only,
        }) => {
            let opts =
                train::TrainOptions { epochs, lambda, learning_rate, l2, scale, freeze_material, ..Default::default() };
            let records = GameRecords { paths: &games, skip_plies, scores_of: &scores_of };
            run_tune(&data, &records, &out, &opts, from_scratch, init_only)
        }
        Some(Command::Mate { sfen, moves, time_ms, nodes, hash, max_ply }) => {
            if max_ply > MAX_SUPPORTED_PLY {
                eprintln!("error: --max-ply must be at most {MAX_SUPPORTED_PLY}");
                return ExitCode::from(2);
            }
            let pos = match setup(sfen.as_deref(), &moves) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let mut solver = match MateSolver::new(hash) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let time = (time_ms > 0).then(|| Duration::from_millis(time_ms));
            let limits = MateLimits { time, nodes, max_ply };
            // On a thread with a stack sized for the deepest search.
            let solved = std::thread::Builder::new()
                .stack_size(SOLVER_STACK_BYTES)
                .spawn(move || solver.solve(&pos, &limits, &AtomicBool::new(false)))
                .map_err(|e| e.to_string())
                .and_then(|h| h.join().map_err(|_| "the mate search failed".to_string()));
            let r = match solved {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let secs = r.elapsed.as_secs_f64();
            let first =
                r.first_mate.map_or(String::new(), |(len, n)| format!(", first mate: {len} plies after {n} nodes"));
            eprintln!(
                "time {:.3} s, {} nodes, {:.0} nodes/s{}{first}",
                secs,
                r.nodes,
                r.nodes as f64 / secs.max(1e-9),
                if r.shortest { ", shortest mate" } else { "" }
            );
            println!("{}", r.answer.to_usi());
            ExitCode::SUCCESS
        }
        Some(Command::Bench { depth, threads, hash }) => {
            if !(1..=64).contains(&depth) || !(1..=1024).contains(&threads) {
                eprintln!("error: depth must be 1..=64 and threads 1..=1024");
                return ExitCode::from(2);
            }
            let r = hayate::search::bench(depth, threads, hash);
            let secs = r.elapsed.as_secs_f64();
            eprintln!("time {:.3} s, {:.0} nodes/s", secs, r.nodes as f64 / secs.max(1e-9));
            println!("Nodes searched: {}", r.nodes);
            println!("Nodes/second: {:.0}", r.nodes as f64 / secs.max(1e-9));
            ExitCode::SUCCESS
        }
        Some(Command::Analyze(args)) => hayate::analyze::main(args),
        None => {
            hayate::usi::run(std::io::BufReader::new(std::io::stdin()), hayate::usi::Output::stdout());
            ExitCode::SUCCESS
        }
    }
}
