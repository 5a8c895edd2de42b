//! SFEN parsing: any text; an accepted position must be consistent, round-trip through
//! `to_sfen`, flip to a consistent mirror with as many legal moves, and pass `is_legal` for
//! every generated move.
#![no_main]

use hayate::shogi::{MoveList, Position, generate_legal};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(p) = Position::from_sfen(&text) else { return };
    assert!(p.is_consistent());
    let sfen = p.to_sfen();
    let again = Position::from_sfen(&sfen).expect("to_sfen output parses");
    assert_eq!(again.to_sfen(), sfen);
    assert_eq!(again.key(), p.key());
    let f = p.flipped();
    assert!(f.is_consistent());
    assert_eq!(f.flipped().to_sfen(), sfen);
    let (mut a, mut b) = (MoveList::new(), MoveList::new());
    generate_legal(&p, &mut a);
    generate_legal(&f, &mut b);
    assert_eq!(a.len(), b.len());
    for &m in a.iter() {
        assert!(p.is_legal(m));
        let mut q = p.clone();
        q.do_move(m);
        assert!(q.is_consistent());
    }
});
