//! `hayate eval`: static evaluations, one integer per position, from the side to move's view:
//! the network of `--eval-dir` or the built-in one (`--built-in-network true`) divided by
//! `--fv-scale` (what YaneuraOu's `e` command prints), or else the linear evaluation.
//! `--export-net` writes the network in the standard format, `--pack-net` in the form compiled
//! into the binary.

use super::{CliError, NetworkArgs};
use crate::records::usi::parse_list;
use crate::shogi::Position;
use std::io::{BufRead, Write};

#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    #[command(flatten)]
    network: NetworkArgs,
    /// One position (an SFEN, or `startpos`/`sfen ...` with `moves ...`); without it, one per
    /// line of standard input.
    #[arg(long)]
    sfen: Option<String>,
    /// Write the network as a standard `nn.bin` (what YaneuraOu's NNUE edition reads) to this
    /// file, and evaluate nothing.
    #[arg(long)]
    export_net: Option<String>,
    /// Write the network packed, as `src/nnue/hayate.nnpack` holds the built-in one, to this
    /// file, and evaluate nothing.
    #[arg(long)]
    pack_net: Option<String>,
}

pub fn run(args: EvalArgs) -> Result<(), CliError> {
    let network = args.network.load()?;
    if args.export_net.is_some() || args.pack_net.is_some() {
        let network = network
            .ok_or_else(|| CliError::Usage("no network to write: give --eval-dir or --built-in-network true".into()))?;
        let file = network
            .parameters()
            .ok_or_else(|| {
                CliError::Usage(format!(
                    "only {} networks are written (this one is {})",
                    crate::nnue::Architecture::standard(),
                    network.arch()
                ))
            })?
            .to_bytes();
        let write = |path: &String, bytes: &[u8]| {
            std::fs::write(path, bytes).map_err(|err| CliError::File { path: path.clone(), err })
        };
        if let Some(path) = &args.export_net {
            write(path, &file)?;
        }
        if let Some(path) = &args.pack_net {
            write(path, &crate::nnue::packed::pack(&file).map_err(|e| CliError::Data(e.to_string()))?)?;
        }
        eprintln!("{}", network.description());
        return Ok(());
    }
    let fv_scale = args.network.fv_scale;
    let eval = |pos: &Position| -> i32 {
        network.as_ref().and_then(|n| n.evaluate(pos, fv_scale)).unwrap_or_else(|| crate::eval::evaluate(pos))
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
