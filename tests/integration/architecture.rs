//! The house rules, read from the sources: between the rooms (the top-level modules of
//! `src/`), imports go only down the numbered layers that `src/lib.rs` lists; inside a room,
//! the files' imports form no circle, so that each room reads bottom-up.
//!
//! Imports are the `crate::` and `super::` paths of the code (`use` trees expanded), outside
//! comments and the `tests` module at the end of a file. A path names the longest module it
//! reaches; paths into a module's own ancestors (its room's `mod.rs`, which only declares and
//! re-exports) do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type ModPath = Vec<String>;

/// Every module file of the library: its module path and its code.
fn library_modules() -> BTreeMap<ModPath, String> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<ModPath, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            if path.is_dir() {
                if prefix.is_empty() && name == "bin" {
                    continue; // the helper binaries are not the library
                }
                walk(&path, &[prefix, &[name]].concat(), out);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                if prefix.is_empty() && stem == "main" {
                    continue;
                }
                let module =
                    if stem == "mod" || stem == "lib" { prefix.to_vec() } else { [prefix, &[stem.into()]].concat() };
                out.insert(module, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &[], &mut out);
    out
}

/// The code without comments and without the unit tests at the end.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines().map(|l| l.find("//").map_or(l, |at| &l[..at])).collect::<Vec<_>>().join("\n")
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e`.
fn expand_use_tree(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else { return vec![tree] };
    let Some(close) = tree.rfind('}').filter(|&c| c > open) else { return Vec::new() };
    let (head, body) = (&tree[..open], &tree[open + 1..close]);
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&body[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).flat_map(|p| expand_use_tree(&format!("{head}{p}"))).collect()
}

/// Every `crate::`/`super::` path in `code`.
fn paths_in(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    // `use` declarations (a line that starts one, to the `;`), braces and all.
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let declaration = ["use ", "pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .find_map(|start| trimmed.strip_prefix(start));
        if let Some(tree) = declaration {
            let at = offset + (line.len() - tree.len());
            if let Some(end) = code[at..].find(';') {
                paths.extend(expand_use_tree(&code[at..at + end]));
            }
        }
        offset += line.len();
    }
    // Paths written in the code itself (`crate::mate::MateSolver::new(...)`).
    for root in ["crate::", "super::"] {
        let mut rest = code;
        while let Some(at) = rest.find(root) {
            let before = rest[..at].chars().last();
            let tail = &rest[at..];
            let len = tail.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(tail.len());
            if before.is_none_or(|c| !c.is_alphanumeric() && c != '_' && c != ':') {
                paths.push(tail[..len].to_string());
            }
            rest = &tail[root.len()..];
        }
    }
    paths
}

/// The longest module `path` reaches from module `from`, if it starts with `crate` or `super`.
fn resolve(from: &[String], path: &str, modules: &BTreeMap<ModPath, String>) -> Option<ModPath> {
    let mut parts = path.split("::").filter(|p| !p.is_empty()).peekable();
    let mut base: ModPath = match *parts.peek()? {
        "crate" => {
            parts.next();
            Vec::new()
        }
        "super" | "self" => from.to_vec(),
        _ => return None,
    };
    while let Some(&p) = parts.peek() {
        match p {
            "super" => base.pop(),
            "self" => None,
            _ => break,
        };
        parts.next();
    }
    let mut best = modules.contains_key(&base).then(|| base.clone());
    for p in parts {
        base.push(p.to_string());
        if modules.contains_key(&base) {
            best = Some(base.clone());
        }
    }
    best
}

/// For each module, the modules it imports (not itself, not its ancestors).
fn imports(modules: &BTreeMap<ModPath, String>) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    modules
        .iter()
        .map(|(m, text)| {
            let deps = paths_in(&code_of(text))
                .iter()
                .filter_map(|p| resolve(m, p, modules))
                .filter(|d| d != m && !m.starts_with(d))
                .collect();
            (m.clone(), deps)
        })
        .collect()
}

/// The layer number of each room, from the numbered list of `src/lib.rs`: a room is named there
/// in backticks followed by `:` or ` (`.
fn layers(lib: &str, modules: &BTreeMap<ModPath, String>) -> BTreeMap<String, u32> {
    let mut layer = BTreeMap::new();
    let mut current = 0;
    for line in lib.lines().filter_map(|l| l.strip_prefix("//!")) {
        let trimmed = line.trim_start();
        if let Some((n, _)) = trimmed.split_once(". ")
            && let Ok(n) = n.parse::<u32>()
        {
            current = n;
        }
        for piece in line.split('`').skip(1).step_by(2).zip(line.split('`').skip(2).step_by(2)) {
            let (name, after) = piece;
            let named = after.starts_with(':') || after.starts_with(" (");
            if current > 0 && named && modules.contains_key(&vec![name.to_string()]) {
                layer.entry(name.to_string()).or_insert(current);
            }
        }
    }
    layer
}

#[test]
fn rooms_import_only_rooms_of_lower_layers() {
    let modules = library_modules();
    let layer = layers(&modules[&Vec::new()], &modules);
    let rooms: Vec<&String> = modules.keys().filter(|m| m.len() == 1).map(|m| &m[0]).collect();
    for room in &rooms {
        assert!(layer.contains_key(*room), "src/lib.rs gives `{room}` no layer: {layer:?}");
    }
    let mut wrong = Vec::new();
    for (m, deps) in imports(&modules) {
        for d in deps {
            let (Some(from), Some(to)) = (m.first(), d.first()) else { continue };
            if from != to && layer[to] >= layer[from] {
                wrong.push(format!(
                    "{} (layer {}) imports {} (layer {})",
                    m.join("::"),
                    layer[from],
                    d.join("::"),
                    layer[to]
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "imports that do not go down the layers of src/lib.rs:\n{}", wrong.join("\n"));
}

#[test]
fn no_room_has_an_import_circle() {
    let modules = library_modules();
    let imports = imports(&modules);
    let mut circles = Vec::new();
    // Each folder module is a room: its direct children, with what is inside each.
    for room in modules.keys() {
        let children: BTreeSet<ModPath> =
            modules.keys().filter(|m| m.len() == room.len() + 1 && m.starts_with(room)).cloned().collect();
        if children.len() < 2 {
            continue;
        }
        let child_of = |m: &ModPath| (m.len() > room.len() && m.starts_with(room)).then(|| m[..=room.len()].to_vec());
        let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
        for (m, deps) in &imports {
            let Some(from) = child_of(m) else { continue };
            for to in deps.iter().filter_map(child_of).filter(|to| *to != from) {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
        // A child reaches itself through the edges: a circle.
        for start in &children {
            let mut seen = BTreeSet::new();
            let mut stack: Vec<ModPath> = edges.get(start).into_iter().flatten().cloned().collect();
            while let Some(n) = stack.pop() {
                if n == *start {
                    circles.push(format!(
                        "{} (room {})",
                        start.join("::"),
                        if room.is_empty() { "crate".into() } else { room.join("::") }
                    ));
                    break;
                }
                if seen.insert(n.clone()) {
                    stack.extend(edges.get(&n).into_iter().flatten().cloned());
                }
            }
        }
    }
    assert!(
        circles.is_empty(),
        "modules that import themselves through their room's other files:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_readers_of_the_sources_see_paths_and_circles() {
    // The parsing above, on small cases, so that a rule cannot pass by seeing nothing.
    assert_eq!(expand_use_tree("super::{a, b::{c, d}}"), ["super::a", "super::b::c", "super::b::d"]);
    let code = "use super::x::{Y, z::W};\nfn f() { crate::shogi::Position::startpos(); }\n// crate::usi";
    let paths = paths_in(&code_of(code));
    assert!(
        paths.contains(&"super::x::Y".to_string()) && paths.contains(&"crate::shogi::Position::startpos".to_string())
    );
    assert!(!paths.iter().any(|p| p.contains("usi")), "{paths:?}");
    let modules = library_modules();
    let imports = imports(&modules);
    let of = |m: &[&str]| imports[&m.iter().map(|s| s.to_string()).collect::<ModPath>()].clone();
    let to = |m: &[&str]| m.iter().map(|s| s.to_string()).collect::<ModPath>();
    assert!(of(&["search", "threads"]).contains(&to(&["search", "worker"])));
    assert!(of(&["nnue", "accumulator"]).contains(&to(&["nnue", "network"])));
    assert!(of(&["usi"]).iter().any(|d| d[0] == "engine"));
    let layer = layers(&modules[&Vec::new()], &modules);
    assert!(layer["shogi"] < layer["search"] && layer["search"] < layer["engine"] && layer["engine"] < layer["cli"]);
}
