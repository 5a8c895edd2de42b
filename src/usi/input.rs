//! Reading protocol lines from a byte stream that may hold anything: bytes that are not UTF-8,
//! NULs, lines without end. Every line comes back as an `InputLine`; nothing here panics or
//! buffers more than `MAX_LINE_BYTES` of one line.

use std::fmt;
use std::io::{self, BufRead};

/// Longest line accepted (bytes). The longest legitimate line is a `position` with the whole
/// game: even `MaxMovesToDraw` at its maximum (100000 plies, under 6 bytes each) stays below
/// this. A longer line is skipped whole without being kept in memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// How many bytes of a skipped line are kept to tell which command it was.
const HEAD_BYTES: usize = 64;

/// What was wrong with an input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputError {
    /// Line `line` (1-based) had bytes that are not UTF-8.
    NotUtf8 { line: u64 },
    /// Line `line` had `bytes` bytes, more than `MAX_LINE_BYTES`.
    TooLong { line: u64, bytes: u64 },
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            InputError::NotUtf8 { line } => write!(f, "input line {line} is not valid UTF-8"),
            InputError::TooLong { line, bytes } => {
                write!(f, "input line {line} has {bytes} bytes (limit {MAX_LINE_BYTES}); skipped")
            }
        }
    }
}

impl std::error::Error for InputError {}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputLine {
    Ok(String),
    /// Not UTF-8: the text with every bad sequence replaced by U+FFFD. It is still parsed, so
    /// a damaged `position` fails like any bad position instead of being silently lost.
    Lossy(String, InputError),
    /// Too long: skipped. `head` is the start of the line (lossily decoded), enough to see
    /// which command was lost.
    Skipped {
        head: String,
        error: InputError,
    },
}

pub struct LineReader<R> {
    inner: R,
    max: usize,
    line: u64,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> LineReader<R> {
        Self::with_limit(inner, MAX_LINE_BYTES)
    }

    pub fn with_limit(inner: R, max: usize) -> LineReader<R> {
        LineReader { inner, max, line: 0 }
    }

    /// The next line without its `\n` (and a `\r` before it), or `None` at end of input. A
    /// last line without `\n` counts as a line. Read errors other than interruptions are
    /// returned (the caller treats them as end of input).
    pub fn next_line(&mut self) -> io::Result<Option<InputLine>> {
        let mut buf: Vec<u8> = Vec::new();
        let mut head: Vec<u8> = Vec::new();
        let mut total: u64 = 0;
        let mut overflow = false;
        let mut seen_any = false;
        loop {
            let avail = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                if !seen_any {
                    return Ok(None);
                }
                break;
            }
            seen_any = true;
            let newline = avail.iter().position(|&b| b == b'\n');
            let chunk = &avail[..newline.unwrap_or(avail.len())];
            total += chunk.len() as u64;
            if !overflow {
                if buf.len() + chunk.len() > self.max {
                    overflow = true;
                    head = buf.iter().chain(chunk.iter()).take(HEAD_BYTES).copied().collect();
                    buf = Vec::new(); // give the memory back at once
                } else {
                    buf.extend_from_slice(chunk);
                }
            }
            let used = chunk.len() + usize::from(newline.is_some());
            self.inner.consume(used);
            if newline.is_some() {
                break;
            }
        }
        self.line += 1;
        let line = self.line;
        if overflow {
            let head = String::from_utf8_lossy(&head).into_owned();
            return Ok(Some(InputLine::Skipped { head, error: InputError::TooLong { line, bytes: total } }));
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        Ok(Some(match String::from_utf8(buf) {
            Ok(s) => InputLine::Ok(s),
            Err(e) => {
                InputLine::Lossy(String::from_utf8_lossy(e.as_bytes()).into_owned(), InputError::NotUtf8 { line })
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(bytes: &[u8], max: usize) -> Vec<InputLine> {
        // A tiny buffer makes lines cross many fill_buf calls.
        let mut r = LineReader::with_limit(io::BufReader::with_capacity(3, bytes), max);
        let mut v = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            v.push(l);
        }
        v
    }

    #[test]
    fn splits_lines_of_any_content() {
        let v = all(b"usi\r\n\nis\xffready\nlast", 100);
        assert_eq!(v.len(), 4);
        assert_eq!(v[0], InputLine::Ok("usi".into()));
        assert_eq!(v[1], InputLine::Ok("".into()));
        assert_eq!(v[2], InputLine::Lossy("is\u{fffd}ready".into(), InputError::NotUtf8 { line: 3 }));
        assert_eq!(v[3], InputLine::Ok("last".into()));
        assert!(all(b"", 100).is_empty());
    }

    #[test]
    fn skips_long_lines_and_goes_on() {
        let mut input = b"position startpos moves ".to_vec();
        input.extend(std::iter::repeat_n(b'x', 1000));
        input.extend(b"\nisready\n");
        let v = all(&input, 100);
        assert_eq!(v.len(), 2);
        match &v[0] {
            InputLine::Skipped { head, error: InputError::TooLong { line: 1, bytes: 1024 } } => {
                assert!(head.starts_with("position startpos"), "{head}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(v[1], InputLine::Ok("isready".into()));
    }
}
