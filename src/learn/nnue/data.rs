//! Training data: files of `PackedSfenValue` records decoded once into the HalfKP feature
//! indices of both perspectives (side to move first), with the score and the result.
//!
//! Every evaluable position has exactly 38 features per perspective (absent pieces sit on
//! BonaPiece 0, as in inference), and K+P two more (the kings' squares), so a sample is a fixed
//! block of 2 x 40 `u32` indices (`NO_FEATURE` in the last two of each side but for K+P): 320
//! bytes, about 1 GB for 3 M positions. Records that do not unpack into a legal position, or
//! that the network cannot evaluate, are skipped and counted. The indices are those of the
//! feature set trained (HalfKP, HalfKP_vm or K+P).
//!
//! The validation set is a contiguous tail of each file: the positions of a game are written
//! one after another, so a tail holds whole games whose near-twins are not trained on. The split
//! point is moved forward to the next game start (where the game ply stops increasing), so that
//! no game is cut in two.

use crate::nnue::FeatureSet;
use crate::nnue::features::{MAX_ACTIVE, active_features_of};
use crate::records::packed_sfen::{PackedSfenValue, RECORD_BYTES};
use crate::shogi::Position;
use std::fmt;
use std::path::{Path, PathBuf};

/// Feature slots of one perspective in a sample: the 38 of HalfKP, and K+P's two kings.
pub const SAMPLE_SIDE: usize = MAX_ACTIVE + 2;
/// Feature indices of one sample: the side to move's `SAMPLE_SIDE`, then the other side's.
pub const SAMPLE_FEATURES: usize = 2 * SAMPLE_SIDE;
/// An empty slot.
pub const NO_FEATURE: u32 = u32::MAX;

/// The feature block of a sample.
pub type SampleFeatures = [u32; SAMPLE_FEATURES];

/// Why training data could not be read.
#[derive(Debug)]
pub enum DataError {
    /// The file could not be opened or read.
    Io { path: PathBuf, err: std::io::Error },
    /// The length is not a whole number of 40-byte records.
    PartialRecord { path: PathBuf, bytes: u64 },
    /// Not one usable position to train on.
    NoPositions,
    /// A games file that does not read.
    Games { path: PathBuf, reason: String },
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            DataError::Io { path, err } => write!(f, "{}: {err}", path.display()),
            DataError::PartialRecord { path, bytes } => write!(
                f,
                "{}: {bytes} bytes is not a whole number of {RECORD_BYTES}-byte PackedSfenValue records",
                path.display()
            ),
            DataError::NoPositions => write!(f, "the data holds no position to train on"),
            DataError::Games { path, reason } => write!(f, "{}: {reason}", path.display()),
        }
    }
}

impl std::error::Error for DataError {}

/// Decoded samples: features, search score and game result, all from the side to move's view.
#[derive(Clone, Default)]
pub struct Dataset {
    features: Vec<u32>,
    scores: Vec<i16>,
    results: Vec<i8>,
    /// The evaluation the network's output is added to (centipawns, side to move's view): the
    /// linear evaluation for a correction network (`Base::Linear`), else 0.
    bases: Vec<i16>,
}

/// What a network's output is added to: nothing (a network on its own), or the linear
/// evaluation (the network learns a correction to it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Base {
    #[default]
    None,
    Linear,
}

impl Base {
    /// The base evaluation of `pos` (centipawns, side to move's view).
    pub fn of(self, pos: &Position) -> i16 {
        match self {
            Base::None => 0,
            Base::Linear => crate::eval::evaluate(pos).clamp(-i16::MAX as i32, i16::MAX as i32) as i16,
        }
    }
}

impl Dataset {
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    #[inline]
    pub fn features(&self, i: usize) -> &SampleFeatures {
        &self.features.as_chunks::<SAMPLE_FEATURES>().0[i]
    }

    /// The search score in centipawns.
    pub fn score(&self, i: usize) -> i16 {
        self.scores[i]
    }

    /// +1 win, 0 draw, -1 loss.
    pub fn result(&self, i: usize) -> i8 {
        self.results[i]
    }

    /// The evaluation the network's output is added to, in centipawns.
    #[inline]
    pub fn base(&self, i: usize) -> i16 {
        self.bases[i]
    }

    /// Adds a sample (its result is clamped to -1..=1) with no base evaluation.
    pub fn push(&mut self, features: &SampleFeatures, score: i16, result: i8) {
        self.push_on(features, score, result, 0);
    }

    /// Adds a sample whose network output is added to `base` (centipawns).
    pub fn push_on(&mut self, features: &SampleFeatures, score: i16, result: i8, base: i16) {
        self.features.extend_from_slice(features);
        self.scores.push(score);
        self.results.push(result.clamp(-1, 1));
        self.bases.push(base);
    }

    fn append(&mut self, mut other: Dataset) {
        self.features.append(&mut other.features);
        self.scores.append(&mut other.scores);
        self.results.append(&mut other.results);
        self.bases.append(&mut other.bases);
    }
}

/// The HalfKP features of a position, side to move first; `None` where HalfKP cannot
/// evaluate it or the position holds more than a set (38 features per side).
pub fn sample_features(pos: &Position) -> Option<SampleFeatures> {
    sample_features_of(FeatureSet::HalfKp, pos)
}

/// The features of `set` (HalfKP, HalfKP_vm or K+P) of a position, side to move first.
pub fn sample_features_of(set: FeatureSet, pos: &Position) -> Option<SampleFeatures> {
    let per_side = MAX_ACTIVE + if set.has_king_features() { 2 } else { 0 };
    let mut out = [NO_FEATURE; SAMPLE_FEATURES];
    for (side, perspective) in [pos.side_to_move(), !pos.side_to_move()].into_iter().enumerate() {
        let f = active_features_of(set, pos, perspective).filter(|f| f.len() == per_side)?;
        out[side * SAMPLE_SIDE..side * SAMPLE_SIDE + per_side].copy_from_slice(&f);
    }
    Some(out)
}

/// What was read from one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileReport {
    pub path: PathBuf,
    pub records: usize,
    pub train: usize,
    pub validation: usize,
    /// Records whose packed position is not a legal position.
    pub undecodable: usize,
    /// Positions HalfKP cannot evaluate (`crate::nnue::can_evaluate`) or holding more than a set.
    pub not_evaluable: usize,
}

/// Counts of skipped records of a decoded slice.
#[derive(Default)]
struct Decoded {
    data: Dataset,
    undecodable: usize,
    not_evaluable: usize,
}

fn decode(records: &[[u8; RECORD_BYTES]], base: Base, set: FeatureSet) -> Decoded {
    let mut out = Decoded::default();
    out.data.features.reserve(records.len() * SAMPLE_FEATURES);
    for rec in records {
        let psv = PackedSfenValue::from_bytes(rec);
        let Ok(pos) = psv.position() else {
            out.undecodable += 1;
            continue;
        };
        match sample_features_of(set, &pos) {
            Some(f) => out.data.push_on(&f, psv.score, psv.result, base.of(&pos)),
            None => out.not_evaluable += 1,
        }
    }
    out
}

/// Decodes records on `threads` threads, keeping their order.
fn decode_parallel(records: &[[u8; RECORD_BYTES]], threads: usize, base: Base, set: FeatureSet) -> Decoded {
    let share = records.len().div_ceil(threads.max(1)).max(1);
    let parts: Vec<Decoded> = std::thread::scope(|s| {
        let handles: Vec<_> = records.chunks(share).map(|c| s.spawn(move || decode(c, base, set))).collect();
        // Decoding returns errors as values; a panic would be a bug, passed on as it is.
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    let mut all = Decoded::default();
    for p in parts {
        all.data.append(p.data);
        all.undecodable += p.undecodable;
        all.not_evaluable += p.not_evaluable;
    }
    all
}

/// The game ply of a record.
fn game_ply(rec: &[u8; RECORD_BYTES]) -> u16 {
    u16::from_le_bytes([rec[36], rec[37]])
}

/// Index of the first validation record: `fraction` of the file from its end, moved forward to
/// the next game start (unless there is none).
pub fn split_point(records: &[[u8; RECORD_BYTES]], fraction: f64) -> usize {
    let n = records.len();
    let held = ((n as f64) * fraction.clamp(0.0, 1.0)).round() as usize;
    let s = n - held.min(n);
    if s == 0 || s == n {
        return s;
    }
    (s..n).find(|&i| game_ply(&records[i]) <= game_ply(&records[i - 1])).unwrap_or(s)
}

/// The training records of a games file (`crate::learn::game_store`): its searched positions
/// that `gensfen::keep` accepts, as `gensfen` would have written them.
/// Only the games numbered below `max_games` are read (all with `None`): those a run of that
/// many games plays, whatever order threads wrote them in.
fn games_records(path: &Path, max_games: Option<usize>) -> Result<Vec<u8>, DataError> {
    let corrupt = |reason: String| DataError::Games { path: path.to_path_buf(), reason };
    let file = crate::learn::game_store::read(path).map_err(|e| corrupt(e.to_string()))?;
    let mut out = Vec::new();
    for g in file.games.iter().filter(|g| max_games.is_none_or(|n| (g.index as usize) < n)) {
        out.extend(super::gensfen::records_of(g, u32::MAX).map_err(corrupt)?);
    }
    Ok(out)
}

/// Reads the files (PackedSfenValue records, or games files ending in `.games`): the training set, the validation set (a tail `validation` fraction of each
/// file) and a report per file, each sample with its `base` evaluation. Decoding runs on
/// `threads` threads.
pub fn load<P: AsRef<Path>>(
    paths: &[P],
    validation: f64,
    threads: usize,
    base: Base,
) -> Result<(Dataset, Dataset, Vec<FileReport>), DataError> {
    load_with(paths, validation, threads, base, Selection::default())
}

/// What `load_with` reads of the files, and into which features.
#[derive(Clone, Copy, Debug)]
pub struct Selection {
    /// Only the games numbered below this of each games file (the data of the same run stopped
    /// after that many games, for comparisons at equal cost); `None`: all.
    pub max_games: Option<usize>,
    /// The feature set of the samples (HalfKP, HalfKP_vm or K+P).
    pub features: FeatureSet,
}

impl Default for Selection {
    fn default() -> Self {
        Selection { max_games: None, features: FeatureSet::HalfKp }
    }
}

/// `load` with a `Selection` of the games and the feature set.
pub fn load_with<P: AsRef<Path>>(
    paths: &[P],
    validation: f64,
    threads: usize,
    base: Base,
    selection: Selection,
) -> Result<(Dataset, Dataset, Vec<FileReport>), DataError> {
    let Selection { max_games, features: set } = selection;
    let (mut train, mut valid, mut reports) = (Dataset::default(), Dataset::default(), Vec::new());
    for path in paths {
        let path = path.as_ref();
        let bytes = if path.extension().is_some_and(|e| e == "games") {
            games_records(path, max_games)?
        } else {
            std::fs::read(path).map_err(|err| DataError::Io { path: path.to_path_buf(), err })?
        };
        let (records, rest) = bytes.as_chunks::<RECORD_BYTES>();
        if !rest.is_empty() {
            return Err(DataError::PartialRecord { path: path.to_path_buf(), bytes: bytes.len() as u64 });
        }
        let s = split_point(records, validation);
        let t = decode_parallel(&records[..s], threads, base, set);
        let v = decode_parallel(&records[s..], threads, base, set);
        reports.push(FileReport {
            path: path.to_path_buf(),
            records: records.len(),
            train: t.data.len(),
            validation: v.data.len(),
            undecodable: t.undecodable + v.undecodable,
            not_evaluable: t.not_evaluable + v.not_evaluable,
        });
        train.append(t.data);
        valid.append(v.data);
    }
    if train.is_empty() {
        return Err(DataError::NoPositions);
    }
    Ok((train, valid, reports))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::packed_sfen::pack;

    fn record(sfen: &str, ply: u16, score: i16, result: i8) -> [u8; RECORD_BYTES] {
        let pos = Position::from_sfen(sfen).unwrap();
        PackedSfenValue { sfen: pack(&pos).unwrap(), score, mv: 0, game_ply: ply, result }.to_bytes()
    }

    #[test]
    fn features_match_inference_and_bad_records_are_counted() {
        let sfen = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";
        let good = record(sfen, 1, -300, 1);
        let mut bad = good;
        bad[..32].fill(0xff);
        let dir = std::env::temp_dir().join(format!("hayate-data-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.bin");
        std::fs::write(&path, [good, bad, good].concat()).unwrap();
        let (train, valid, reports) = load(&[&path], 0.0, 2, Base::None).unwrap();
        assert_eq!((train.len(), valid.len()), (2, 0));
        assert_eq!((reports[0].records, reports[0].undecodable, reports[0].not_evaluable), (3, 1, 0));
        let pos = Position::from_sfen(sfen).unwrap();
        let f = train.features(1);
        use crate::nnue::features::active_features;
        assert_eq!(&f[..MAX_ACTIVE], &active_features(&pos, crate::shogi::Color::White).unwrap()[..]);
        assert_eq!(
            &f[SAMPLE_SIDE..SAMPLE_SIDE + MAX_ACTIVE],
            &active_features(&pos, crate::shogi::Color::Black).unwrap()[..]
        );
        assert!([f[MAX_ACTIVE], f[MAX_ACTIVE + 1], f[SAMPLE_FEATURES - 1]].iter().all(|&x| x == NO_FEATURE));
        // K+P fills the two slots with the kings; HalfKP_vm mirrors: the other feature sets'
        // samples hold what inference computes for them.
        for set in [FeatureSet::Kp, FeatureSet::HalfKpVm] {
            let f = sample_features_of(set, &pos).unwrap();
            for (side, c) in [crate::shogi::Color::White, crate::shogi::Color::Black].into_iter().enumerate() {
                let want = active_features_of(set, &pos, c).unwrap();
                assert_eq!(&f[side * SAMPLE_SIDE..side * SAMPLE_SIDE + want.len()], &want[..]);
            }
            assert_eq!(f.iter().filter(|&&x| x == NO_FEATURE).count(), if set == FeatureSet::Kp { 0 } else { 4 });
        }
        assert_eq!((train.score(1), train.result(1)), (-300, 1));
        assert_eq!(train.base(1), 0);
        // A correction network's samples carry the linear evaluation (side to move's view).
        let (on_linear, _, _) = load(&[&path], 0.0, 1, Base::Linear).unwrap();
        let linear = crate::eval::evaluate(&pos);
        assert_ne!(linear, 0);
        assert_eq!(on_linear.base(0) as i32, linear);
        assert_eq!(on_linear.features(0), train.features(0));

        std::fs::write(&path, [0u8; 41]).unwrap();
        assert!(matches!(load(&[&path], 0.0, 1, Base::None), Err(DataError::PartialRecord { bytes: 41, .. })));
        std::fs::write(&path, []).unwrap();
        assert!(matches!(load(&[&path], 0.0, 1, Base::None), Err(DataError::NoPositions)));
        assert!(matches!(load(&[dir.join("missing.bin")], 0.0, 1, Base::None), Err(DataError::Io { .. })));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_validation_tail_starts_at_a_game_start() {
        let s = crate::shogi::STARTPOS;
        // Two games: plies 1..=6, then 1..=4.
        let plies = [1, 2, 3, 4, 5, 6, 1, 2, 3, 4];
        let recs: Vec<_> = plies.iter().map(|&p| record(s, p, 0, 0)).collect();
        // 30% is 3 records from the end, inside game 2, moved to... the next start: none after
        // index 7, so the cut stays at 7.
        assert_eq!(split_point(&recs, 0.3), 7);
        // 50%: index 5 is inside game 1; the next start is index 6.
        assert_eq!(split_point(&recs, 0.5), 6);
        assert_eq!(split_point(&recs, 0.0), 10);
        assert_eq!(split_point(&recs, 1.0), 0);
    }
}
