//! `hayate judge`: the referee. Replays a game and prints how it stands or ended.

use super::{CliError, position_from};
use crate::shogi::EnteringKingRule;
use crate::shogi::rules::{JudgeOptions, Verdict, judge};

#[derive(clap::Args, Debug)]
pub struct JudgeArgs {
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
    #[arg(long, default_value_t = EnteringKingRule::DEFAULT)]
    rule: EnteringKingRule,
    /// Game length in plies that is drawn (0 = none).
    #[arg(long, default_value_t = 0)]
    max_moves: u32,
}

pub fn run(args: JudgeArgs) -> Result<(), CliError> {
    let start = position_from(args.sfen.as_deref(), &[])?;
    let opts = JudgeOptions { rule: args.rule, max_moves: args.max_moves, declare: args.declare };
    let verdict = judge(&start, &args.moves, opts).map_err(|e| CliError::Position(e.0))?;
    if let Verdict::IllegalMove { ply, mv, reason } = &verdict {
        println!("ply {ply}: {mv}: {reason}");
    }
    println!("{}", verdict.word());
    Ok(())
}
