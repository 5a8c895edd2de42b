//! `hayate eval`: static evaluations, one integer per position, from the side to move's view:
//! the NNUE network of `--eval-dir` divided by `--fv-scale` (what YaneuraOu's `e` command
//! prints), or the built-in linear evaluation.

use super::{CliError, spin_arg};
use crate::engine::options::{FV_SCALE, network_path};
use crate::nnue::Network;
use crate::records::usi::parse_list;
use crate::shogi::Position;
use std::io::{BufRead, Write};

#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// Folder holding `nn.bin` (or the network file itself); without it, the built-in
    /// evaluation.
    #[arg(long)]
    eval_dir: Option<String>,
    /// Divisor of the network's output.
    #[arg(long, default_value_t = FV_SCALE.spin_default() as i32, value_parser = spin_arg::<i32>(&FV_SCALE))]
    fv_scale: i32,
    /// One position (an SFEN, or `startpos`/`sfen ...` with `moves ...`); without it, one per
    /// line of standard input.
    #[arg(long)]
    sfen: Option<String>,
}

pub fn run(args: EvalArgs) -> Result<(), CliError> {
    let network = match args.eval_dir.as_deref().and_then(network_path) {
        Some(path) => Some(Network::load(&path).map_err(|e| CliError::Data(e.to_string()))?),
        None => None,
    };
    let eval = |pos: &Position| -> i32 {
        network.as_ref().and_then(|n| n.evaluate(pos, args.fv_scale)).unwrap_or_else(|| crate::eval::evaluate(pos))
    };
    let position = |text: &str, line: usize| -> Result<Position, CliError> {
        let games = parse_list(text).map_err(|e| CliError::Position(format!("line {line}: {e}")))?;
        games.first().map(|g| g.final_position()).ok_or_else(|| CliError::Position(format!("line {line}: no position")))
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let write_error = |err| CliError::File { path: "<stdout>".into(), err };
    if let Some(s) = &args.sfen {
        writeln!(out, "{}", eval(&position(s, 1)?)).map_err(write_error)?;
        return Ok(());
    }
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.map_err(|err| CliError::File { path: "<stdin>".into(), err })?;
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        writeln!(out, "{}", eval(&position(&line, i + 1)?)).map_err(write_error)?;
    }
    Ok(())
}
