//! `hayate mate`: the mate (tsume) search from the command line.

use super::{CliError, position_from, spin_arg};
use crate::engine::options::HASH;
use crate::mate::{
    DEFAULT_MATE_HASH_MIB, DEFAULT_MAX_PLY, MAX_SUPPORTED_PLY, MateLimits, MateSolver, SOLVER_STACK_BYTES,
};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Time allowed without `--time-ms`.
const DEFAULT_MATE_TIME_MS: u64 = 10_000;

#[derive(clap::Args, Debug)]
pub struct MateArgs {
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
    #[arg(long, default_value_t = DEFAULT_MATE_HASH_MIB, value_parser = spin_arg::<usize>(&HASH))]
    hash: usize,
    /// Longest mate considered (plies).
    #[arg(long, default_value_t = DEFAULT_MAX_PLY,
          value_parser = clap::value_parser!(u16).range(1..=MAX_SUPPORTED_PLY as i64))]
    max_ply: u16,
}

/// Prints `checkmate M1 M2 ...`, `checkmate nomate` or `checkmate timeout`.
pub fn run(args: MateArgs) -> Result<(), CliError> {
    let pos = position_from(args.sfen.as_deref(), &args.moves)?;
    let mut solver = MateSolver::new(args.hash).map_err(|e| CliError::Usage(e.to_string()))?;
    let time = (args.time_ms > 0).then(|| Duration::from_millis(args.time_ms));
    let limits = MateLimits { time, nodes: args.nodes, max_ply: args.max_ply };
    // On a thread with a stack sized for the deepest search.
    let r = std::thread::Builder::new()
        .stack_size(SOLVER_STACK_BYTES)
        .spawn(move || solver.solve(&pos, &limits, &AtomicBool::new(false)))
        .map_err(|e| CliError::Failed(e.to_string()))?
        .join()
        .map_err(|_| CliError::Failed("the mate search failed".into()))?;
    let secs = r.elapsed.as_secs_f64();
    let first = r.first_mate.map_or(String::new(), |(len, n)| format!(", first mate: {len} plies after {n} nodes"));
    eprintln!(
        "time {:.3} s, {} nodes, {:.0} nodes/s{}{first}",
        secs,
        r.nodes,
        r.nodes as f64 / secs.max(1e-9),
        if r.shortest { ", shortest mate" } else { "" }
    );
    println!("{}", r.answer.to_usi());
    Ok(())
}
