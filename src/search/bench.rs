//! The deterministic `bench`: fixed positions searched to a fixed depth, one thread, fresh
//! tables per position; the node count is the search's signature.

/// Positions and depth of the deterministic `bench` (one thread, fresh tables per position).
pub const BENCH_POSITIONS: [&str; 8] = [
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "ln1g1gsnl/1r1s2k2/p1pppp1pp/6p2/1p7/2P4P1/PPSPPPP1P/2G2S1R1/LN2KG1NL b Bb 15",
    "lnsgk1snl/6gb1/p1pppp2p/6pR1/9/1rP6/P2PPPP1P/1BG6/LNS1KGSNL w 3P2p 16",
    "ln1gk2nl/1r1s1sgb1/p1pppp1pp/6p2/1p7/2PP5/PPBSPPPPP/2G1R4/LN2KGSNL b - 21",
    "l2g3nl/2s2kg2/p1npp1sp1/2p2pp1p/1p7/2PBP1P1P/PPS2PN2/2GK1S3/LN1G4L b RBr2p 55",
    "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    "l7l/3s5/prnp2kp1/2p1Gppnp/1P7/PnPP1P3/3BP2PP/1S1G5/LN1K1G1+rL b SBG3ps 91",
];
pub const BENCH_DEPTH: i32 = 11;
