//! `hayate analyze`: the command line of the analysis (`crate::analyze`).

use super::{CliError, spin_arg};
use crate::analyze::{self, AnalyzeError, AnalyzeSettings, OutputKind};
use crate::engine::EngineOptions;
use crate::engine::options::{HASH, MULTIPV, THREADS};
use crate::records::Format;
use crate::search::{Limits, MAX_PLY};
use crate::shogi::EnteringKingRule;
use std::path::PathBuf;

/// Thinking time per position when no limit is given (ms).
pub const DEFAULT_MOVETIME_MS: u64 = 1000;

/// Options of `hayate analyze`.
#[derive(clap::Args, Debug, Clone)]
pub struct AnalyzeArgs {
    /// Game record or position list to read; `-` or none reads standard input.
    pub input: Option<PathBuf>,
    /// Input format (default: detected). `usi` is one `position` line with moves (a game);
    /// `sfen` is one SFEN or `position` line per position.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Search depth per position.
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..=MAX_PLY as i64 - 10))]
    pub depth: Option<i32>,
    /// Nodes per position.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Milliseconds per position (the default, 1000, when no limit is given).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub movetime: Option<u64>,
    /// Number of best lines to report per position.
    #[arg(long, default_value_t = MULTIPV.spin_default() as usize, value_parser = spin_arg::<usize>(&MULTIPV))]
    pub multipv: usize,
    /// Search threads.
    #[arg(long, default_value_t = THREADS.spin_default() as usize, value_parser = spin_arg::<usize>(&THREADS))]
    pub threads: usize,
    /// Hash table size (MiB).
    #[arg(long, default_value_t = HASH.spin_default() as usize, value_parser = spin_arg::<usize>(&HASH))]
    pub hash: usize,
    /// Entering-king rule: NoEnteringKing, CSARule24, CSARule24H, CSARule27, CSARule27H, TryRule.
    #[arg(long, default_value_t = EnteringKingRule::DEFAULT)]
    pub rule: EnteringKingRule,
    /// Output: JSON lines or a text table.
    #[arg(long, value_enum, default_value = "json")]
    pub output: OutputKind,
    /// Also write an evaluation graph (SVG) to this file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// No progress bar (it is only drawn when stderr is a terminal anyway).
    #[arg(long)]
    pub quiet: bool,
}

/// The analysis settings the arguments stand for.
pub fn settings(args: &AnalyzeArgs) -> Result<AnalyzeSettings, CliError> {
    // Checked here rather than by the search, which would fall back to a small table.
    crate::memory::checked_table_mib(args.hash).map_err(|e| CliError::Usage(format!("--hash: {e}")))?;
    let options = EngineOptions {
        hash_mib: args.hash,
        threads: args.threads,
        multipv: args.multipv,
        entering_king_rule: args.rule,
        ..EngineOptions::default()
    };
    let mut limits = Limits { depth: args.depth, nodes: args.nodes, movetime: args.movetime, ..Default::default() };
    if !limits.has_fixed_limit() {
        limits.movetime = Some(DEFAULT_MOVETIME_MS);
    }
    Ok(AnalyzeSettings {
        input: args.input.clone().filter(|p| p.as_os_str() != "-"),
        format: args.format,
        options,
        limits,
        output: args.output,
        plot: args.plot.clone(),
        quiet: args.quiet,
    })
}

pub fn run(args: AnalyzeArgs) -> Result<(), CliError> {
    match analyze::run(&settings(&args)?, &mut std::io::stdout().lock()) {
        // A reader that went away (`| head`) is not an error worth a message.
        Err(AnalyzeError::Write(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r.map_err(CliError::from),
    }
}
