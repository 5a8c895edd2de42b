//! The network built into the binary, and the compact form it is stored in.
//!
//! A network file is 64 MB, nearly all of it the 81 king squares' blocks of HalfKP rows. A
//! network trained with king-independent factor rows has king blocks that differ little, and
//! the rows of king squares its data never saw equal the factor rows exactly. The packed form
//! is therefore the standard file with every king block but the first replaced by its
//! difference from the block before (wrapping `i16` subtraction), gzip-compressed, behind a
//! magic line: about 1/30 of the file for hayate's own networks. Unpacking gives back the
//! standard file byte for byte.

use super::dims::HALF_DIMENSIONS;
use super::features::{FE_END, INPUT_DIMENSIONS};
use super::network::{Network, NnueError};
use std::io::{Read, Write};

/// First bytes of a packed network.
pub const MAGIC: &[u8] = b"hayate packed nn.bin 1\n";

/// hayate's own network, packed (see docs/training.md for the commands that made it).
pub static BUILT_IN: &[u8] = include_bytes!("hayate.nnpack");

/// Bytes of one king square's block of HalfKP rows.
const BLOCK_BYTES: usize = FE_END * HALF_DIMENSIONS * 2;

/// Where the HalfKP weights start in a standard file, if it is long enough to hold them all.
fn weights_range(file: &[u8]) -> Option<std::ops::Range<usize>> {
    let name_len = u32::from_le_bytes(file.get(8..12)?.try_into().ok()?) as usize;
    // Header, architecture string, transformer hash, biases.
    let start = 12usize.checked_add(name_len)? + 4 + 2 * HALF_DIMENSIONS;
    let end = start + INPUT_DIMENSIONS * HALF_DIMENSIONS * 2;
    (end <= file.len()).then_some(start..end)
}

/// `delta`: every king block but the first becomes its difference from the block before (from
/// the last block down, so each subtracts an original); `!delta` undoes it (from the second
/// block up, so each adds a restored one).
fn chain_blocks(weights: &mut [u8], delta: bool) {
    let blocks = weights.len() / BLOCK_BYTES;
    let mut step = |b: usize| {
        let (before, this) = weights[(b - 1) * BLOCK_BYTES..(b + 1) * BLOCK_BYTES].split_at_mut(BLOCK_BYTES);
        for (w, p) in this.chunks_exact_mut(2).zip(before.chunks_exact(2)) {
            let (x, prev) = (i16::from_le_bytes([w[0], w[1]]), i16::from_le_bytes([p[0], p[1]]));
            let y = if delta { x.wrapping_sub(prev) } else { x.wrapping_add(prev) };
            w.copy_from_slice(&y.to_le_bytes());
        }
    };
    if delta { (1..blocks).rev().for_each(&mut step) } else { (1..blocks).for_each(&mut step) }
}

/// The packed form of a standard network file (which must parse).
pub fn pack(file: &[u8]) -> Result<Vec<u8>, NnueError> {
    Network::from_bytes(file)?;
    let mut data = file.to_vec();
    let range = weights_range(&data).expect("a parsed file holds all its weights");
    chain_blocks(&mut data[range], true);
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
    if let Some(range) = weights_range(&data) {
        chain_blocks(&mut data[range], false);
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
    fn bad_input_is_an_error() {
        assert!(pack(b"not a network").is_err());
        assert!(unpack(b"not packed").is_err());
        let mut truncated = MAGIC.to_vec();
        truncated.extend_from_slice(&[0x1f, 0x8b, 8, 0]);
        assert!(unpack(&truncated).is_err());
        // A packed stream whose content is short unpacks to bytes the reader refuses.
        let mut short = MAGIC.to_vec();
        let mut gz = flate2::write::GzEncoder::new(&mut short, flate2::Compression::fast());
        gz.write_all(&[0x16, 0x2f, 0xf3, 0x7a, 1, 2, 3]).unwrap();
        gz.finish().unwrap();
        assert!(Network::from_bytes(&unpack(&short).unwrap()).is_err());
    }

    #[test]
    fn the_built_in_network_unpacks_and_packs_back() {
        let file = built_in_file().unwrap();
        let net = Network::from_bytes(&file).unwrap();
        assert!(net.parameters().expect("the standard shape").to_bytes() == file);
        assert!(unpack(&pack(&file).unwrap()).unwrap() == file);
    }
}
