//! Self-play games stored whole and compactly (`*.games`), so that the data outlives the
//! machine that made it and every position can be filtered again at training time.
//!
//! A file is a header, then gzip members, each holding a batch of games:
//! - header: the line `hayate games 1`, then one line of the settings the games were played
//!   with (`settings`; a run resumes a file only with the same settings);
//! - a game (little-endian): `u32` its number in the run (game `g` of a seed is the same game
//!   on every run), `u8` length and text of the start position's SFEN (0: the start
//!   position), `u16` opening moves (played without a search), `u16` searched moves, `u8` of
//!   those chosen at random (the first ones), `u8` result (0 a draw, 1 Black won, 2 White
//!   won), every move (`u16`, PackedSfenValue's code), then each searched move's score (`i16`,
//!   the side to move's view).
//!
//! Four bytes a searched position before compression, about two and a half after. Games are
//! written in batches; a run that stops loses at most its unwritten batch, and the next run
//! plays exactly the games the file lacks (a member cut short is dropped when the file is
//! reopened).

use crate::records::packed_sfen::{move_from_psv, move_to_psv};
use crate::shogi::{Color, Move, Position};
use std::fmt;
use std::io::{Read, Write};
use std::path::Path;

/// The first line of a games file.
pub const MAGIC: &str = "hayate games 1\n";
/// Games per gzip member.
pub const BATCH: usize = 16;

/// One game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// Its number in the run that played it.
    pub index: u32,
    /// SFEN of the start position (empty: the start position).
    pub start: String,
    /// Moves played from the start without a search (an opening line's prefix).
    pub opening: Vec<Move>,
    /// The searched moves and their scores (side to move's view).
    pub moves: Vec<(Move, i16)>,
    /// The first `random` searched moves were chosen at random among near-best ones.
    pub random: u8,
    /// `None`: a draw.
    pub winner: Option<Color>,
}

/// Why a games file could not be read.
#[derive(Debug)]
pub enum GameStoreError {
    Io(std::io::Error),
    /// Not a games file (no header line).
    NotGames,
    /// The settings line differs from the run's.
    OtherSettings {
        found: String,
        expected: String,
    },
    /// A batch that does not decompress, or a game that does not decode or replay (its
    /// number in the file, from 0).
    Corrupt {
        game: usize,
        reason: String,
    },
}

impl fmt::Display for GameStoreError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            GameStoreError::Io(e) => write!(f, "{e}"),
            GameStoreError::NotGames => write!(f, "not a games file (no \"{}\" line)", MAGIC.trim_end()),
            GameStoreError::OtherSettings { found, expected } => {
                write!(f, "the file's games were played with \"{found}\", this run with \"{expected}\"")
            }
            GameStoreError::Corrupt { game, reason } => write!(f, "game {game} of the file: {reason}"),
        }
    }
}

impl std::error::Error for GameStoreError {}

impl From<std::io::Error> for GameStoreError {
    fn from(e: std::io::Error) -> Self {
        GameStoreError::Io(e)
    }
}

impl StoredGame {
    /// The start position.
    pub fn start_position(&self) -> Result<Position, String> {
        if self.start.is_empty() {
            return Ok(Position::startpos());
        }
        Position::from_sfen(&self.start).map_err(|e| format!("start position: {e}"))
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.index.to_le_bytes());
        let start = &self.start.as_bytes()[..self.start.len().min(255)];
        out.push(start.len() as u8);
        out.extend_from_slice(start);
        out.extend_from_slice(&(self.opening.len() as u16).to_le_bytes());
        out.extend_from_slice(&(self.moves.len() as u16).to_le_bytes());
        out.push(self.random);
        out.push(match self.winner {
            None => 0,
            Some(Color::Black) => 1,
            Some(Color::White) => 2,
        });
        for &m in self.opening.iter().chain(self.moves.iter().map(|(m, _)| m)) {
            out.extend_from_slice(&move_to_psv(m).to_le_bytes());
        }
        for &(_, s) in &self.moves {
            out.extend_from_slice(&s.to_le_bytes());
        }
    }

    /// Decodes one game from the front of `data`, advancing it; the moves are checked only
    /// for their code (`replay` checks their legality).
    fn decode(data: &mut &[u8]) -> Result<StoredGame, String> {
        fn take<'a>(data: &mut &'a [u8], n: usize) -> Result<&'a [u8], String> {
            if data.len() < n {
                return Err("cut short".into());
            }
            let (head, tail) = data.split_at(n);
            *data = tail;
            Ok(head)
        }
        let u16_at = |b: &[u8], i: usize| u16::from_le_bytes([b[2 * i], b[2 * i + 1]]);
        let index = u32::from_le_bytes(take(data, 4)?.try_into().expect("4 bytes"));
        let len = take(data, 1)?[0] as usize;
        let start = String::from_utf8(take(data, len)?.to_vec()).map_err(|_| "start position not text".to_string())?;
        let counts = take(data, 6)?;
        let (opening, searched) = (u16_at(counts, 0) as usize, u16_at(counts, 1) as usize);
        let (random, result) = (counts[4], counts[5]);
        let winner = match result {
            0 => None,
            1 => Some(Color::Black),
            2 => Some(Color::White),
            r => return Err(format!("result code {r}")),
        };
        let codes = take(data, 2 * (opening + searched))?;
        let scores = take(data, 2 * searched)?;
        let mut opening_moves = Vec::with_capacity(opening + searched);
        for i in 0..opening + searched {
            opening_moves.push(move_from_psv(u16_at(codes, i)).ok_or_else(|| format!("move {i}: no move code"))?);
        }
        let searched_moves = opening_moves.split_off(opening);
        let moves = searched_moves.into_iter().enumerate().map(|(i, m)| (m, u16_at(scores, i) as i16)).collect();
        Ok(StoredGame { index, start, opening: opening_moves, moves, random, winner })
    }

    /// Replays the game, showing each searched position, its move and score, and whether the
    /// move was a random one; an illegal move is an error.
    pub fn replay(&self, mut on_searched: impl FnMut(&Position, Move, i16, bool)) -> Result<(), String> {
        let mut pos = self.start_position()?;
        for (i, &m) in self.opening.iter().enumerate() {
            if !pos.is_legal(m) {
                return Err(format!("opening move {i} is illegal"));
            }
            pos.do_move(m);
        }
        for (i, &(m, score)) in self.moves.iter().enumerate() {
            if !pos.is_legal(m) {
                return Err(format!("move {} is illegal", self.opening.len() + i));
            }
            on_searched(&pos, m, score, i < self.random as usize);
            pos.do_move(m);
        }
        Ok(())
    }
}

/// The header of a file of games played with `settings` (one line).
fn header(settings: &str) -> String {
    format!("{MAGIC}{}\n", settings.replace('\n', " "))
}

/// What a file holds: its settings line, its games, and the length of its readable part
/// (a last member cut short, as a stopped run may leave, ends it).
pub struct GamesFile {
    pub settings: String,
    pub games: Vec<StoredGame>,
    pub readable: usize,
    /// Whether something unreadable followed `readable`.
    pub cut: bool,
}

/// Reads the bytes of a games file. A member that does not decompress ends the readable part
/// (`cut`); a game that does not decode inside a member that does is an error.
pub fn parse(bytes: &[u8]) -> Result<GamesFile, GameStoreError> {
    let rest = bytes.strip_prefix(MAGIC.as_bytes()).ok_or(GameStoreError::NotGames)?;
    let line_end = rest.iter().position(|&b| b == b'\n').ok_or(GameStoreError::NotGames)?;
    let settings = String::from_utf8_lossy(&rest[..line_end]).into_owned();
    let mut at = MAGIC.len() + line_end + 1;
    let mut games = Vec::new();
    let mut cut = false;
    while at < bytes.len() {
        let mut member = &bytes[at..];
        let mut payload = Vec::new();
        let mut decoder = flate2::bufread::GzDecoder::new(&mut member);
        if decoder.read_to_end(&mut payload).is_err() {
            cut = true;
            break;
        }
        drop(decoder);
        let used = bytes.len() - at - member.len();
        if used == 0 {
            cut = true;
            break;
        }
        let mut data = &payload[..];
        while !data.is_empty() {
            let game = StoredGame::decode(&mut data)
                .map_err(|reason| GameStoreError::Corrupt { game: games.len(), reason })?;
            games.push(game);
        }
        at += used;
    }
    Ok(GamesFile { settings, games, readable: at, cut })
}

/// Reads a games file whole: every game must decode and replay.
pub fn read(path: &Path) -> Result<GamesFile, GameStoreError> {
    let file = parse(&std::fs::read(path)?)?;
    if file.cut {
        return Err(GameStoreError::Corrupt { game: file.games.len(), reason: "the file ends inside a batch".into() });
    }
    for (i, g) in file.games.iter().enumerate() {
        g.replay(|_, _, _, _| {}).map_err(|reason| GameStoreError::Corrupt { game: i, reason })?;
    }
    Ok(file)
}

/// Appends games to a file in batches of `BATCH`, each a gzip member.
pub struct GameWriter {
    file: std::fs::File,
    pending: Vec<u8>,
    pending_games: usize,
}

impl GameWriter {
    /// Opens `path` for games played with `settings`: a new file gets the header; an existing
    /// one must have the same settings, loses whatever follows its readable part, and its
    /// games are returned (the run plays the others).
    pub fn open(path: &Path, settings: &str) -> Result<(GameWriter, Vec<StoredGame>), GameStoreError> {
        let existing = match std::fs::read(path) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e.into()),
        };
        let mut file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(path)?;
        let done = match existing.filter(|b| !b.is_empty()) {
            None => {
                file.set_len(0)?;
                file.write_all(header(settings).as_bytes())?;
                Vec::new()
            }
            Some(bytes) => {
                let parsed = parse(&bytes)?;
                let expected = settings.replace('\n', " ");
                if parsed.settings != expected {
                    return Err(GameStoreError::OtherSettings { found: parsed.settings, expected });
                }
                file.set_len(parsed.readable as u64)?;
                parsed.games
            }
        };
        use std::io::Seek;
        file.seek(std::io::SeekFrom::End(0))?;
        Ok((GameWriter { file, pending: Vec::new(), pending_games: 0 }, done))
    }

    /// Adds a game; a full batch is written.
    pub fn add(&mut self, game: &StoredGame) -> std::io::Result<()> {
        game.encode(&mut self.pending);
        self.pending_games += 1;
        if self.pending_games >= BATCH { self.flush() } else { Ok(()) }
    }

    /// Writes the games not yet written as one member.
    pub fn flush(&mut self) -> std::io::Result<()> {
        if self.pending_games == 0 {
            return Ok(());
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&self.pending)?;
        self.file.write_all(&gz.finish()?)?;
        self.file.sync_data()?;
        self.pending.clear();
        self.pending_games = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(index: u32, pos: &Position, plies: usize) -> StoredGame {
        let mut pos = pos.clone();
        let mut moves = Vec::new();
        let mut list = crate::shogi::movegen::MoveList::new();
        for i in 0..plies {
            list.clear();
            crate::shogi::movegen::generate_legal(&pos, &mut list);
            let Some(&m) = list.get((i * 7 + index as usize) % list.len().max(1)) else { break };
            moves.push((m, (i as i16 - 5) * 37));
            pos.do_move(m);
        }
        let opening = moves.drain(..2).map(|(m, _)| m).collect();
        StoredGame { index, start: String::new(), opening, moves, random: 2, winner: Some(Color::White) }
    }

    #[test]
    fn games_round_trip_and_a_cut_batch_is_dropped() {
        let dir = std::env::temp_dir().join(format!("hayate-games-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.games");
        let _ = std::fs::remove_file(&path);
        let games: Vec<StoredGame> = (0..40).map(|i| game(i, &Position::startpos(), 30 + i as usize)).collect();
        let (mut w, done) = GameWriter::open(&path, "seed 1").unwrap();
        assert!(done.is_empty());
        for g in &games {
            w.add(g).unwrap();
        }
        w.flush().unwrap();
        drop(w);
        let read_back = read(&path).unwrap();
        assert_eq!(read_back.games, games);
        assert_eq!(read_back.settings, "seed 1");
        // Two full batches and a short one; cut into the last: its games are lost, the rest kept.
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
        assert!(read(&path).is_err());
        let (_, done) = GameWriter::open(&path, "seed 1").unwrap();
        assert_eq!(done, games[..32]);
        assert!(matches!(GameWriter::open(&path, "seed 2"), Err(GameStoreError::OtherSettings { .. })));
        // Not a games file, and damage: errors, no panic.
        std::fs::write(&path, b"something else").unwrap();
        assert!(matches!(read(&path), Err(GameStoreError::NotGames)));
        for i in (0..bytes.len()).step_by(97) {
            let mut bad = bytes.clone();
            bad[i] ^= 0x5A;
            if let Ok(f) = parse(&bad) {
                for g in &f.games {
                    let _ = g.replay(|_, _, _, _| {});
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
