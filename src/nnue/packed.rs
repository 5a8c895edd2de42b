//! The network built into the binary, and the compact form it is stored in.
//!
//! A network file is 64 MB, nearly all of it the 81 king squares' blocks of HalfKP rows. A
//! network trained with factor rows (`learn::nnue::model`: a row per BonaPiece shared by all
//! king squares, and a row per board piece class and square relative to the king) and
//! exported by adding the factors' integers is exactly such a sum wherever the HalfKP rows
//! themselves learned nothing. The packed form therefore stores the factors, found again from
//! the file alone (medians over the king squares, so any file packs), and the file with each
//! HalfKP row replaced by its difference from its factors' sum (wrapping `i16` arithmetic):
//! mostly zeros, gzip-compressed behind a magic line. Unpacking gives back the standard file
//! byte for byte, whatever the file.

use super::dims::HALF_DIMENSIONS;
use super::features::{FE_END, INPUT_DIMENSIONS, KING_SQUARES};
use super::network::{Network, NnueError};
use std::io::{Read, Write};

/// First bytes of a packed network.
pub const MAGIC: &[u8] = b"hayate packed nn.bin 2\n";

/// hayate's own network, packed (see docs/training.md for the commands that made it).
pub static BUILT_IN: &[u8] = include_bytes!("hayate.nnpack");

type Row = [i16; HALF_DIMENSIONS];
const ROW_BYTES: usize = HALF_DIMENSIONS * 2;
/// BonaPieces before the board pieces (0 and the hand pieces).
const HAND_END: usize = 90;
/// Board piece classes (kind and colour), 81 squares each.
const CLASSES: usize = (FE_END - HAND_END) / 81;
/// Squares of a piece relative to its king: files and ranks -8..=8.
const OFFSETS: usize = 17 * 17;
/// Factor rows: one per BonaPiece, then one per class and offset.
const FACTOR_ROWS: usize = FE_END + CLASSES * OFFSETS;
/// The square whose rows fix the relative rows first (the centre; any square would do).
const ANCHOR: usize = 40;

/// Index of a square relative to the king's (files `sq / 9`, ranks `sq % 9`).
fn offset(king: usize, sq: usize) -> usize {
    (sq / 9 + 8 - king / 9) * 17 + (sq % 9 + 8 - king % 9)
}

/// The relative factor row of (class, offset).
fn relative(class: usize, off: usize) -> usize {
    FE_END + class * OFFSETS + off
}

/// The factor rows a HalfKP row of king square `king` and BonaPiece `bona` is the sum of.
fn factors_of(king: usize, bona: usize) -> (usize, Option<usize>) {
    let board = bona.checked_sub(HAND_END).map(|b| relative(b / 81, offset(king, b % 81)));
    (bona, board)
}

/// Where the HalfKP weights start in a standard file, if it is long enough to hold them all.
fn weights_range(file: &[u8]) -> Option<std::ops::Range<usize>> {
    let name_len = u32::from_le_bytes(file.get(8..12)?.try_into().ok()?) as usize;
    // Header, architecture string, transformer hash, biases.
    let start = 12usize.checked_add(name_len)? + 4 + 2 * HALF_DIMENSIONS;
    let end = start + INPUT_DIMENSIONS * HALF_DIMENSIONS * 2;
    (end <= file.len()).then_some(start..end)
}

fn read_rows(bytes: &[u8]) -> Vec<Row> {
    bytes
        .chunks_exact(ROW_BYTES)
        .map(|c| std::array::from_fn(|i| i16::from_le_bytes([c[2 * i], c[2 * i + 1]])))
        .collect()
}

fn write_rows(rows: &[Row], out: &mut [u8]) {
    for (row, c) in rows.iter().zip(out.chunks_exact_mut(ROW_BYTES)) {
        for (w, b) in row.iter().zip(c.chunks_exact_mut(2)) {
            b.copy_from_slice(&w.to_le_bytes());
        }
    }
}

/// The per-channel median of `samples` (at least one), wrapped to `i16`.
fn median(samples: &mut [Vec<i32>]) -> Row {
    std::array::from_fn(|ch| {
        let column = &mut samples[ch];
        let mid = column.len() / 2;
        *column.select_nth_unstable(mid).1 as i16
    })
}

/// Collects `value(king)` for the kings `keep` accepts and returns their median.
fn median_over_kings(mut keep: impl FnMut(usize) -> Option<Row>) -> Row {
    let mut samples: Vec<Vec<i32>> = (0..HALF_DIMENSIONS).map(|_| Vec::with_capacity(KING_SQUARES)).collect();
    for king in 0..KING_SQUARES {
        if let Some(row) = keep(king) {
            for (column, &w) in samples.iter_mut().zip(&row) {
                column.push(w as i32);
            }
        }
    }
    median(&mut samples)
}

fn sub(a: &Row, b: &Row) -> Row {
    std::array::from_fn(|i| a[i].wrapping_sub(b[i]))
}

/// Factor rows whose sums come close to the HalfKP rows `w` (exactly, for a file exported as
/// such sums): relative rows fixed by the anchor square's rows (its piece rows taken as
/// zero), piece rows as the median of what the relative rows leave, relative rows again as the
/// median of what the piece rows leave.
fn factorise(w: &[Row]) -> Vec<Row> {
    let at = |king: usize, bona: usize| &w[king * FE_END + bona];
    let mut f = vec![[0i16; HALF_DIMENSIONS]; FACTOR_ROWS];
    for (bona, row) in f.iter_mut().enumerate().take(HAND_END) {
        *row = median_over_kings(|k| Some(*at(k, bona)));
    }
    let mut known = [false; OFFSETS];
    for class in 0..CLASSES {
        for king in 0..KING_SQUARES {
            f[relative(class, offset(king, ANCHOR))] = *at(king, HAND_END + class * 81 + ANCHOR);
            known[offset(king, ANCHOR)] = true;
        }
    }
    for class in 0..CLASSES {
        for sq in 0..81 {
            let bona = HAND_END + class * 81 + sq;
            let row = median_over_kings(|k| {
                let off = offset(k, sq);
                known[off].then(|| sub(at(k, bona), &f[relative(class, off)]))
            });
            f[bona] = row;
        }
        for off in 0..OFFSETS {
            let (df, dr) = ((off / 17) as isize - 8, (off % 17) as isize - 8);
            let square_of = |k: usize| {
                let (file, rank) = ((k / 9) as isize + df, (k % 9) as isize + dr);
                ((0..9).contains(&file) && (0..9).contains(&rank)).then_some((file * 9 + rank) as usize)
            };
            let row = median_over_kings(|k| {
                let sq = square_of(k)?;
                let bona = HAND_END + class * 81 + sq;
                Some(sub(at(k, bona), &f[bona]))
            });
            f[relative(class, off)] = row;
        }
    }
    f
}

/// Adds (`restore`) or subtracts the factor sums to or from every HalfKP row.
fn apply_factors(w: &mut [Row], f: &[Row], restore: bool) {
    for (i, row) in w.iter_mut().enumerate() {
        let (piece, board) = factors_of(i / FE_END, i % FE_END);
        for (ch, x) in row.iter_mut().enumerate() {
            let sum = f[piece][ch].wrapping_add(board.map_or(0, |r| f[r][ch]));
            *x = if restore { x.wrapping_add(sum) } else { x.wrapping_sub(sum) };
        }
    }
}

/// The packed form of a standard network file (which must parse).
pub fn pack(file: &[u8]) -> Result<Vec<u8>, NnueError> {
    Network::from_bytes(file)?;
    let mut data = file.to_vec();
    let range = weights_range(&data).expect("a parsed file holds all its weights");
    let mut w = read_rows(&data[range.clone()]);
    let f = factorise(&w);
    apply_factors(&mut w, &f, false);
    write_rows(&w, &mut data[range]);
    let mut tail = vec![0u8; FACTOR_ROWS * ROW_BYTES];
    write_rows(&f, &mut tail);
    data.extend_from_slice(&tail);
    let mut out = MAGIC.to_vec();
    let mut gz = flate2::write::GzEncoder::new(&mut out, flate2::Compression::best());
    gz.write_all(&data).and_then(|_| gz.finish()).map_err(|e| NnueError::Decompress(e.to_string()))?;
    Ok(out)
}

/// The standard network file a packed form holds.
pub fn unpack(packed: &[u8]) -> Result<Vec<u8>, NnueError> {
    let body = packed.strip_prefix(MAGIC).ok_or_else(|| NnueError::Decompress("not a packed network".into()))?;
    let mut data = Vec::new();
    flate2::read::GzDecoder::new(body).read_to_end(&mut data).map_err(|e| NnueError::Decompress(e.to_string()))?;
    let file_len = data
        .len()
        .checked_sub(FACTOR_ROWS * ROW_BYTES)
        .ok_or_else(|| NnueError::Decompress("a packed network without its factor rows".into()))?;
    let f = read_rows(&data[file_len..]);
    data.truncate(file_len);
    if let Some(range) = weights_range(&data) {
        let mut w = read_rows(&data[range.clone()]);
        apply_factors(&mut w, &f, true);
        write_rows(&w, &mut data[range]);
    }
    Ok(data)
}

/// The built-in network as a standard file.
pub fn built_in_file() -> Result<Vec<u8>, NnueError> {
    unpack(BUILT_IN)
}

/// The built-in network, ready to evaluate.
pub fn built_in() -> Result<Network, NnueError> {
    Network::from_bytes(&built_in_file()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::NetworkParameters;

    #[test]
    fn unpack_inverts_pack_and_repeated_blocks_shrink() {
        let mut p = NetworkParameters::zeroed();
        let mut x = 12345u32;
        let mut next = || {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (x >> 16) as i16
        };
        // King blocks equal to the first one, except a few rows, with extreme values.
        for f in 0..FE_END {
            let row: [i16; HALF_DIMENSIONS] = std::array::from_fn(|_| next() % 300);
            for k in 0..INPUT_DIMENSIONS / FE_END {
                p.ft_weights[k * FE_END + f] = row;
            }
        }
        p.ft_weights[5 * FE_END + 7][3] = i16::MIN;
        p.ft_weights[4 * FE_END + 7][3] = i16::MAX;
        p.ft_weights[80 * FE_END + 1547] = [-32000; HALF_DIMENSIONS];
        p.l1_weights[3][4] = -128;
        let file = p.to_bytes();
        let packed = pack(&file).unwrap();
        assert!(packed.len() < file.len() / 40, "{} bytes packed", packed.len());
        assert!(unpack(&packed).unwrap() == file);
    }

    #[test]
    fn a_file_of_factor_sums_packs_to_its_factors() {
        let mut p = NetworkParameters::zeroed();
        let mut x = 987u32;
        let mut next = || {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            ((x >> 16) % 200) as i16 - 100
        };
        let f: Vec<Row> = (0..FACTOR_ROWS).map(|_| std::array::from_fn(|_| next())).collect();
        for (i, row) in p.ft_weights.iter_mut().enumerate() {
            let (piece, board) = factors_of(i / FE_END, i % FE_END);
            *row = std::array::from_fn(|ch| f[piece][ch] + board.map_or(0, |r| f[r][ch]));
        }
        // One row that is not a sum.
        p.ft_weights[17 * FE_END + 700][9] = 31000;
        let file = p.to_bytes();
        let packed = pack(&file).unwrap();
        // The factor rows (3.5 MB as integers in +-100) and almost nothing else.
        assert!(packed.len() < FACTOR_ROWS * ROW_BYTES, "{} bytes packed", packed.len());
        assert!(unpack(&packed).unwrap() == file);
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(pack(b"not a network").is_err());
        assert!(unpack(b"not packed").is_err());
        let mut truncated = MAGIC.to_vec();
        truncated.extend_from_slice(&[0x1f, 0x8b, 8, 0]);
        assert!(unpack(&truncated).is_err());
        // A packed stream too short for its factor rows, and one whose file is short.
        let stream = |content: &[u8]| {
            let mut out = MAGIC.to_vec();
            let mut gz = flate2::write::GzEncoder::new(&mut out, flate2::Compression::fast());
            gz.write_all(content).unwrap();
            gz.finish().unwrap();
            out
        };
        assert!(unpack(&stream(&[0x16, 0x2f, 0xf3, 0x7a, 1, 2, 3])).is_err());
        let mut short = vec![0x16, 0x2f, 0xf3, 0x7a, 1, 2, 3];
        short.resize(short.len() + FACTOR_ROWS * ROW_BYTES, 0);
        assert!(Network::from_bytes(&unpack(&stream(&short)).unwrap()).is_err());
        // A network of the form before factor rows were stored.
        assert!(unpack(b"hayate packed nn.bin 1\n").is_err());
    }

    #[test]
    fn the_built_in_network_unpacks_and_packs_back() {
        let file = built_in_file().unwrap();
        let net = Network::from_bytes(&file).unwrap();
        assert!(net.parameters().expect("the standard shape").to_bytes() == file);
        assert!(unpack(&pack(&file).unwrap()).unwrap() == file);
    }
}
