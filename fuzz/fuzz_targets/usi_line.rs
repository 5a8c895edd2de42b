//! USI input: raw bytes through the line reader, every line through the command parser, and
//! what parses through the same steps as the protocol loop (`position` built move by move,
//! `setoption` values parsed). Nothing may panic; a built position must be consistent.
#![no_main]

use hayate::usi::command::{self, Command};
use hayate::usi::input::{InputLine, LineReader};
use hayate::usi::options::parse_option;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // A small limit so that the skipping of long lines is reached too.
    let mut reader = LineReader::with_limit(std::io::BufReader::with_capacity(16, data), 256);
    while let Ok(Some(line)) = reader.next_line() {
        let text = match line {
            InputLine::Ok(s) | InputLine::Lossy(s, _) => s,
            InputLine::Skipped { .. } => continue,
        };
        match command::parse(&text) {
            Ok(Command::Position { base, moves }) => {
                if let Ok(p) = command::build_position(&base, &moves) {
                    assert!(p.is_consistent());
                }
            }
            Ok(Command::SetOption { name, value }) => {
                let _ = parse_option(&name, value.as_deref());
            }
            Ok(_) => {}
            Err(e) => assert!(!e.to_string().contains('\n')),
        }
    }
});
