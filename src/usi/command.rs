//! USI command lines parsed into typed commands. Parsing never panics; every problem is a
//! `UsiError` value that the loop reports as `info string error: ...`.

use crate::search::Limits;
use crate::shogi::{MoveError, Position, SfenError};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionBase {
    Startpos,
    Sfen(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoKind {
    Search(Limits),
    Perft(u32),
    /// `go mate [<ms> | infinite] [nodes <n>]`.
    Mate(MateGo),
}

/// The limits of `go mate`: a time (`go mate 5000`), a node count (`go mate nodes 100000`, as
/// shogiarena sends it), both, or neither (`go mate infinite`: until `stop`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MateGo {
    pub time_ms: Option<u64>,
    pub nodes: Option<u64>,
}

impl MateGo {
    /// Runs until `stop`.
    pub fn is_infinite(&self) -> bool {
        self.time_ms.is_none() && self.nodes.is_none()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Usi,
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    UsiNewGame,
    Position {
        base: PositionBase,
        moves: Vec<String>,
    },
    Go {
        kind: GoKind,
        warnings: Vec<String>,
    },
    Stop,
    /// `ponderhit`, optionally with new clock values.
    PonderHit(Option<Limits>),
    GameOver(String),
    Quit,
    /// Diagnostics: board, SFEN, key, checkers.
    Display,
    /// Diagnostics: legal moves.
    Moves,
    /// Diagnostics: the static evaluation (`info string eval N`, side to move's view).
    Eval,
    Bench {
        depth: Option<i32>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UsiError {
    Empty,
    Unknown(String),
    Missing { command: &'static str, what: &'static str },
    BadNumber { command: &'static str, token: String },
    UnexpectedToken { command: &'static str, token: String },
}

impl fmt::Display for UsiError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            UsiError::Empty => write!(f, "empty command"),
            UsiError::Unknown(c) => write!(f, "unknown command '{c}'"),
            UsiError::Missing { command, what } => write!(f, "{command}: missing {what}"),
            UsiError::BadNumber { command, token } => write!(f, "{command}: bad number '{token}'"),
            UsiError::UnexpectedToken { command, token } => {
                write!(f, "{command}: unexpected '{token}'")
            }
        }
    }
}

impl std::error::Error for UsiError {}

impl UsiError {
    /// The command the error is about, when the line named a known one.
    pub fn command(&self) -> Option<&'static str> {
        match self {
            UsiError::Empty | UsiError::Unknown(_) => None,
            UsiError::Missing { command, .. }
            | UsiError::BadNumber { command, .. }
            | UsiError::UnexpectedToken { command, .. } => Some(command),
        }
    }
}

/// Why a parsed `position` command does not give a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    Sfen {
        sfen: String,
        error: SfenError,
    },
    /// Move `index` (1-based) of the list.
    Move {
        index: usize,
        error: MoveError,
    },
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            PositionError::Sfen { sfen, error } => write!(f, "bad SFEN '{sfen}': {error}"),
            PositionError::Move { index, error } => {
                let text = match error {
                    MoveError::Syntax(s) | MoveError::Illegal(s) => s,
                };
                write!(f, "move {index} ({text}): {error}")
            }
        }
    }
}

impl std::error::Error for PositionError {}

/// Builds the position of a `position` command: the base, then every move checked for
/// legality before it is played.
pub fn build_position(base: &PositionBase, moves: &[String]) -> Result<Position, PositionError> {
    let mut pos = match base {
        PositionBase::Startpos => Position::startpos(),
        PositionBase::Sfen(s) => {
            Position::from_sfen(s).map_err(|error| PositionError::Sfen { sfen: s.clone(), error })?
        }
    };
    for (i, m) in moves.iter().enumerate() {
        let mv = pos.parse_usi_move(m).map_err(|error| PositionError::Move { index: i + 1, error })?;
        pos.do_move(mv);
    }
    Ok(pos)
}

/// Largest time value accepted (ms); larger ones are clamped (about 11.5 days).
pub const MAX_TIME_MS: u64 = 1_000_000_000;

fn parse_ms(command: &'static str, token: Option<&str>, warnings: &mut Vec<String>) -> Result<u64, UsiError> {
    let t = token.ok_or(UsiError::Missing { command, what: "a number" })?;
    let v: i128 = t.parse().map_err(|_| UsiError::BadNumber { command, token: t.to_string() })?;
    if v < 0 {
        warnings.push(format!("{command}: negative value {v} treated as 0"));
        return Ok(0);
    }
    if v > MAX_TIME_MS as i128 {
        warnings.push(format!("{command}: value {v} clamped to {MAX_TIME_MS}"));
        return Ok(MAX_TIME_MS);
    }
    Ok(v as u64)
}

/// Reads clock fields (`btime wtime binc winc byoyomi`) starting at `tokens[i]`; returns
/// whether a clock token was consumed.
fn clock_token(
    limits: &mut Limits,
    key: &str,
    value: Option<&str>,
    command: &'static str,
    warnings: &mut Vec<String>,
) -> Result<bool, UsiError> {
    match key {
        "btime" => limits.time[0] = Some(parse_ms(command, value, warnings)?),
        "wtime" => limits.time[1] = Some(parse_ms(command, value, warnings)?),
        "binc" => limits.inc[0] = parse_ms(command, value, warnings)?,
        "winc" => limits.inc[1] = parse_ms(command, value, warnings)?,
        "byoyomi" => {
            let b = parse_ms(command, value, warnings)?;
            limits.byoyomi = [b, b];
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// A node count (at least 1).
fn parse_nodes(token: Option<&str>) -> Result<u64, UsiError> {
    let tok = token.ok_or(UsiError::Missing { command: "go", what: "a node count" })?;
    let n: u64 = tok.parse().map_err(|_| UsiError::BadNumber { command: "go", token: tok.to_string() })?;
    Ok(n.max(1))
}

fn parse_go(tokens: &[&str]) -> Result<Command, UsiError> {
    const C: &str = "go";
    let mut limits = Limits::default();
    let mut warnings = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        let next = tokens.get(i + 1).copied();
        if clock_token(&mut limits, t, next, C, &mut warnings)? {
            i += 2;
            continue;
        }
        match t {
            "ponder" => limits.ponder = true,
            "infinite" => limits.infinite = true,
            "movetime" => {
                limits.movetime = Some(parse_ms(C, next, &mut warnings)?);
                i += 1;
            }
            "depth" => {
                let d = parse_ms(C, next, &mut warnings)?;
                let max = crate::search::MAX_PLY as u64 - 10;
                if d > max {
                    warnings.push(format!("go: depth {d} clamped to {max}"));
                }
                limits.depth = Some(d.clamp(1, max) as i32);
                i += 1;
            }
            "nodes" => {
                limits.nodes = Some(parse_nodes(next)?);
                i += 1;
            }
            "perft" => {
                let d = parse_ms(C, next, &mut warnings)?;
                if d > 12 {
                    warnings.push(format!("go perft: depth {d} clamped to 12"));
                }
                return Ok(Command::Go { kind: GoKind::Perft(d.min(12) as u32), warnings });
            }
            "mate" => {
                let mut mate = MateGo { time_ms: None, nodes: limits.nodes };
                let mut j = i + 1;
                while j < tokens.len() {
                    match tokens[j] {
                        "infinite" => {}
                        "nodes" => {
                            mate.nodes = Some(parse_nodes(tokens.get(j + 1).copied())?);
                            j += 1;
                        }
                        t => mate.time_ms = Some(parse_ms(C, Some(t), &mut warnings)?),
                    }
                    j += 1;
                }
                return Ok(Command::Go { kind: GoKind::Mate(mate), warnings });
            }
            // `movestogo` is not part of USI but some tools send it; ignore its value.
            "movestogo" => i += 1,
            other => {
                return Err(UsiError::UnexpectedToken { command: C, token: other.to_string() });
            }
        }
        i += 1;
    }
    Ok(Command::Go { kind: GoKind::Search(limits), warnings })
}

fn parse_position(tokens: &[&str]) -> Result<Command, UsiError> {
    const C: &str = "position";
    let (base, rest) = match tokens.first() {
        Some(&"startpos") => (PositionBase::Startpos, &tokens[1..]),
        Some(&"sfen") => {
            let end = tokens.iter().position(|&t| t == "moves").unwrap_or(tokens.len());
            if end <= 1 {
                return Err(UsiError::Missing { command: C, what: "the SFEN" });
            }
            (PositionBase::Sfen(tokens[1..end].join(" ")), &tokens[end..])
        }
        Some(other) => {
            return Err(UsiError::UnexpectedToken { command: C, token: other.to_string() });
        }
        None => {
            return Err(UsiError::Missing { command: C, what: "startpos or sfen" });
        }
    };
    let moves = match rest.first() {
        None => Vec::new(),
        Some(&"moves") => rest[1..].iter().map(|s| s.to_string()).collect(),
        Some(other) => {
            return Err(UsiError::UnexpectedToken { command: C, token: other.to_string() });
        }
    };
    Ok(Command::Position { base, moves })
}

fn parse_setoption(tokens: &[&str]) -> Result<Command, UsiError> {
    const C: &str = "setoption";
    if tokens.first() != Some(&"name") {
        return Err(UsiError::Missing { command: C, what: "'name'" });
    }
    let vpos = tokens.iter().position(|&t| t == "value");
    let name_end = vpos.unwrap_or(tokens.len());
    if name_end <= 1 {
        return Err(UsiError::Missing { command: C, what: "the option name" });
    }
    let name = tokens[1..name_end].join(" ");
    let value = vpos.map(|p| tokens[p + 1..].join(" "));
    Ok(Command::SetOption { name, value })
}

/// Parses one line. Leading and trailing white space is ignored.
pub fn parse(line: &str) -> Result<Command, UsiError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some((&head, rest)) = tokens.split_first() else {
        return Err(UsiError::Empty);
    };
    let no_args = |c: Command, name: &'static str| {
        if let Some(t) = rest.first() {
            Err(UsiError::UnexpectedToken { command: name, token: t.to_string() })
        } else {
            Ok(c)
        }
    };
    match head {
        "usi" => no_args(Command::Usi, "usi"),
        "isready" => no_args(Command::IsReady, "isready"),
        "usinewgame" => no_args(Command::UsiNewGame, "usinewgame"),
        "stop" => no_args(Command::Stop, "stop"),
        "quit" => Ok(Command::Quit),
        "d" => no_args(Command::Display, "d"),
        "moves" => no_args(Command::Moves, "moves"),
        "eval" => no_args(Command::Eval, "eval"),
        "setoption" => parse_setoption(rest),
        "position" => parse_position(rest),
        "go" => parse_go(rest),
        "ponderhit" => {
            if rest.is_empty() {
                return Ok(Command::PonderHit(None));
            }
            let mut limits = Limits::default();
            let mut warnings = Vec::new();
            let mut i = 0;
            while i < rest.len() {
                if !clock_token(&mut limits, rest[i], rest.get(i + 1).copied(), "ponderhit", &mut warnings)? {
                    return Err(UsiError::UnexpectedToken { command: "ponderhit", token: rest[i].to_string() });
                }
                i += 2;
            }
            Ok(Command::PonderHit(Some(limits)))
        }
        "gameover" => Ok(Command::GameOver(rest.first().map_or(String::new(), |s| s.to_string()))),
        "bench" => {
            let depth = match rest.first() {
                None => None,
                Some(t) => Some(
                    t.parse::<i32>()
                        .ok()
                        .filter(|d| (1..=40).contains(d))
                        .ok_or(UsiError::BadNumber { command: "bench", token: t.to_string() })?,
                ),
            };
            Ok(Command::Bench { depth })
        }
        other => Err(UsiError::Unknown(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_with_clock() {
        let c = parse("go btime 1000 wtime 2000 byoyomi 500").unwrap();
        let Command::Go { kind: GoKind::Search(l), warnings } = c else { panic!() };
        assert_eq!(l.time, [Some(1000), Some(2000)]);
        assert_eq!(l.byoyomi, [500, 500]);
        assert!(warnings.is_empty());
    }

    #[test]
    fn go_negative_and_huge_values_are_clamped() {
        let Command::Go { kind: GoKind::Search(l), warnings } =
            parse("go btime -5 wtime 99999999999999 depth 1000000000").unwrap()
        else {
            panic!()
        };
        assert_eq!(l.time, [Some(0), Some(MAX_TIME_MS)]);
        assert_eq!(l.depth, Some(crate::search::MAX_PLY as i32 - 10));
        assert_eq!(warnings.len(), 3);
    }

    #[test]
    fn position_forms() {
        assert_eq!(
            parse("position startpos moves 7g7f 3c3d").unwrap(),
            Command::Position { base: PositionBase::Startpos, moves: vec!["7g7f".into(), "3c3d".into()] }
        );
        assert_eq!(
            parse("position sfen 4k4/9/9/9/9/9/9/9/4K4 b G 1").unwrap(),
            Command::Position { base: PositionBase::Sfen("4k4/9/9/9/9/9/9/9/4K4 b G 1".into()), moves: vec![] }
        );
        assert!(parse("position").is_err());
        assert!(parse("position sfen").is_err());
        assert!(parse("position startpos 7g7f").is_err());
    }

    #[test]
    fn errors() {
        assert_eq!(parse("   "), Err(UsiError::Empty));
        assert_eq!(parse("foo bar"), Err(UsiError::Unknown("foo".into())));
        assert!(parse("go depth x").is_err());
        assert!(parse("go wibble").is_err());
        assert!(parse("setoption value 3").is_err());
        assert_eq!(
            parse("setoption name USI_Hash value 64").unwrap(),
            Command::SetOption { name: "USI_Hash".into(), value: Some("64".into()) }
        );
        let mate = |time_ms, nodes| Command::Go { kind: GoKind::Mate(MateGo { time_ms, nodes }), warnings: vec![] };
        assert_eq!(parse("go mate infinite").unwrap(), mate(None, None));
        assert_eq!(parse("go mate").unwrap(), mate(None, None));
        assert_eq!(parse("go mate 5000").unwrap(), mate(Some(5000), None));
        assert_eq!(parse("go mate nodes 100000").unwrap(), mate(None, Some(100_000)));
        assert_eq!(parse("go mate 300 nodes 7").unwrap(), mate(Some(300), Some(7)));
        assert_eq!(parse("go nodes 9 mate infinite").unwrap(), mate(None, Some(9)));
        assert!(parse("go mate nodes").is_err());
        assert!(parse("go mate nodes x").is_err());
        assert!(parse("go mate soon").is_err());
        assert!(matches!(parse("ponderhit btime 100 wtime 100 byoyomi 1000").unwrap(), Command::PonderHit(Some(_))));
    }
}
