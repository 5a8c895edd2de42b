//! Reading a record or position list whatever its format: decoding (UTF-8 or Shift_JIS),
//! detecting the format from the content, and parsing with the format's reader.

use super::game::Game;
use super::{csa, jkf, kif, usi};
use std::fmt;

/// Input format names for `--format`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Kif,
    Ki2,
    Csa,
    /// The JSON kifu format of Kifu for JS and tsshogi (ShogiHome).
    Jkf,
    /// One `position ...` line (or SFEN) with moves: a game.
    Usi,
    /// One SFEN or `position` line per line: a list of positions.
    Sfen,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Format::Kif => "kif",
            Format::Ki2 => "ki2",
            Format::Csa => "csa",
            Format::Jkf => "jkf",
            Format::Usi => "usi",
            Format::Sfen => "sfen",
        })
    }
}

/// What to analyse.
#[derive(Clone)]
pub enum Input {
    Game(Box<Game>),
    /// A list of positions, each as the line's game that leads to it: the position analysed
    /// is its final one.
    Positions(Vec<Game>),
}

/// Why the input could not be read.
#[derive(Debug)]
pub enum InputError {
    /// Neither UTF-8 nor Shift_JIS.
    Encoding,
    Empty,
    /// No format fits; `--format` can force one.
    Unrecognized,
    Kif(kif::KifError),
    Csa(csa::CsaError),
    Jkf(jkf::JkfError),
    Usi(usi::UsiInputError),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            InputError::Encoding => write!(f, "input is neither UTF-8 nor Shift_JIS text"),
            InputError::Empty => write!(f, "input is empty"),
            InputError::Unrecognized => {
                write!(f, "cannot tell the input format (KIF, KI2, CSA, JKF, USI, SFEN list); use --format")
            }
            InputError::Kif(e) => write!(f, "{e}"),
            InputError::Csa(e) => write!(f, "{e}"),
            InputError::Jkf(e) => write!(f, "{e}"),
            InputError::Usi(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for InputError {}

/// Decodes a record: UTF-8 (with or without BOM) when valid, else Shift_JIS (the Windows
/// code page 932 that Kifu for Windows writes).
pub fn decode(bytes: &[u8]) -> Result<String, InputError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Ok(s.to_string());
    }
    let (text, had_errors) = encoding_rs::SHIFT_JIS.decode_without_bom_handling(bytes);
    if had_errors { Err(InputError::Encoding) } else { Ok(text.into_owned()) }
}

/// Guesses the format from the content.
pub fn detect(text: &str) -> Option<Format> {
    // JSON first: no other format opens with `{`.
    if text.trim_start().starts_with('{') {
        return jkf::looks_like_jkf(text).then_some(Format::Jkf);
    }
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if lines.is_empty() {
        return None;
    }
    let significant: Vec<&str> = lines.iter().copied().filter(|l| !l.starts_with('#')).collect();
    if !significant.is_empty() && significant.iter().all(|l| usi::looks_like_position(l)) {
        let one_game = significant.len() == 1 && significant[0].split_whitespace().any(|t| t == "moves");
        return Some(if one_game { Format::Usi } else { Format::Sfen });
    }
    if lines.iter().any(|l| csa::looks_like_csa(l)) {
        return Some(Format::Csa);
    }
    if lines.iter().any(|l| kif::is_kif_move_line(l) || l.starts_with("手数----")) {
        return Some(Format::Kif);
    }
    if lines.iter().any(|l| kif::is_ki2_move_line(l)) {
        return Some(Format::Ki2);
    }
    // A record with headers or a board diagram but no moves yet.
    if lines.iter().any(|l| l.contains('：') || l.starts_with('|')) {
        return Some(Format::Kif);
    }
    None
}

/// Parses `text` as `format`, or as the detected format.
pub fn parse(text: &str, format: Option<Format>) -> Result<(Format, Input), InputError> {
    if text.trim().is_empty() {
        return Err(InputError::Empty);
    }
    let format = match format {
        Some(f) => f,
        None => detect(text).ok_or(InputError::Unrecognized)?,
    };
    let input = match format {
        Format::Kif => Input::Game(Box::new(kif::parse_kif(text).map_err(InputError::Kif)?)),
        Format::Ki2 => Input::Game(Box::new(kif::parse_ki2(text).map_err(InputError::Kif)?)),
        Format::Csa => Input::Game(Box::new(csa::parse(text).map_err(InputError::Csa)?)),
        Format::Jkf => Input::Game(Box::new(jkf::parse(text).map_err(InputError::Jkf)?)),
        Format::Usi => Input::Game(Box::new(usi::parse_game(text).map_err(InputError::Usi)?)),
        Format::Sfen => Input::Positions(usi::parse_list(text).map_err(InputError::Usi)?),
    };
    Ok((format, input))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_both_encodings() {
        let text = "手合割：平手\n";
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode(text);
        assert_eq!(decode(&sjis).unwrap(), text);
        assert_eq!(decode(text.as_bytes()).unwrap(), text);
        assert_eq!(decode(&[0xEF, 0xBB, 0xBF, b'a']).unwrap(), "a");
        assert!(matches!(decode(&[0x81, 0x20, 0xFF]), Err(InputError::Encoding)));
    }

    #[test]
    fn detects_formats() {
        assert_eq!(detect("position startpos moves 7g7f 3c3d"), Some(Format::Usi));
        assert_eq!(detect("startpos\nsfen 4k4/9/9/9/9/9/9/9/4K4 b G 1\n"), Some(Format::Sfen));
        assert_eq!(detect("4k4/9/9/9/9/9/9/9/4K4 b G 1"), Some(Format::Sfen));
        assert_eq!(detect("V2.2\nPI\n+\n+7776FU\n"), Some(Format::Csa));
        assert_eq!(detect("手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n"), Some(Format::Kif));
        assert_eq!(detect("手合割：平手\n▲７六歩    △３四歩\n"), Some(Format::Ki2));
        assert_eq!(detect("hello world"), None);
        assert_eq!(detect("{\"header\":{},\"moves\":[{}]}"), Some(Format::Jkf));
        assert_eq!(detect("\n {\"header\":{},\"moves\":[{}"), Some(Format::Jkf), "broken JSON: its error is shown");
        assert_eq!(detect("{\"positions\":[]}"), None);
    }
}
