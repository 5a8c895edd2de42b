//! Reading and validating a network file in YaneuraOu's format, of any shape `arch` reads.
//!
//! Layout, all little-endian:
//! - header: `u32` version, `u32` hash of the whole architecture, `u32` length of the
//!   architecture string, the string itself (which gives the shape: `Architecture::parse`);
//! - feature transformer: `u32` part hash, `H` `i16` biases, `rows x H` `i16` weights (one row
//!   of `H` per feature);
//! - network: `u32` part hash, then per affine layer its `i32` biases followed by its `i8`
//!   weights row by row (one row of inputs per output, input counts padded to a multiple of 32);
//! - nothing after the last weight.
//!
//! SFNN files (`Model::Sfnn`) differ after the header: the transformer's biases and weights are
//! two blocks of signed LEB128 (`LEB128_MAGIC`, a `u32` byte count, the values), stored halved
//! (the reader doubles them, wrapping to 16 bits as the reference does); then nine layer
//! stacks, each its own part hash and three affine layers.
//!
//! The shape comes from the string, checked against the header's hash (YaneuraOu checks only
//! the hash); a string that does not parse is matched by hash and size against the known
//! shapes. Everything is parsed into a new value, which is returned only once complete. Writing
//! (`NetworkParameters::to_bytes`) is for the standard shape, the one hayate trains.

use super::arch::{self, Architecture, FeatureSet, LEB128_MAGIC, Model, padded_inputs};
use super::dims::{AlignedVec, HALF_DIMENSIONS, HIDDEN, TRANSFORMED_DIMENSIONS};
#[cfg(test)]
use super::features::INPUT_DIMENSIONS;
use super::layers::{DenseLayer, OutputLayer};
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Version word of the format.
pub const VERSION: u32 = 0x7AF3_2F16;

/// Part hash of the standard feature transformer.
pub const FEATURE_TRANSFORMER_HASH: u32 = 0x5D69_D7B8;
/// Part hash of the standard network's layers after the transformer.
pub const NETWORK_HASH: u32 = 0x6333_7156;
/// Hash in the standard file's header: both part hashes combined.
pub const ARCHITECTURE_HASH: u32 = FEATURE_TRANSFORMER_HASH ^ NETWORK_HASH;

/// The architecture string YaneuraOu writes for the standard network (189 bytes).
pub const ARCHITECTURE: &str = "Features=HalfKP(Friend)[125388->256x2],Network=AffineTransform[1<-32](ClippedReLU[32](\
     AffineTransform[32<-32](ClippedReLU[32](AffineTransformSparseInput[32<-512](InputSlice[512(0:512)])))))";

/// Bytes of the standard network's parameters after the header string.
#[cfg(test)]
const PARAMETER_BYTES: usize = 4
    + 2 * HALF_DIMENSIONS
    + 2 * HALF_DIMENSIONS * INPUT_DIMENSIONS
    + 4
    + (4 * HIDDEN + HIDDEN * TRANSFORMED_DIMENSIONS)
    + (4 * HIDDEN + HIDDEN * HIDDEN)
    + (4 + HIDDEN);

/// The shapes a file is matched against when its string does not parse (by hash and size);
/// every one checked against a YaneuraOu build of it.
fn known_shapes() -> Vec<Architecture> {
    let a = Architecture::classic;
    vec![
        Architecture::standard(),
        a(FeatureSet::HalfKpE9, 256, &[32, 32]),
        a(FeatureSet::Kp, 256, &[32, 32]),
        a(FeatureSet::HalfKpVm, 256, &[32, 32]),
        a(FeatureSet::HalfKp, 512, &[16, 32]),
        a(FeatureSet::HalfKp, 512, &[8, 64]),
        a(FeatureSet::HalfKp, 768, &[16, 64]),
        a(FeatureSet::HalfKp, 1024, &[8, 32]),
        a(FeatureSet::HalfKp, 1024, &[8, 64]),
        Architecture::sfnn(),
    ]
}

/// Why a network could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NnueError {
    /// No file at that path.
    FileNotFound(PathBuf),
    /// The file exists but could not be read.
    Unreadable { path: PathBuf, reason: String },
    /// The file (or decompressed stream) holds no byte at all.
    Empty,
    /// A gzip stream that does not decompress.
    Decompress(String),
    /// The version word is not the standard format's.
    WrongVersion { found: u32 },
    /// The architecture string names a shape hayate does not read (and the hash and size are
    /// not those of one it does).
    UnsupportedArchitecture { architecture: String, reason: String },
    /// The header's hash is not the one of the shape its architecture string names.
    WrongArchitectureHash { found: u32, expected: u32, architecture: String },
    /// The feature transformer's part hash does not match.
    WrongFeatureTransformerHash { found: u32, expected: u32 },
    /// The part hash of the layers after the transformer does not match.
    WrongNetworkHash { found: u32, expected: u32 },
    /// The data ends before the last parameter.
    Truncated { expected: usize, actual: usize },
    /// Bytes follow the last parameter.
    Oversized { expected: usize, actual: usize },
    /// A compressed block of an SFNN transformer that does not hold what it must.
    BadCompressedBlock { block: &'static str, reason: String },
}

impl fmt::Display for NnueError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            NnueError::FileNotFound(p) => write!(f, "network file {} not found", p.display()),
            NnueError::Unreadable { path, reason } => {
                write!(f, "cannot read network file {}: {reason}", path.display())
            }
            NnueError::Empty => write!(f, "network file is empty"),
            NnueError::Decompress(e) => write!(f, "network file does not decompress: {e}"),
            NnueError::WrongVersion { found } => {
                write!(f, "network file version {found:#010x}, expected {VERSION:#010x}")
            }
            NnueError::UnsupportedArchitecture { architecture, reason } => write!(
                f,
                "network architecture not read: {reason} (found \"{}\"; hayate reads {})",
                arch::shorten(architecture),
                arch::shapes_read()
            ),
            NnueError::WrongArchitectureHash { found, expected, architecture } => write!(
                f,
                "network architecture hash {found:#010x}, expected {expected:#010x} for the architecture the file names ({})",
                arch::shorten(architecture)
            ),
            NnueError::WrongFeatureTransformerHash { found, expected } => {
                write!(f, "feature transformer hash {found:#010x}, expected {expected:#010x}")
            }
            NnueError::WrongNetworkHash { found, expected } => {
                write!(f, "network layers hash {found:#010x}, expected {expected:#010x}")
            }
            NnueError::Truncated { expected, actual } => {
                write!(f, "network file truncated: {actual} bytes, expected {expected}")
            }
            NnueError::Oversized { expected, actual } => {
                write!(f, "network file has extra data: {actual} bytes, expected {expected}")
            }
            NnueError::BadCompressedBlock { block, reason } => {
                write!(f, "network file's compressed {block}: {reason}")
            }
        }
    }
}

impl std::error::Error for NnueError {}

/// A loaded network. Immutable; share it between threads by reference.
pub struct Network {
    pub(crate) arch: Architecture,
    /// `arch.half` biases.
    pub(crate) ft_biases: AlignedVec<i16>,
    /// `rows x arch.half` weights, a row per feature.
    pub(crate) ft_weights: AlignedVec<i16>,
    /// The layers after the transformer: one stack (classic), or one per pair of king rank
    /// groups (SFNN).
    pub(crate) stacks: Vec<LayerStack>,
    /// Distinguishes loaded networks so an accumulator stack notices a new one.
    pub(crate) id: u64,
    architecture: String,
    file_size: usize,
    checksum: u64,
}

/// The affine layers of one stack: the hidden ones, then the output.
pub(crate) struct LayerStack {
    pub(crate) hidden: Vec<DenseLayer>,
    pub(crate) output: OutputLayer,
}

/// Bounds-checked little-endian reader over the file bytes.
struct Reader<'a> {
    data: &'a [u8],
    at: usize,
    expected_total: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], NnueError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(end) = end else {
            let expected = self.expected_total.max(self.at.saturating_add(n));
            return Err(NnueError::Truncated { expected, actual: self.data.len() });
        };
        let s = &self.data[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, NnueError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn i32s(&mut self, out: &mut [i32]) -> Result<(), NnueError> {
        let b = self.take(4 * out.len())?;
        for (o, c) in out.iter_mut().zip(b.chunks_exact(4)) {
            *o = i32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Ok(())
    }

    fn i16s(&mut self, out: &mut [i16]) -> Result<(), NnueError> {
        let b = self.take(2 * out.len())?;
        for (o, c) in out.iter_mut().zip(b.chunks_exact(2)) {
            *o = i16::from_le_bytes([c[0], c[1]]);
        }
        Ok(())
    }

    fn i8s(&mut self, n: usize) -> Result<&'a [u8], NnueError> {
        self.take(n)
    }

    /// A stack's affine layers as `arch` gives them.
    fn layer_stack(&mut self, arch: &Architecture) -> Result<LayerStack, NnueError> {
        let layers = arch.layers();
        let mut hidden = Vec::new();
        for &(outputs, inputs) in &layers[..layers.len() - 1] {
            let mut biases = vec![0i32; outputs];
            self.i32s(&mut biases)?;
            let weights = self.i8s(outputs * padded_inputs(inputs))?;
            hidden.push(DenseLayer::from_file_order(outputs, padded_inputs(inputs), &biases, weights));
        }
        let mut bias = [0i32; 1];
        self.i32s(&mut bias)?;
        let last_inputs = layers[layers.len() - 1].1;
        let output = OutputLayer::from_file_order(bias[0], self.i8s(padded_inputs(last_inputs))?);
        Ok(LayerStack { hidden, output })
    }

    /// A block of signed LEB128 `i16` values filling `out`, each doubled (wrapping) as the
    /// reference stores them: the magic, the payload's byte count, then exactly that payload.
    /// Checks the count against the file before `out` is touched, so that a damaged count
    /// costs nothing.
    fn leb128_doubled(&mut self, block: &'static str, out: &mut [i16]) -> Result<(), NnueError> {
        let bad = |reason: String| NnueError::BadCompressedBlock { block, reason };
        if self.take(LEB128_MAGIC.len())? != LEB128_MAGIC {
            return Err(bad("no COMPRESSED_LEB128 mark".into()));
        }
        let bytes = self.u32()? as usize;
        let left = self.data.len() - self.at;
        if bytes > left {
            return Err(NnueError::Truncated { expected: self.at.saturating_add(bytes), actual: self.data.len() });
        }
        if bytes < out.len() {
            return Err(bad(format!("{bytes} bytes for {} values", out.len())));
        }
        let payload = self.take(bytes)?;
        let mut at = 0;
        for (n, o) in out.iter_mut().enumerate() {
            let mut value: i32 = 0;
            let mut shift = 0;
            loop {
                let Some(&byte) = payload.get(at) else {
                    return Err(bad(format!("the values run past its {bytes} bytes at value {n}")));
                };
                at += 1;
                value |= ((byte & 0x7F) as i32) << shift;
                shift += 7;
                if byte & 0x80 == 0 {
                    if shift < 16 && byte & 0x40 != 0 {
                        value |= -1 << shift;
                    }
                    break;
                }
                if shift >= 21 {
                    return Err(bad(format!("value {n} longer than three bytes")));
                }
            }
            // The reference keeps 16 bits of the value, then doubles it in 16 bits.
            *o = (value as i16).wrapping_mul(2);
        }
        if at != bytes {
            return Err(bad(format!("{} bytes after its {} values", bytes - at, out.len())));
        }
        Ok(())
    }
}

/// A network's parameters as read: transformer biases, weights, the layer stacks.
type Parameters = (AlignedVec<i16>, AlignedVec<i16>, Vec<LayerStack>);

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Fast 64-bit digest of the file for `info string` (not cryptographic).
fn digest(data: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = data.len() as u64 ^ K;
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        let v = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        h = (h ^ v).wrapping_mul(K).rotate_left(29);
    }
    for &b in words.remainder() {
        h = (h ^ b as u64).wrapping_mul(K).rotate_left(29);
    }
    h ^ (h >> 31)
}

impl Network {
    /// Loads a network file; a gzip-compressed file (`nn.bin.gz`) is decompressed first.
    pub fn load(path: impl AsRef<Path>) -> Result<Network, NnueError> {
        let path = path.as_ref();
        let data = std::fs::read(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => NnueError::FileNotFound(path.to_path_buf()),
            _ => NnueError::Unreadable { path: path.to_path_buf(), reason: e.to_string() },
        })?;
        if data.starts_with(&[0x1f, 0x8b]) { Network::from_gzip_bytes(&data) } else { Network::from_bytes(&data) }
    }

    /// Decompresses a gzip stream holding a network file and parses it.
    pub fn from_gzip_bytes(compressed: &[u8]) -> Result<Network, NnueError> {
        if compressed.is_empty() {
            return Err(NnueError::Empty);
        }
        let mut data = Vec::new();
        flate2::read::GzDecoder::new(compressed)
            .read_to_end(&mut data)
            .map_err(|e| NnueError::Decompress(e.to_string()))?;
        Network::from_bytes(&data)
    }

    /// Parses the bytes of a network file.
    pub fn from_bytes(data: &[u8]) -> Result<Network, NnueError> {
        if data.is_empty() {
            return Err(NnueError::Empty);
        }
        let mut r = Reader { data, at: 0, expected_total: 12 };
        let version = r.u32()?;
        if version != VERSION {
            return Err(NnueError::WrongVersion { found: version });
        }
        let hash = r.u32()?;
        let name_len = r.u32()? as usize;
        r.expected_total = 12usize.saturating_add(name_len);
        let architecture = String::from_utf8_lossy(r.take(name_len)?).into_owned();
        let body = data.len() - r.at;
        let arch = match Architecture::parse(&architecture) {
            Ok(a) if a.file_hash() == hash => a,
            Ok(a) => {
                return Err(NnueError::WrongArchitectureHash { found: hash, expected: a.file_hash(), architecture });
            }
            // A string hayate does not parse (another trainer's wording): a known shape of that
            // hash and size, else the parser's reason.
            Err(e) => match known_shapes().into_iter().find(|a| {
                // An SFNN file's size depends on its values (at least `parameter_bytes`).
                let sized = a.parameter_bytes() == body || (a.model == Model::Sfnn && a.parameter_bytes() <= body);
                a.file_hash() == hash && sized
            }) {
                Some(a) => a,
                None => return Err(NnueError::UnsupportedArchitecture { architecture, reason: e.0 }),
            },
        };
        let (ft_biases, ft_weights, stacks) = match arch.model {
            Model::Classic => Network::classic_parameters(&mut r, &arch)?,
            Model::Sfnn => Network::sfnn_parameters(&mut r, &arch)?,
        };
        debug_assert_eq!(r.at, data.len());

        Ok(Network {
            arch,
            ft_biases,
            ft_weights,
            stacks,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            architecture,
            file_size: data.len(),
            checksum: digest(data),
        })
    }

    /// A classic network's parameters: sizes fixed by the shape, checked before anything is
    /// allocated.
    fn classic_parameters(r: &mut Reader, arch: &Architecture) -> Result<Parameters, NnueError> {
        let expected = r.at + arch.parameter_bytes();
        r.expected_total = expected;
        if r.data.len() < expected {
            return Err(NnueError::Truncated { expected, actual: r.data.len() });
        }
        if r.data.len() > expected {
            return Err(NnueError::Oversized { expected, actual: r.data.len() });
        }
        let ft_hash = r.u32()?;
        if ft_hash != arch.transformer_hash() {
            return Err(NnueError::WrongFeatureTransformerHash { found: ft_hash, expected: arch.transformer_hash() });
        }
        let half = arch.half;
        let mut ft_biases = AlignedVec::zeroed(half);
        r.i16s(ft_biases.as_mut_slice())?;
        let mut ft_weights = AlignedVec::zeroed(arch.features.rows() * half);
        r.i16s(ft_weights.as_mut_slice())?;
        let net_hash = r.u32()?;
        if net_hash != arch.network_hash() {
            return Err(NnueError::WrongNetworkHash { found: net_hash, expected: arch.network_hash() });
        }
        let stack = r.layer_stack(arch)?;
        Ok((ft_biases, ft_weights, vec![stack]))
    }

    /// An SFNN network's parameters: the compressed transformer (its size known only once
    /// decoded; each block's byte count is checked against the file before it is decoded),
    /// then the stacks, and nothing after them.
    fn sfnn_parameters(r: &mut Reader, arch: &Architecture) -> Result<Parameters, NnueError> {
        // At least one byte per value: a shorter file is cut.
        let fewest = r.at + arch.parameter_bytes();
        r.expected_total = fewest;
        if r.data.len() < fewest {
            return Err(NnueError::Truncated { expected: fewest, actual: r.data.len() });
        }
        let ft_hash = r.u32()?;
        if ft_hash != arch.transformer_hash() {
            return Err(NnueError::WrongFeatureTransformerHash { found: ft_hash, expected: arch.transformer_hash() });
        }
        let half = arch.half;
        let mut ft_biases = AlignedVec::zeroed(half);
        r.leb128_doubled("transformer biases", ft_biases.as_mut_slice())?;
        let mut ft_weights = AlignedVec::zeroed(arch.features.rows() * half);
        r.leb128_doubled("transformer weights", ft_weights.as_mut_slice())?;
        let mut stacks = Vec::with_capacity(arch.stacks());
        for _ in 0..arch.stacks() {
            let hash = r.u32()?;
            if hash != arch.network_hash() {
                return Err(NnueError::WrongNetworkHash { found: hash, expected: arch.network_hash() });
            }
            stacks.push(r.layer_stack(arch)?);
        }
        if r.at != r.data.len() {
            return Err(NnueError::Oversized { expected: r.at, actual: r.data.len() });
        }
        Ok((ft_biases, ft_weights, stacks))
    }

    /// The shape read from the file.
    pub fn arch(&self) -> &Architecture {
        &self.arch
    }

    /// The architecture string from the file header.
    pub fn architecture(&self) -> &str {
        &self.architecture
    }

    /// Size of the (uncompressed) file in bytes.
    pub fn file_size(&self) -> usize {
        self.file_size
    }

    /// A 64-bit digest of the file's bytes, to tell networks apart.
    pub fn checksum(&self) -> u64 {
        self.checksum
    }

    /// One line for `info string`: the shape, size, the first 8 hex digits of the digest, and
    /// the architecture string of the file.
    pub fn description(&self) -> String {
        format!(
            "{}, {} bytes, digest {:08x}, {}",
            self.arch.name(),
            self.file_size,
            self.checksum >> 32,
            self.architecture
        )
    }
}

/// The integer parameters of a network in the file's order, to write a file (`to_bytes`) or
/// to read back those of a loaded network (`Network::parameters`).
#[derive(Clone, PartialEq, Eq)]
pub struct NetworkParameters {
    /// The header's architecture string (`ARCHITECTURE` for a new network).
    pub architecture: String,
    /// The feature set (the shape is `features`_256x2-32-32): HalfKP for the standard network.
    pub features: FeatureSet,
    pub ft_biases: [i16; HALF_DIMENSIONS],
    /// One row of 256 outputs per feature (`features.rows()` of them).
    pub ft_weights: Vec<[i16; HALF_DIMENSIONS]>,
    pub l1_biases: [i32; HIDDEN],
    /// `l1_weights[output][input]`, inputs: the side to move's 256 transformer outputs, then
    /// the other side's.
    pub l1_weights: Box<[[i8; TRANSFORMED_DIMENSIONS]; HIDDEN]>,
    pub l2_biases: [i32; HIDDEN],
    /// `l2_weights[output][input]`.
    pub l2_weights: [[i8; HIDDEN]; HIDDEN],
    pub output_bias: i32,
    pub output_weights: [i8; HIDDEN],
}

impl NetworkParameters {
    /// All parameters zero, with the standard architecture string.
    pub fn zeroed() -> NetworkParameters {
        NetworkParameters::zeroed_for(FeatureSet::HalfKp)
    }

    /// All parameters zero of `features`_256x2-32-32, with the architecture string YaneuraOu
    /// writes for that shape.
    pub fn zeroed_for(features: FeatureSet) -> NetworkParameters {
        NetworkParameters {
            architecture: Architecture::classic(features, HALF_DIMENSIONS, &[HIDDEN, HIDDEN]).file_string(),
            features,
            ft_biases: [0; HALF_DIMENSIONS],
            ft_weights: vec![[0i16; HALF_DIMENSIONS]; features.rows()],
            l1_biases: [0; HIDDEN],
            l1_weights: Box::new([[0; TRANSFORMED_DIMENSIONS]; HIDDEN]),
            l2_biases: [0; HIDDEN],
            l2_weights: [[0; HIDDEN]; HIDDEN],
            output_bias: 0,
            output_weights: [0; HIDDEN],
        }
    }

    /// The bytes of the network file (what `Network::from_bytes` reads).
    pub fn to_bytes(&self) -> Vec<u8> {
        let arch = Architecture::classic(self.features, HALF_DIMENSIONS, &[HIDDEN, HIDDEN]);
        let name = self.architecture.as_bytes();
        let mut out = Vec::with_capacity(12 + name.len() + arch.parameter_bytes());
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&arch.file_hash().to_le_bytes());
        out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        out.extend_from_slice(name);
        out.extend_from_slice(&arch.transformer_hash().to_le_bytes());
        self.ft_biases.iter().for_each(|b| out.extend_from_slice(&b.to_le_bytes()));
        for row in self.ft_weights.iter() {
            row.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        }
        out.extend_from_slice(&arch.network_hash().to_le_bytes());
        let mut dense = |biases: &[i32], rows: &mut dyn Iterator<Item = &[i8]>| {
            biases.iter().for_each(|b| out.extend_from_slice(&b.to_le_bytes()));
            rows.for_each(|row| out.extend(row.iter().map(|&w| w as u8)));
        };
        dense(&self.l1_biases, &mut self.l1_weights.iter().map(|r| &r[..]));
        dense(&self.l2_biases, &mut self.l2_weights.iter().map(|r| &r[..]));
        dense(&[self.output_bias], &mut std::iter::once(&self.output_weights[..]));
        out
    }
}

impl Network {
    /// The integer parameters of the loaded network in the file's order, for the shapes
    /// `*_256x2-32-32` (`None` for the others).
    pub fn parameters(&self) -> Option<NetworkParameters> {
        if self.arch != Architecture::classic(self.arch.features, HALF_DIMENSIONS, &[HIDDEN, HIDDEN]) {
            return None;
        }
        let mut p = NetworkParameters::zeroed_for(self.arch.features);
        p.architecture = self.architecture.clone();
        p.ft_biases.copy_from_slice(self.ft_biases.as_slice());
        for (dst, src) in p.ft_weights.iter_mut().zip(self.ft_weights.as_slice().chunks_exact(HALF_DIMENSIONS)) {
            dst.copy_from_slice(src);
        }
        let stack = &self.stacks[0];
        let (b, rows) = stack.hidden[0].to_file_order();
        p.l1_biases.copy_from_slice(&b);
        for (dst, src) in p.l1_weights.iter_mut().zip(&rows) {
            dst.copy_from_slice(src);
        }
        let (b, rows) = stack.hidden[1].to_file_order();
        p.l2_biases.copy_from_slice(&b);
        for (dst, src) in p.l2_weights.iter_mut().zip(&rows) {
            dst.copy_from_slice(src);
        }
        let (bias, weights) = stack.output.to_file_order();
        p.output_bias = bias;
        p.output_weights.copy_from_slice(&weights);
        Some(p)
    }
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Network")
            .field("architecture", &self.architecture)
            .field("description", &self.description())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_match_the_format() {
        let a = Architecture::standard();
        assert_eq!(FEATURE_TRANSFORMER_HASH, a.transformer_hash());
        assert_eq!(NETWORK_HASH, a.network_hash());
        assert_eq!(ARCHITECTURE, a.file_string());
    }

    #[test]
    fn parameter_bytes_match_the_known_file_size() {
        assert_eq!(12 + ARCHITECTURE.len() + PARAMETER_BYTES, 64_217_077);
        assert_eq!(PARAMETER_BYTES, Architecture::standard().parameter_bytes());
    }

    #[test]
    fn written_parameters_read_back() {
        let mut p = NetworkParameters::zeroed();
        p.ft_biases[3] = -7;
        p.ft_weights[INPUT_DIMENSIONS - 1][HALF_DIMENSIONS - 1] = i16::MIN;
        p.l1_weights[31][511] = -128;
        p.l1_biases[0] = i32::MAX;
        p.l2_weights[5][6] = 127;
        p.output_bias = -1;
        p.output_weights[31] = 9;
        let bytes = p.to_bytes();
        assert_eq!(bytes.len(), 64_217_077);
        let net = Network::from_bytes(&bytes).unwrap();
        assert_eq!(net.architecture(), ARCHITECTURE);
        assert!(net.parameters() == Some(p));
    }

    #[test]
    fn other_feature_sets_are_written_as_yaneuraou_names_them() {
        for features in [FeatureSet::Kp, FeatureSet::HalfKpVm] {
            let mut p = NetworkParameters::zeroed_for(features);
            let last = features.rows() - 1;
            p.ft_weights[last][HALF_DIMENSIONS - 1] = -5;
            p.output_bias = 3;
            let bytes = p.to_bytes();
            let arch = Architecture::classic(features, 256, &[32, 32]);
            assert_eq!(bytes.len(), 12 + arch.file_string().len() + arch.parameter_bytes());
            let net = Network::from_bytes(&bytes).unwrap();
            assert_eq!(net.arch().name(), format!("{}_256x2-32-32", features.short_name()));
            assert!(net.parameters() == Some(p));
        }
    }
}
