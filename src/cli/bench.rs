//! `hayate bench`: the deterministic search benchmark (node count signature and speed).

use super::{CliError, NetworkArgs, spin_arg};
use crate::engine::options::THREADS;
use crate::engine::{Engine, EngineOptions};
use crate::search::MAX_PLY;
use crate::search::bench::BENCH_DEPTH;
use parking_lot::Mutex;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Search depth per position.
    #[arg(long, default_value_t = BENCH_DEPTH,
          value_parser = clap::value_parser!(i32).range(1..=MAX_PLY as i64 - 10))]
    depth: i32,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = spin_arg::<usize>(&THREADS))]
    threads: usize,
    #[command(flatten)]
    network: NetworkArgs,
}

/// Prints `Nodes searched: N` and `Nodes/second: N`.
pub fn run(args: BenchArgs) -> Result<(), CliError> {
    let mut options = EngineOptions {
        threads: args.threads,
        // Only the network matters here; the bench has tables of its own.
        hash_mib: 1,
        ..EngineOptions::default()
    };
    args.network.apply(&mut options);
    let mut engine = Engine::with_options(options);
    super::prepare(&mut engine)?;
    let slot = Arc::new(Mutex::new(None));
    let out = slot.clone();
    engine
        .bench(args.depth, Box::new(move |r| *out.lock() = r))
        .map_err(|e| CliError::Failed(format!("cannot start the bench: {e}")))?;
    engine.wait();
    let r = slot.lock().take().ok_or_else(|| CliError::Failed("the bench failed".into()))?;
    let nps = r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-9);
    eprintln!("time {:.3} s, {nps:.0} nodes/s", r.elapsed.as_secs_f64());
    println!("Nodes searched: {}", r.nodes);
    println!("Nodes/second: {nps:.0}");
    Ok(())
}
