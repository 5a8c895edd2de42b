//! `hayate selfplay`: games of the engine against itself, recorded as training positions.

use super::{CliError, spin_arg};
use crate::engine::options::THREADS;
use crate::learn::linear::selfplay::{self, SelfPlayOptions};
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct SelfplayArgs {
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Node budget per move.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    /// Games played in parallel.
    #[arg(long, default_value_t = 1, value_parser = spin_arg::<usize>(&THREADS))]
    threads: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Opening plies chosen at random among near-best moves.
    #[arg(long, default_value_t = 12)]
    random_plies: u32,
    /// Output file (appended to).
    #[arg(long)]
    out: String,
}

pub fn run(args: SelfplayArgs) -> Result<(), CliError> {
    let file_error = |err| CliError::File { path: args.out.clone(), err };
    let file = std::fs::OpenOptions::new().create(true).append(true).open(&args.out).map_err(file_error)?;
    let mut w = std::io::BufWriter::new(file);
    let opts = SelfPlayOptions {
        games: args.games,
        nodes: args.nodes,
        threads: args.threads,
        seed: args.seed,
        random_plies: args.random_plies,
        ..Default::default()
    };
    let start = Instant::now();
    let (games, positions) = selfplay::run(&opts, &mut w).map_err(file_error)?;
    eprintln!("{games} games, {positions} positions in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}
