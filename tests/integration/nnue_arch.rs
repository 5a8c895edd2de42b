//! The other network shapes against YaneuraOu 9.70: for each, the seeded random network of
//! `make_net.py` (written here by `random_net`, byte for byte) and the evaluations that
//! YaneuraOu's edition of that shape printed for 200 positions with it
//! (tests/data/nnue/arch/<shape>_public_ref.jsonl, FV_SCALE 16).
//!
//! Checked per shape: the shape read from the file; every reference evaluation from scratch on
//! every backend; the same after one incremental step (drops, captures, promotions, king
//! moves) from a reconstructed predecessor; incremental updates equal recomputation along
//! random walks with undo and null moves.

use crate::common::load_jsonl;
use crate::nnue::{Rng, Step, backends, predecessors, walk};
use crate::random_net;
use hayate::nnue::{AccumulatorStack, Backend, DEFAULT_FV_SCALE, FeatureSet, Network};
use hayate::shogi::Position;

/// The SFNN shape's name.
const SFNN: &str = "sfnn_halfkahm2_1536_15_32_k3k3";

/// The file of `shape` (`make_net.py --seed 11 --density 0.03125 --arch shape`, or
/// `make_sfnn.py --seed 11 --density 0.03125`).
fn network_file(shape: &str) -> Vec<u8> {
    if shape == SFNN { random_net::write_sfnn(11, 0.03125) } else { random_net::shape(shape).write(11, 0.03125) }
}

/// The network of `shape`.
fn network(shape: &str) -> Network {
    Network::from_bytes(&network_file(shape)).unwrap_or_else(|e| panic!("{shape}: {e}"))
}

fn reference(shape: &str) -> Vec<(Position, i32)> {
    let rows = load_jsonl(&format!("nnue/arch/{shape}_public_ref.jsonl"));
    assert_eq!(rows.len(), 200, "{shape}");
    rows.iter()
        .map(|r| {
            let sfen = r["sfen"].as_str().expect("sfen");
            (Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}")), r["eval"].as_i64().unwrap() as i32)
        })
        .collect()
}

/// Every check of one shape.
fn check_shape(shape: &str, features: FeatureSet, half: usize, hidden: &[usize]) {
    let _cpu = crate::common::shared();
    let net = network(shape);
    let arch = net.arch();
    assert_eq!((arch.features, arch.half, &arch.hidden[..]), (features, half, hidden), "{shape}");
    assert_eq!(arch.name(), shape);
    assert!(net.description().starts_with(shape), "{}", net.description());
    let refs = reference(shape);
    let distinct: std::collections::BTreeSet<i32> = refs.iter().map(|r| r.1).collect();
    assert!(distinct.len() > 150, "{shape}: the reference varies too little to test anything");

    for backend in backends() {
        // From scratch.
        let wrong: Vec<String> = refs
            .iter()
            .filter_map(|(pos, expected)| {
                let got = net.evaluate_with(backend, pos, DEFAULT_FV_SCALE);
                (got != Some(*expected)).then(|| format!("{}: {got:?}, reference {expected}", pos.to_sfen()))
            })
            .collect();
        assert!(wrong.is_empty(), "{shape} ({}): {} of 200 differ:\n{}", backend.name(), wrong.len(), wrong.join("\n"));

        // One incremental step into each reference position.
        let mut stack = AccumulatorStack::with_backend(backend);
        let mut steps = std::collections::BTreeMap::new();
        let mut wrong = Vec::new();
        for (target, expected) in &refs {
            for (mut q, m, step) in predecessors(target) {
                stack.reset(&q);
                assert!(stack.evaluate(&q, &net).is_some());
                stack.push(&q, m);
                q.do_move(m);
                *steps.entry(step).or_insert(0) += 1;
                let got = stack.evaluate(&q, &net);
                if got != Some(*expected) {
                    wrong.push(format!("{} after {m} ({step:?}): {got:?}, reference {expected}", target.to_sfen()));
                }
            }
        }
        assert!(wrong.is_empty(), "{shape} ({}): {} steps differ:\n{}", backend.name(), wrong.len(), wrong.join("\n"));
        for step in [Step::Drop, Step::Capture, Step::Promotion, Step::King, Step::Plain] {
            assert!(steps.get(&step).copied().unwrap_or(0) >= 20, "{shape}: few {step:?} steps: {steps:?}");
        }

        // Random walks: incremental equals recomputation (a shorter one off the main backend).
        let plies = if backend == Backend::detect() { 6_000 } else { 2_000 };
        let c = walk(&net, backend, plies, Rng(shape.len() as u64 * 7919).next());
        assert!(c.king_moves > 50 && c.captures > 100 && c.drops > 100 && c.nulls > 10, "{shape}: {c:?}");
    }
}

#[test]
fn kp_256x2_32_32() {
    check_shape("kp_256x2-32-32", FeatureSet::Kp, 256, &[32, 32]);
}

#[test]
fn halfkp_vm_256x2_32_32() {
    check_shape("halfkp_vm_256x2-32-32", FeatureSet::HalfKpVm, 256, &[32, 32]);
}

#[test]
fn halfkp_512x2_16_32() {
    check_shape("halfkp_512x2-16-32", FeatureSet::HalfKp, 512, &[16, 32]);
}

#[test]
fn halfkp_1024x2_8_32() {
    check_shape("halfkp_1024x2-8-32", FeatureSet::HalfKp, 1024, &[8, 32]);
}

#[test]
fn halfkp_1024x2_8_64() {
    check_shape("halfkp_1024x2-8-64", FeatureSet::HalfKp, 1024, &[8, 64]);
}

/// Shapes of YaneuraOu's architecture generator without an edition of their own (built as
/// `YANEURAOU_ENGINE_NNUE_HALFKP_512X2_8_64` and `..._768X2_16_64`): read with no code of
/// their own.
#[test]
fn halfkp_512x2_8_64() {
    check_shape("halfkp_512x2-8-64", FeatureSet::HalfKp, 512, &[8, 64]);
}

#[test]
fn halfkp_768x2_16_64() {
    check_shape("halfkp_768x2-16-64", FeatureSet::HalfKp, 768, &[16, 64]);
}

#[test]
fn halfkpe9_256x2_32_32() {
    check_shape("halfkpe9_256x2-32-32", FeatureSet::HalfKpE9, 256, &[32, 32]);
}

#[test]
fn sfnn_halfkahm2_1536_15_32_k3k3() {
    check_shape(SFNN, FeatureSet::HalfKaHm2, 1536, &[16, 32]);
}

/// A header of `architecture` with `hash`, followed by `body` bytes of zeros.
fn file_with(architecture: &str, hash: u32, body: usize) -> Vec<u8> {
    let mut v = Vec::new();
    for w in [0x7AF3_2F16, hash, architecture.len() as u32] {
        v.extend_from_slice(&u32::to_le_bytes(w));
    }
    v.extend_from_slice(architecture.as_bytes());
    v.resize(v.len() + body, 0);
    v
}

#[test]
fn bad_files_of_every_shape_are_errors_without_a_panic_or_a_big_allocation() {
    use hayate::nnue::{Architecture, NnueError};
    let _cpu = crate::common::shared();
    let kp = random_net::shape("kp_256x2-32-32").write(11, 0.03125);
    // Cut anywhere, or one byte more: the sizes the shape implies.
    for cut in [20, 200, 400, kp.len() / 3, kp.len() - 1] {
        assert!(
            matches!(Network::from_bytes(&kp[..cut]), Err(NnueError::Truncated { actual, .. }) if actual == cut),
            "cut at {cut}"
        );
    }
    let mut longer = kp.clone();
    longer.push(1);
    assert!(matches!(Network::from_bytes(&longer), Err(NnueError::Oversized { .. })));
    // A corrupted part hash.
    let mut bad = kp.clone();
    let at = 12 + random_net::shape("kp_256x2-32-32").architecture().len();
    bad[at] ^= 4;
    assert!(matches!(Network::from_bytes(&bad), Err(NnueError::WrongFeatureTransformerHash { .. })));
    // A header claiming the largest shape on a small file: the size is checked before anything
    // is allocated, so this is a quick error, not gigabytes.
    let huge = Architecture::classic(FeatureSet::HalfKpE9, 2048, &[256, 256, 256, 256]);
    let file = file_with(&huge.file_string(), huge.file_hash(), 5000);
    match Network::from_bytes(&file) {
        Err(NnueError::Truncated { expected, actual }) => assert!(expected > 4_000_000_000 && actual == file.len()),
        other => panic!("{other:?}"),
    }
    // A string that names a known shape with another shape's hash.
    let a = Architecture::classic(FeatureSet::HalfKp, 1024, &[8, 32]);
    let file = file_with(&a.file_string(), Architecture::standard().file_hash(), 100);
    assert!(matches!(Network::from_bytes(&file), Err(NnueError::WrongArchitectureHash { .. })));
    // Shapes hayate does not read: the error names what the file holds and what is read.
    let sfnn_like = "ModelType=SFNNWithPsqt;Features=HalfKA_hm2(Friend)[73305->1536x2],Network=SFNN-1536{LayerStack=9}";
    let odd = a.file_string().replace("1024x2", "1000x2");
    for text in [sfnn_like, &odd, "Features=HalfKA(Friend)[73305->256x2],Network=x"] {
        let e = Network::from_bytes(&file_with(text, 0x3C20_3B32, 1000)).unwrap_err();
        assert!(matches!(e, NnueError::UnsupportedArchitecture { .. }), "{text}: {e:?}");
        let message = e.to_string();
        assert!(message.contains(&text[..40]) && message.contains("halfkp_1024x2-8-32"), "{message}");
    }
    // Random damage to the architecture string of a real file: an error or the same network
    // (a string that still parses to the same shape), never a panic.
    let mut rng = Rng(5);
    let len = random_net::shape("kp_256x2-32-32").architecture().len();
    for _ in 0..3000 {
        let mut bytes = kp[..12 + len + 64].to_vec();
        for _ in 0..1 + rng.below(3) {
            let i = 12 + rng.below(len);
            bytes[i] = b"0123456789[]()<->,x=AKP+_"[rng.below(25)];
        }
        bytes.extend_from_slice(&kp[12 + len + 64..]);
        if let Ok(net) = Network::from_bytes(&bytes) {
            assert_eq!(net.arch().name(), "kp_256x2-32-32");
        }
    }
}

#[test]
fn bad_sfnn_files_are_errors_without_a_panic_or_a_big_allocation() {
    use hayate::nnue::{Architecture, NnueError};
    let _cpu = crate::common::shared();
    let file = network_file(SFNN);
    let header = 12 + Architecture::sfnn().file_string().len();
    // The weights block: its magic at header + 4 (transformer hash) + the biases' block.
    let biases_block = 17 + 4 + u32::from_le_bytes(file[header + 21..header + 25].try_into().unwrap()) as usize;
    let weights_at = header + 4 + biases_block;
    assert_eq!(&file[weights_at..weights_at + 17], b"COMPRESSED_LEB128");
    let count_at = weights_at + 17;
    let weights_end = count_at + 4 + u32::from_le_bytes(file[count_at..count_at + 4].try_into().unwrap()) as usize;
    // Cut anywhere: in the header, the biases, the weights, the stacks.
    for cut in [20, header + 10, header + 30, weights_at + 1000, weights_end + 5, file.len() - 1] {
        match Network::from_bytes(&file[..cut]) {
            Err(NnueError::Truncated { actual, .. }) => assert_eq!(actual, cut),
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    let mut longer = file.clone();
    longer.push(0);
    assert!(matches!(Network::from_bytes(&longer), Err(NnueError::Oversized { .. })));
    let damaged = |at: usize, f: &dyn Fn(&mut u8)| {
        let mut bad = file.clone();
        f(&mut bad[at]);
        Network::from_bytes(&bad).unwrap_err()
    };
    let is_block_error =
        |e: &NnueError, says: &str| matches!(e, NnueError::BadCompressedBlock { .. }) && e.to_string().contains(says);
    // The mark, the count and the values of a block.
    let e = damaged(weights_at + 3, &|b| *b ^= 1);
    assert!(is_block_error(&e, "COMPRESSED_LEB128"), "{e}");
    // One byte more in the count: the block ends inside the first stack, with a byte left over.
    let e = damaged(count_at, &|b| *b = b.wrapping_add(1));
    assert!(is_block_error(&e, "1 bytes after"), "{e}");
    // A count of fewer bytes than values.
    let e = damaged(count_at + 3, &|b| *b = 0);
    assert!(is_block_error(&e, "bytes for"), "{e}");
    // The last value continued past the block's end.
    let e = damaged(weights_end - 1, &|b| *b |= 0x80);
    assert!(is_block_error(&e, "run past"), "{e}");
    // A damaged stack hash.
    let e = damaged(weights_end, &|b| *b ^= 8);
    assert!(matches!(e, NnueError::WrongNetworkHash { .. }), "{e}");
    // The header alone on a small file: a quick error before anything is allocated.
    let mut small = file[..header + 4].to_vec();
    small.resize(5000, 0);
    match Network::from_bytes(&small) {
        Err(NnueError::Truncated { expected, actual }) => assert!(expected > 100_000_000 && actual == 5000),
        other => panic!("{other:?}"),
    }
    // A count larger than the file: refused before decoding.
    let e = damaged(count_at + 3, &|b| *b = 0x7F);
    assert!(matches!(e, NnueError::Truncated { .. }), "{e}");
    // Random damage to the compressed bytes: an error or a network, never a panic.
    let mut rng = Rng(17);
    for _ in 0..20 {
        let mut bad = file[..weights_at + 64].to_vec();
        for _ in 0..1 + rng.below(4) {
            let i = header + 4 + rng.below(weights_at + 64 - header - 4);
            bad[i] = rng.below(256) as u8;
        }
        bad.extend_from_slice(&file[weights_at + 64..]);
        let _ = Network::from_bytes(&bad);
    }
}

#[test]
fn the_engine_loads_each_shape_from_eval_dir_and_says_which() {
    use crate::common::{Engine, bestmove_of};
    use crate::nnue_usi::{eval_of, ready};
    use std::time::Duration;
    let _cpu = crate::common::shared();
    const T: Duration = Duration::from_secs(60);
    let dir = std::env::temp_dir().join(format!("hayate-arch-{}", std::process::id()));
    let mut e = Engine::start();
    e.send("usi");
    e.until("usiok", T);
    for shape in ["kp_256x2-32-32", SFNN, "halfkp_1024x2-8-32"] {
        let sub = dir.join(shape);
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("nn.bin"), network_file(shape)).unwrap();
        e.send(&format!("setoption name EvalDir value {}", sub.display()));
        let msgs = ready(&mut e);
        assert!(msgs.len() == 1 && msgs[0].contains(&format!(": {shape}, ")), "{msgs:?}");
        for (pos, want) in reference(shape).iter().take(20) {
            assert_eq!(eval_of(&mut e, &pos.to_sfen()), *want as i64, "{shape} {}", pos.to_sfen());
        }
        e.send("position startpos moves 7g7f 3c3d");
        e.send("go depth 6");
        let mv = bestmove_of(e.until("bestmove", T).last().unwrap()).unwrap();
        let mut pos = Position::startpos();
        for m in ["7g7f", "3c3d"] {
            pos.do_move(pos.parse_usi_move(m).unwrap());
        }
        assert!(pos.parse_usi_move(&mv).is_ok(), "{shape}: {mv}");
    }
    // A shape hayate does not read: an error at isready that names it, and the 1024-wide
    // network stays.
    let (sfen, want) = (reference("halfkp_1024x2-8-32")[0].0.to_sfen(), reference("halfkp_1024x2-8-32")[0].1);
    let sub = dir.join("halfka");
    std::fs::create_dir_all(&sub).unwrap();
    let text = "Features=HalfKA(Friend)[138510->256x2],Network=AffineTransform[1<-32]";
    std::fs::write(sub.join("nn.bin"), file_with(text, 0x1234_5678, 4096)).unwrap();
    e.send(&format!("setoption name EvalDir value {}", sub.display()));
    let msgs = ready(&mut e);
    assert!(
        msgs.len() == 1 && msgs[0].starts_with("info string error: EvalDir: ") && msgs[0].contains("HalfKA(Friend)"),
        "{msgs:?}"
    );
    assert!(msgs[0].contains("stays"), "{msgs:?}");
    assert_eq!(eval_of(&mut e, &sfen), want as i64);
    std::fs::remove_dir_all(&dir).unwrap();
}
