//! The shape of a network, read from its file: the feature set, the transformer's width and
//! the widths of the dense layers after it, parsed from the architecture string in the header
//! and checked against the header's hashes (which YaneuraOu derives from the same shape).
//!
//! The classic YaneuraOu networks are all one chain: a feature transformer of `H` outputs per
//! perspective, both perspectives' outputs concatenated (`InputSlice[2H]`), then affine layers
//! each followed by a clipped ReLU, and a last affine layer of one output. `halfkp_256x2-32-32`
//! is `HalfKP`, `H` = 256, hidden widths `[32, 32]`.
//!
//! SFNN (`Model::Sfnn`, YaneuraOu's newest format) is another head after the same kind of
//! transformer: HalfKA_hm2 features, the two halves of each perspective's outputs multiplied
//! pairwise, and one of nine layer stacks chosen by the kings' ranks (`network`, `forward`).

use std::fmt;

/// The input features of a network (per perspective).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FeatureSet {
    /// HalfKP(Friend): own king square x BonaPiece of each non-king piece (81 x 1548 rows).
    HalfKp,
    /// HalfKP_vm(Friend): HalfKP with the king (and the board with it) mirrored onto files 1-5
    /// (45 x 1548 rows).
    HalfKpVm,
    /// K+P: the BonaPieces without a king factor, and each king's square (1548 + 2 x 81 rows).
    Kp,
    /// HalfKPE9(Friend): HalfKP once for each of 9 buckets of attack counts on the piece's
    /// square (9 x 81 x 1548 rows).
    HalfKpE9,
    /// HalfKA_hm2(Friend) (SFNN): the own king, mirrored onto files 1-5 with the board, x
    /// every piece, kings included (both on one plane of 81): 45 x 1629 rows.
    HalfKaHm2,
}

/// BonaPieces of the non-king pieces.
pub const FE_END: usize = 1548;
/// HalfKA_hm2's features per king bucket: the BonaPieces, then a king (either) on each square.
pub const HALF_KA_PLANE: usize = FE_END + 81;

impl FeatureSet {
    pub const ALL: [FeatureSet; 5] =
        [FeatureSet::HalfKp, FeatureSet::HalfKpVm, FeatureSet::Kp, FeatureSet::HalfKpE9, FeatureSet::HalfKaHm2];

    /// The name in the architecture string.
    pub fn file_name(self) -> &'static str {
        match self {
            FeatureSet::HalfKp => "HalfKP(Friend)",
            FeatureSet::HalfKpVm => "HalfKP_vm(Friend)",
            FeatureSet::Kp => "K+P",
            FeatureSet::HalfKpE9 => "HalfKPE9(Friend)",
            FeatureSet::HalfKaHm2 => "HalfKA_hm2(Friend)",
        }
    }

    /// The short name in architecture names (`halfkp_256x2-32-32`).
    pub fn short_name(self) -> &'static str {
        match self {
            FeatureSet::HalfKp => "halfkp",
            FeatureSet::HalfKpVm => "halfkp_vm",
            FeatureSet::Kp => "kp",
            FeatureSet::HalfKpE9 => "halfkpe9",
            FeatureSet::HalfKaHm2 => "halfkahm2",
        }
    }

    /// Rows of the feature transformer's weights.
    pub fn rows(self) -> usize {
        match self {
            FeatureSet::HalfKp => 81 * FE_END,
            FeatureSet::HalfKpVm => 45 * FE_END,
            FeatureSet::Kp => FE_END + 2 * 81,
            FeatureSet::HalfKpE9 => 9 * 81 * FE_END,
            FeatureSet::HalfKaHm2 => 45 * HALF_KA_PLANE,
        }
    }

    /// The hash YaneuraOu gives the feature set (HalfKPE9 keeps HalfKP's).
    pub fn hash(self) -> u32 {
        match self {
            FeatureSet::HalfKp | FeatureSet::HalfKpE9 => 0x5D69_D5B9 ^ 1,
            FeatureSet::HalfKpVm => 0x0B6B_1D9B ^ 1,
            FeatureSet::Kp => {
                // FeatureSet<K, P>: the head's hash combined with the tail's, rotated by one.
                let (k, p) = (0xD3CE_E169u32, 0x764C_FB4Bu32);
                k ^ p.rotate_left(1)
            }
            // SFNN's transformer has a fixed hash of its own (`transformer_hash`).
            FeatureSet::HalfKaHm2 => 0x7F23_4CB9 ^ 1,
        }
    }

    /// Whether the kings are features (K+P, HalfKA_hm2), not only the key of the others.
    pub fn has_king_features(self) -> bool {
        matches!(self, FeatureSet::Kp | FeatureSet::HalfKaHm2)
    }

    /// Features per king bucket.
    pub fn plane(self) -> usize {
        if self == FeatureSet::HalfKaHm2 { HALF_KA_PLANE } else { FE_END }
    }

    /// Whether a move of the perspective's own king changes all its features.
    pub fn refresh_on_king_move(self) -> bool {
        self != FeatureSet::Kp
    }
}

/// Widest transformer read (outputs per perspective).
pub const MAX_HALF: usize = 2048;
/// Widest hidden layer read.
pub const MAX_HIDDEN: usize = 256;
/// Most hidden layers read.
pub const MAX_HIDDEN_LAYERS: usize = 4;

/// What follows the feature transformer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// The classic chain: the transformer's outputs clipped, then affine layers each followed
    /// by a clipped ReLU (`hidden`), then one output.
    Classic,
    /// SFNN without PSQT: each perspective's outputs multiplied pairwise (half as many
    /// inputs), then one of `SFNN_STACKS` layer stacks chosen by the kings' ranks: an affine
    /// layer of `hidden[0]` outputs (the last added to the result unscaled, the others through
    /// a squared and a plain clipped ReLU side by side), one of `hidden[1]` with a clipped ReLU,
    /// one output.
    Sfnn,
}

/// Layer stacks of an SFNN network (YaneuraOu's k3k3: 3 x 3 ranks of the two kings).
pub const SFNN_STACKS: usize = 9;
/// SFNN's part hash of each layer stack.
pub const SFNN_STACK_HASH: u32 = 0x6333_718A;
/// SFNN's part hash of the feature transformer.
pub const SFNN_TRANSFORMER_HASH: u32 = 0x5F13_4AB8;
/// SFNN's structure in YaneuraOu's architecture string.
const SFNN_STRING: &str =
    "ModelType=SFNNWithoutPsqt;Features=HalfKA_hm2(Friend)[73305->1536x2],Network=SFNN-1536{LayerStack=9}";

/// A network's shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Architecture {
    pub features: FeatureSet,
    /// Transformer outputs per perspective (a multiple of 32, at most `MAX_HALF`).
    pub half: usize,
    /// Widths of the hidden layers, each followed by a clipped ReLU (the last layer, of one
    /// output, is not listed).
    pub hidden: Vec<usize>,
    pub model: Model,
}

/// Why an architecture string does not describe a network hayate reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchError(pub String);

impl fmt::Display for ArchError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Rounds an input count up to the 32 bytes per row the file stores.
pub const fn padded_inputs(n: usize) -> usize {
    n.div_ceil(32) * 32
}

fn affine_hash(previous: u32, outputs: u32) -> u32 {
    0xCC03_DAE4u32.wrapping_add(outputs) ^ (previous >> 1) ^ (previous << 31)
}

fn clipped_relu_hash(previous: u32) -> u32 {
    0x538D_24C7u32.wrapping_add(previous)
}

impl Architecture {
    /// halfkp_256x2-32-32, the shape of most public networks and of hayate's own.
    pub fn standard() -> Architecture {
        Architecture::classic(FeatureSet::HalfKp, 256, &[32, 32])
    }

    /// A classic chain of that feature set, width and hidden layers.
    pub fn classic(features: FeatureSet, half: usize, hidden: &[usize]) -> Architecture {
        Architecture { features, half, hidden: hidden.to_vec(), model: Model::Classic }
    }

    /// SFNN halfkahm2_1536_15_32_k3k3, YaneuraOu's newest format (the one SFNN shape read).
    pub fn sfnn() -> Architecture {
        Architecture { features: FeatureSet::HalfKaHm2, half: 1536, hidden: vec![16, 32], model: Model::Sfnn }
    }

    /// Layer stacks after the transformer.
    pub fn stacks(&self) -> usize {
        match self.model {
            Model::Classic => 1,
            Model::Sfnn => SFNN_STACKS,
        }
    }

    /// Inputs of the first affine layer: both perspectives' transformer outputs (SFNN: half
    /// as many, the products of each perspective's two halves).
    pub fn transformed(&self) -> usize {
        match self.model {
            Model::Classic => 2 * self.half,
            Model::Sfnn => self.half,
        }
    }

    /// The usual name: `halfkp_256x2-32-32`.
    pub fn name(&self) -> String {
        if self.model == Model::Sfnn {
            return format!(
                "sfnn_{}_{}_{}_{}_k3k3",
                self.features.short_name(),
                self.half,
                self.hidden[0] - 1,
                self.hidden[1]
            );
        }
        let widths: Vec<String> = self.hidden.iter().map(|w| w.to_string()).collect();
        format!("{}_{}x2-{}", self.features.short_name(), self.half, widths.join("-"))
    }

    /// The architecture string YaneuraOu writes for this shape.
    pub fn file_string(&self) -> String {
        if self.model == Model::Sfnn {
            return SFNN_STRING.to_string();
        }
        let t = 2 * self.half;
        let mut net = format!("InputSlice[{t}({}:{t})]", 0);
        let mut inputs = t;
        for (i, &w) in self.hidden.iter().enumerate() {
            let kind = if i == 0 { "AffineTransformSparseInput" } else { "AffineTransform" };
            net = format!("ClippedReLU[{w}]({kind}[{w}<-{inputs}]({net}))");
            inputs = w;
        }
        net = format!("AffineTransform[1<-{inputs}]({net})");
        format!("Features={}[{}->{}x2],Network={net}", self.features.file_name(), self.features.rows(), self.half)
    }

    /// Part hash of the feature transformer.
    pub fn transformer_hash(&self) -> u32 {
        if self.model == Model::Sfnn {
            return SFNN_TRANSFORMER_HASH;
        }
        self.features.hash() ^ (2 * self.half) as u32
    }

    /// Part hash of the layers after the transformer.
    pub fn network_hash(&self) -> u32 {
        if self.model == Model::Sfnn {
            return SFNN_STACK_HASH;
        }
        let mut h = 0xEC42_E90Du32 ^ (2 * self.half) as u32;
        for &w in &self.hidden {
            h = clipped_relu_hash(affine_hash(h, w as u32));
        }
        affine_hash(h, 1)
    }

    /// The hash in the file header.
    pub fn file_hash(&self) -> u32 {
        self.transformer_hash() ^ self.network_hash()
    }

    /// (outputs, inputs) of each affine layer of a stack, the last one included.
    pub fn layers(&self) -> Vec<(usize, usize)> {
        if self.model == Model::Sfnn {
            // The first layer's last output bypasses the activations, which double the others.
            let (l1, l2) = (self.hidden[0], self.hidden[1]);
            return vec![(l1, self.half), (l2, 2 * (l1 - 1)), (1, l2)];
        }
        let mut inputs = 2 * self.half;
        let mut v = Vec::new();
        for &w in &self.hidden {
            v.push((w, inputs));
            inputs = w;
        }
        v.push((1, inputs));
        v
    }

    /// Bytes after the header string: the two part hashes and every parameter (SFNN: the
    /// fewest, every transformer parameter in one byte of LEB128).
    pub fn parameter_bytes(&self) -> usize {
        if self.model == Model::Sfnn {
            let stack: usize = self.layers().iter().map(|&(o, i)| 4 * o + o * padded_inputs(i)).sum();
            let block = |values: usize| LEB128_MAGIC.len() + 4 + values;
            return 4 + block(self.half) + block(self.half * self.features.rows()) + self.stacks() * (4 + stack);
        }
        let transformer = 2 * self.half * (1 + self.features.rows());
        let layers: usize = self.layers().iter().map(|&(o, i)| 4 * o + o * padded_inputs(i)).sum();
        4 + transformer + 4 + layers
    }

    /// Parses an architecture string as YaneuraOu writes it. Only the shapes hayate evaluates
    /// parse; the error names what was found.
    pub fn parse(text: &str) -> Result<Architecture, ArchError> {
        let err = |why: &str| ArchError(format!("{why} in architecture \"{}\"", shorten(text)));
        if let Some(rest) = text.strip_prefix("ModelType=") {
            if text == SFNN_STRING {
                return Ok(Architecture::sfnn());
            }
            let model = rest.split(';').next().unwrap_or(rest);
            return Err(err(&format!(
                "model \"{model}\" of this shape not read (hayate reads SFNN only as {SFNN_STRING})"
            )));
        }
        let rest = text.strip_prefix("Features=").ok_or_else(|| err("no \"Features=\""))?;
        let open = rest.find('[').ok_or_else(|| err("no feature dimensions"))?;
        let name = &rest[..open];
        let features = FeatureSet::ALL
            .into_iter()
            .find(|f| f.file_name() == name)
            .ok_or_else(|| err(&format!("feature set \"{name}\" not read (hayate reads {})", feature_sets_read())))?;
        let close = rest.find(']').ok_or_else(|| err("unclosed feature dimensions"))?;
        let dims = &rest[open + 1..close];
        let (rows, width) = dims.split_once("->").ok_or_else(|| err("feature dimensions without \"->\""))?;
        let half_text = width.strip_suffix("x2").ok_or_else(|| err("transformer width without \"x2\""))?;
        let rows: usize = rows.parse().map_err(|_| err("feature count not a number"))?;
        let half: usize = half_text.parse().map_err(|_| err("transformer width not a number"))?;
        if rows != features.rows() {
            return Err(err(&format!("{rows} rows for {name} (it has {})", features.rows())));
        }
        if half == 0 || half > MAX_HALF || !half.is_multiple_of(32) {
            return Err(err(&format!("transformer width {half} (hayate reads multiples of 32 up to {MAX_HALF})")));
        }
        let net = rest[close + 1..].strip_prefix(",Network=").ok_or_else(|| err("no \",Network=\""))?;
        // The layers, outermost first: "Name[dims](inner)".
        let mut layers = Vec::new();
        let mut s = net;
        loop {
            let open = s.find('[').ok_or_else(|| err("layer without dimensions"))?;
            let close = s.find(']').ok_or_else(|| err("unclosed layer dimensions"))?;
            if close < open {
                return Err(err("malformed layer"));
            }
            layers.push((&s[..open], &s[open + 1..close]));
            s = &s[close + 1..];
            match s.strip_prefix('(') {
                Some(inner) => s = inner,
                None => break,
            }
        }
        if !s.chars().all(|c| c == ')') || s.len() != layers.len() - 1 {
            return Err(err("unbalanced parentheses"));
        }
        layers.reverse();
        let t = 2 * half;
        match layers.first() {
            Some(&("InputSlice", d)) if d == format!("{t}(0:{t})") => {}
            _ => return Err(err(&format!("network input other than InputSlice[{t}(0:{t})]"))),
        }
        let mut hidden = Vec::new();
        let mut inputs = t;
        let mut i = 1;
        while i < layers.len() {
            let (kind, d) = layers[i];
            if kind != "AffineTransform" && kind != "AffineTransformSparseInput" {
                return Err(err(&format!("layer \"{kind}\" not read")));
            }
            let (o, inp) = d.split_once("<-").ok_or_else(|| err("affine layer without \"<-\""))?;
            let (o, inp): (usize, usize) = match (o.parse(), inp.parse()) {
                (Ok(o), Ok(i)) => (o, i),
                _ => return Err(err("affine dimensions not numbers")),
            };
            if inp != inputs {
                return Err(err(&format!("affine layer of {inp} inputs after {inputs} outputs")));
            }
            if i == layers.len() - 1 {
                if o != 1 {
                    return Err(err(&format!("last layer of {o} outputs (hayate reads 1)")));
                }
                break;
            }
            match layers.get(i + 1) {
                Some(&("ClippedReLU", w)) if w == o.to_string() => {}
                _ => return Err(err(&format!("affine layer of {o} outputs not followed by ClippedReLU[{o}]"))),
            }
            if o == 0 || o > MAX_HIDDEN {
                return Err(err(&format!("hidden layer of {o} (hayate reads 1 to {MAX_HIDDEN})")));
            }
            hidden.push(o);
            inputs = o;
            i += 2;
        }
        if i >= layers.len() {
            return Err(err("no output layer"));
        }
        if hidden.is_empty() || hidden.len() > MAX_HIDDEN_LAYERS {
            return Err(err(&format!("{} hidden layers (hayate reads 1 to {MAX_HIDDEN_LAYERS})", hidden.len())));
        }
        if features == FeatureSet::HalfKaHm2 {
            return Err(err("HalfKA_hm2 outside an SFNN network"));
        }
        Ok(Architecture { features, half, hidden, model: Model::Classic })
    }
}

impl fmt::Display for Architecture {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// The feature sets read in classic networks, for error messages.
pub fn feature_sets_read() -> String {
    let classic = FeatureSet::ALL.iter().filter(|&&f| f != FeatureSet::HalfKaHm2);
    classic.map(|f| f.file_name()).collect::<Vec<_>>().join(", ")
}

/// What hayate reads, for error messages.
pub fn shapes_read() -> String {
    format!(
        "the feature sets {} with any transformer width up to {MAX_HALF} (a multiple of 32) and 1 to \
         {MAX_HIDDEN_LAYERS} clipped-ReLU hidden layers of up to {MAX_HIDDEN}, e.g. halfkp_256x2-32-32, \
         halfkp_1024x2-8-32, kp_256x2-32-32; and SFNN {}",
        feature_sets_read(),
        Architecture::sfnn().name()
    )
}

/// The 17 bytes before each compressed block of an SFNN transformer.
pub const LEB128_MAGIC: &[u8] = b"COMPRESSED_LEB128";

/// At most 120 characters of a string from a file, for messages.
pub fn shorten(s: &str) -> String {
    let mut t: String = s.chars().filter(|c| !c.is_control()).take(120).collect();
    if s.chars().count() > 120 {
        t.push_str("...");
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_shape_has_the_known_hashes_and_size() {
        let a = Architecture::standard();
        assert_eq!(a.transformer_hash(), 0x5D69_D7B8);
        assert_eq!(a.network_hash(), 0x6333_7156);
        assert_eq!(a.file_hash(), 0x3E5A_A6EE);
        assert_eq!(a.file_string().len(), 189);
        assert_eq!(12 + 189 + a.parameter_bytes(), 64_217_077);
        assert_eq!(Architecture::parse(&a.file_string()), Ok(a.clone()));
        assert_eq!(a.name(), "halfkp_256x2-32-32");
    }

    #[test]
    fn other_shapes_round_trip_and_hash_as_the_reference_does() {
        // (shape, transformer hash, network hash) as YaneuraOu's editions compute them.
        let cases = [
            (FeatureSet::Kp, 256, vec![32, 32], 0x3F57_15FF, 0x6333_7156),
            (FeatureSet::HalfKpVm, 256, vec![32, 32], 0x0B6B_1F9A, 0x6333_7156),
            (FeatureSet::HalfKp, 512, vec![16, 32], 0x5D69_D1B8, 0x6333_76CA),
            (FeatureSet::HalfKp, 1024, vec![8, 32], 0x5D69_DDB8, 0x6333_6A54),
            (FeatureSet::HalfKp, 1024, vec![8, 64], 0x5D69_DDB8, 0x6333_6A24),
        ];
        for (features, half, hidden, ft, net) in cases {
            let a = Architecture::classic(features, half, &hidden);
            assert_eq!((a.transformer_hash(), a.network_hash()), (ft, net), "{a}");
            assert_eq!(Architecture::parse(&a.file_string()), Ok(a.clone()));
        }
    }

    #[test]
    fn the_sfnn_shape_hashes_and_sizes_as_the_reference_does() {
        let a = Architecture::sfnn();
        assert_eq!(a.file_hash(), 0x3C20_3B32);
        assert_eq!(Architecture::parse(&a.file_string()), Ok(a.clone()));
        assert_eq!(a.name(), "sfnn_halfkahm2_1536_15_32_k3k3");
        assert_eq!(a.features.rows(), 73_305);
        // A stack: 16 x (4 + 1536), 32 x (4 + 32), 1 x (4 + 32) bytes and its hash.
        assert_eq!(a.parameter_bytes() - 4 - 2 * 21 - 1536 - 73_305 * 1536, 9 * 25_832);
    }

    #[test]
    fn strings_of_other_shapes_are_refused_with_what_was_found() {
        let std = Architecture::standard().file_string();
        for (bad, says) in [
            (std.replace("HalfKP(Friend)", "HalfKA(Friend)"), "HalfKA"),
            (std.replace("256x2", "100x2"), "100"),
            (std.replace("125388", "125389"), "125389"),
            (std.replace("ClippedReLU[32](AffineTransform[32<-32]", "X[32](AffineTransform[32<-32]"), "ClippedReLU"),
            (std.replace("AffineTransform[1<-32]", "AffineTransform[2<-32]"), "2 outputs"),
            (std[..50].to_string(), "architecture"),
            ("ModelType=SFNNWithoutPsqt;Features=HalfKA_hm2(Friend)[73305->1536x2]".to_string(), "SFNNWithoutPsqt"),
            (
                "ModelType=SFNN;Features=HalfKA_hm2(Friend)[73305->1536x2],Network=SFNN-1536{LayerStack=9}".to_string(),
                "\"SFNN\"",
            ),
            (std.replace("HalfKP(Friend)[125388", "HalfKA_hm2(Friend)[73305"), "outside an SFNN"),
            (String::new(), "Features="),
        ] {
            let e = Architecture::parse(&bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
