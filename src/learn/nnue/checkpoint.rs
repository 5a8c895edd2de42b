//! Checkpoints: the float model, Adam's state and the epoch count, to resume a training.
//!
//! Layout, little-endian: the magic `HYNNCKPT`, `u32` version, `u32` epochs done, `u64` Adam
//! steps, `u32` best epoch (0: none yet) and `f64` its validation loss, `u32` the feature set
//! (version 2; 0 HalfKP, 1 HalfKP_vm, 2 K+P; version 1 files are HalfKP), then nine tensors
//! (HalfKP rows, factor rows, the moments of both, dense parameters and their moments), each a `u64`
//! count of `f32` values followed by them, and last the CRC-32 of everything before it.
//! Reading checks every count against the architecture, the checksum and the end of the file:
//! a damaged or foreign file is an error, never a panic or a half-read model.

use super::model::{DENSE_LEN, HALF, Model, Row, TRAINED_SETS};
use super::optim::Adam;
use std::fmt;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"HYNNCKPT";
const VERSION: u32 = 2;

/// What a checkpoint holds.
#[derive(Clone)]
pub struct State {
    pub model: Model,
    pub adam: Adam,
    pub epochs_done: usize,
    /// The epoch with the best validation loss so far, and that loss.
    pub best: Option<(usize, f64)>,
}

/// Why a checkpoint could not be written or read.
#[derive(Debug)]
pub enum CheckpointError {
    Io {
        path: PathBuf,
        err: std::io::Error,
    },
    /// The file does not start with the magic.
    NotACheckpoint,
    Version {
        found: u32,
    },
    /// The file ends early.
    Truncated,
    /// A tensor's count does not fit the architecture.
    WrongLength {
        tensor: &'static str,
        found: u64,
        expected: u64,
    },
    /// The bytes are not those written (CRC-32 mismatch).
    Checksum,
    /// Bytes follow the checksum.
    TrailingBytes,
    /// A header field out of range.
    BadHeader(&'static str),
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            CheckpointError::Io { path, err } => write!(f, "checkpoint {}: {err}", path.display()),
            CheckpointError::NotACheckpoint => write!(f, "not a hayate training checkpoint (bad magic)"),
            CheckpointError::Version { found } => {
                write!(f, "checkpoint version {found}, this build reads version {VERSION}")
            }
            CheckpointError::Truncated => write!(f, "checkpoint truncated"),
            CheckpointError::WrongLength { tensor, found, expected } => {
                write!(f, "checkpoint tensor {tensor} has {found} values, expected {expected}")
            }
            CheckpointError::Checksum => write!(f, "checkpoint damaged (checksum mismatch)"),
            CheckpointError::TrailingBytes => write!(f, "checkpoint has extra bytes after its checksum"),
            CheckpointError::BadHeader(what) => write!(f, "checkpoint header: {what}"),
        }
    }
}

impl std::error::Error for CheckpointError {}

/// A writer that keeps the CRC-32 of what passed through it.
struct CrcWriter<W: Write> {
    inner: W,
    crc: flate2::Crc,
}

impl<W: Write> CrcWriter<W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.crc.update(bytes);
        self.inner.write_all(bytes)
    }

    /// Writes a tensor given as consecutive parts holding `len` values in all.
    fn tensor<'a>(&mut self, len: usize, parts: impl Iterator<Item = &'a [f32]>) -> std::io::Result<()> {
        self.put(&(len as u64).to_le_bytes())?;
        let mut buf = Vec::with_capacity(4 * HALF);
        for part in parts {
            for chunk in part.chunks(HALF) {
                buf.clear();
                chunk.iter().for_each(|v| buf.extend_from_slice(&v.to_le_bytes()));
                self.put(&buf)?;
            }
        }
        Ok(())
    }
}

/// A reader that keeps the CRC-32 of what it read; an early end is `Truncated`.
struct CrcReader<R: Read> {
    inner: R,
    crc: flate2::Crc,
    path: PathBuf,
}

impl<R: Read> CrcReader<R> {
    fn raw(&mut self, buf: &mut [u8]) -> Result<(), CheckpointError> {
        self.inner.read_exact(buf).map_err(|err| match err.kind() {
            std::io::ErrorKind::UnexpectedEof => CheckpointError::Truncated,
            _ => CheckpointError::Io { path: self.path.clone(), err },
        })
    }

    fn get<const N: usize>(&mut self) -> Result<[u8; N], CheckpointError> {
        let mut b = [0u8; N];
        self.raw(&mut b)?;
        self.crc.update(&b);
        Ok(b)
    }

    fn u32(&mut self) -> Result<u32, CheckpointError> {
        self.get::<4>().map(u32::from_le_bytes)
    }

    fn u64(&mut self) -> Result<u64, CheckpointError> {
        self.get::<8>().map(u64::from_le_bytes)
    }

    /// Reads a tensor of exactly `len` values into consecutive parts of that size in all.
    fn tensor<'a>(
        &mut self,
        name: &'static str,
        len: usize,
        parts: impl Iterator<Item = &'a mut [f32]>,
    ) -> Result<(), CheckpointError> {
        let found = self.u64()?;
        if found != len as u64 {
            return Err(CheckpointError::WrongLength { tensor: name, found, expected: len as u64 });
        }
        let mut buf = vec![0u8; 4 * HALF];
        for part in parts {
            for chunk in part.chunks_mut(HALF) {
                let bytes = &mut buf[..4 * chunk.len()];
                self.raw(bytes)?;
                self.crc.update(bytes);
                for (v, b) in chunk.iter_mut().zip(bytes.as_chunks::<4>().0) {
                    *v = f32::from_le_bytes(*b);
                }
            }
        }
        Ok(())
    }
}

fn rows(t: &[Row]) -> (usize, impl Iterator<Item = &[f32]>) {
    (t.len() * HALF, t.iter().map(|r| &r.0[..]))
}

fn rows_mut(t: &mut [Row]) -> (usize, impl Iterator<Item = &mut [f32]>) {
    (t.len() * HALF, t.iter_mut().map(|r| &mut r.0[..]))
}

/// Writes the state (through a temporary file renamed into place).
pub fn save(state: &State, path: &Path) -> Result<(), CheckpointError> {
    let io = |err| CheckpointError::Io { path: path.to_path_buf(), err };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let file = std::fs::File::create(&tmp).map_err(io)?;
    let mut w = CrcWriter { inner: BufWriter::with_capacity(1 << 20, file), crc: flate2::Crc::new() };
    let (best_epoch, best_loss) = state.best.map_or((0, f64::NAN), |(e, l)| (e as u32, l));
    let result = (|| {
        w.put(MAGIC)?;
        w.put(&VERSION.to_le_bytes())?;
        w.put(&(state.epochs_done as u32).to_le_bytes())?;
        w.put(&state.adam.step.to_le_bytes())?;
        w.put(&best_epoch.to_le_bytes())?;
        w.put(&best_loss.to_le_bytes())?;
        let set = TRAINED_SETS.iter().position(|&s| s == state.model.features).unwrap_or(0) as u32;
        w.put(&set.to_le_bytes())?;
        let (m, a) = (&state.model, &state.adam);
        for t in [&m.ft, &m.factor, &a.ft_m, &a.ft_v, &a.factor_m, &a.factor_v] {
            let (len, parts) = rows(t);
            w.tensor(len, parts)?;
        }
        for t in [&m.dense, &a.dense_m, &a.dense_v] {
            w.tensor(t.len(), std::iter::once(&t[..]))?;
        }
        let crc = w.crc.sum();
        w.inner.write_all(&crc.to_le_bytes())?;
        w.inner.flush()
    })();
    result.map_err(io)?;
    drop(w);
    std::fs::rename(&tmp, path).map_err(io)
}

/// Reads a checkpoint written by `save`.
pub fn load(path: &Path) -> Result<State, CheckpointError> {
    let file = std::fs::File::open(path).map_err(|err| CheckpointError::Io { path: path.to_path_buf(), err })?;
    let mut r =
        CrcReader { inner: BufReader::with_capacity(1 << 20, file), crc: flate2::Crc::new(), path: path.into() };
    if &r.get::<8>()? != MAGIC {
        return Err(CheckpointError::NotACheckpoint);
    }
    let version = r.u32()?;
    if version != VERSION && version != 1 {
        return Err(CheckpointError::Version { found: version });
    }
    let epochs_done = r.u32()? as usize;
    let step = r.u64()?;
    let best_epoch = r.u32()? as usize;
    let best_loss = f64::from_le_bytes(r.get::<8>()?);
    if best_epoch > epochs_done {
        return Err(CheckpointError::BadHeader("best epoch after the last one"));
    }
    let best = if best_epoch == 0 { None } else { Some((best_epoch, best_loss)) };
    let features = if version == 1 {
        TRAINED_SETS[0]
    } else {
        let code = r.u32()? as usize;
        *TRAINED_SETS.get(code).ok_or(CheckpointError::BadHeader("unknown feature set"))?
    };
    let mut model = Model {
        features,
        ft: vec![Row::ZERO; features.rows()],
        factor: vec![Row::ZERO; super::model::FACTOR_ROWS],
        dense: vec![0.0; DENSE_LEN],
    };
    let mut adam = Adam::new(model.ft.len());
    adam.step = step;
    for (name, t) in [
        ("ft", &mut model.ft),
        ("factor", &mut model.factor),
        ("ft_m", &mut adam.ft_m),
        ("ft_v", &mut adam.ft_v),
        ("factor_m", &mut adam.factor_m),
        ("factor_v", &mut adam.factor_v),
    ] {
        let (len, parts) = rows_mut(t);
        r.tensor(name, len, parts)?;
    }
    for (name, t) in [("dense", &mut model.dense), ("dense_m", &mut adam.dense_m), ("dense_v", &mut adam.dense_v)] {
        r.tensor(name, t.len(), std::iter::once(&mut t[..]))?;
    }
    let expected = r.crc.sum();
    let mut stored = [0u8; 4];
    r.raw(&mut stored)?;
    if u32::from_le_bytes(stored) != expected {
        return Err(CheckpointError::Checksum);
    }
    let mut extra = [0u8; 1];
    match r.inner.read(&mut extra) {
        Ok(0) => {}
        Ok(_) => return Err(CheckpointError::TrailingBytes),
        Err(err) => return Err(CheckpointError::Io { path: path.into(), err }),
    }
    Ok(State { model, adam, epochs_done, best })
}
