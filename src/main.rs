use clap::{Parser, Subcommand};
use hayate::mate::{
    DEFAULT_MATE_HASH_MIB, DEFAULT_MAX_PLY, MAX_SUPPORTED_PLY, MateLimits, MateSolver, SOLVER_STACK_BYTES,
};
use hayate::shogi::rules::{JudgeOptions, Verdict, judge};
use hayate::shogi::{EnteringKingRule, Position, movegen};
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
        None => {
            hayate::usi::run(std::io::BufReader::new(std::io::stdin()), hayate::usi::Output::stdout());
            ExitCode::SUCCESS
        }
    }
}
