//! `hayate perft`: counts legal move sequences (the move generator's check against published
//! counts).

use super::{CliError, position_from};
use crate::shogi::movegen;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct PerftArgs {
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
}

pub fn run(args: PerftArgs) -> Result<(), CliError> {
    let mut pos = position_from(args.sfen.as_deref(), &args.moves)?;
    let start = Instant::now();
    let total = if args.divide {
        let mut total = 0;
        for (m, n) in movegen::perft_divide(&mut pos, args.depth) {
            println!("{m}: {n}");
            total += n;
        }
        total
    } else {
        movegen::perft(&mut pos, args.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    println!("Nodes searched: {total}");
    eprintln!("time {:.3} s, {:.0} nodes/s", secs, total as f64 / secs.max(1e-9));
    Ok(())
}
