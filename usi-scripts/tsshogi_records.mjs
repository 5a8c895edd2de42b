// Writes the records of tests/data/records/ the way ShogiHome's record library, tsshogi, writes
// them, with tsshogi's own view of each game (final SFEN, moves, players, ending) in
// tsshogi_facts.json (tsshogi_tsume.json for the tsume problems), so that the Rust tests can
// check hayate's reading against it. Node is
// only needed to regenerate the data, never to run the tests.
//
//   mkdir -p /tmp/node && (cd /tmp/node && npm install tsshogi@2.2.0)
//   node usi-scripts/tsshogi_records.mjs tests/data/records /tmp/node
//
// Arguments: the output folder, and a folder whose node_modules holds tsshogi (default: the
// current folder).

import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [outDir, nodeHome = process.cwd()] = process.argv.slice(2);
if (!outDir) {
  console.error("usage: node tsshogi_records.mjs OUT_DIR [FOLDER_WITH_NODE_MODULES]");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(nodeHome), "noop.js"));
const ts = require("tsshogi");
// The package does not export its package.json: read it next to the resolved entry point.
const version = JSON.parse(
  fs.readFileSync(path.join(path.dirname(require.resolve("tsshogi")), "..", "..", "package.json"), "utf8"),
).version;

/** A record from `sfen` (or the start position) with the USI moves applied; throws on a bad move. */
function play(sfen, usiMoves) {
  const position = sfen ? ts.Position.newBySFEN(sfen) : new ts.Position();
  if (!position) throw new Error(`bad SFEN ${sfen}`);
  const record = new ts.Record(position);
  usiMoves.forEach((usi, i) => {
    const move = record.position.createMoveByUSI(usi);
    if (!move || !record.position.isValidMove(move)) throw new Error(`move ${i + 1} '${usi}' is not legal`);
    if (!record.append(move)) throw new Error(`move ${i + 1} '${usi}' was refused`);
    // A time for every move (seconds), so that the records carry times like real ones.
    record.current.setElapsedMs(((i % 7) + 1) * 1000);
  });
  return record;
}

/** Ends the record with a special move and goes to its last node. */
function end(record, special) {
  if (special) record.append(special);
  record.goto(Number.MAX_SAFE_INTEGER);
  return record;
}

/** What tsshogi itself says about a record: the facts the tests compare against. */
function facts(record) {
  let moves = 0;
  for (let n = record.first.next; n && n.move instanceof ts.Move; n = n.next) moves++;
  const last = record.first.next ? lastNode(record) : record.first;
  // The position after the last move, numbered from the start position's move number.
  record.goto(moves);
  const startNumber = Number(record.initialPosition.sfen.split(" ")[3]);
  const finalSfen = record.position.getSFEN(startNumber + moves);
  const repetition = record.repetition;
  const perpetualCheck = record.perpetualCheck;
  record.goto(Number.MAX_SAFE_INTEGER);
  return {
    start_sfen: record.initialPosition.sfen,
    final_sfen: finalSfen,
    moves,
    black: ts.getBlackPlayerName(record.metadata) ?? null,
    white: ts.getWhitePlayerName(record.metadata) ?? null,
    special: last.move instanceof ts.Move ? null : last.move.type,
    repetition,
    perpetual_check: perpetualCheck ?? null,
  };
}

function lastNode(record) {
  let n = record.first;
  while (n.next) n = n.next;
  return n;
}

const out = {};
function write(name, text, record) {
  fs.writeFileSync(path.join(outDir, name), text);
  out[name] = facts(record);
}

fs.mkdirSync(outDir, { recursive: true });

// An even game with captures, a promotion, a declined promotion, same-square recaptures and
// drops, resigned by Black: as JKF, and as the USI line of getUSI({resign: true}).
{
  const moves = "7g7f 3c3d 8h2b+ 3a2b B*4e 7a6b 4e3d 8c8d 3d2c 2b2c 2g2f B*5e".split(" ");
  const r = end(play(null, moves), ts.SpecialMoveType.RESIGN);
  r.metadata.setStandardMetadata(ts.RecordMetadataKey.BLACK_NAME, "先手太郎");
  r.metadata.setStandardMetadata(ts.RecordMetadataKey.WHITE_NAME, "後手花子");
  r.metadata.setStandardMetadata(ts.RecordMetadataKey.TOURNAMENT, "tsshogi test");
  r.goto(3);
  r.current.comment = "角交換\n#評価値=120";
  r.goto(Number.MAX_SAFE_INTEGER);
  write("even_game.jkf", ts.exportJKFString(r), r);
  write("even_game.usi", r.getUSI({ resign: true }) + "\n", r);
}

// A two-piece handicap (preset "2"): White, the giver, moves first; interrupted.
{
  const moves = "7a6b 7g7f 5c5d 2g2f 5d5e 2f2e 5a4b 2e2d".split(" ");
  const r = end(play(ts.InitialPositionSFEN.HANDICAP_2PIECES, moves), ts.SpecialMoveType.INTERRUPT);
  r.metadata.setStandardMetadata(ts.RecordMetadataKey.SHITATE_NAME, "下手の人");
  r.metadata.setStandardMetadata(ts.RecordMetadataKey.UWATE_NAME, "上手の人");
  write("handicap_2piece.jkf", ts.exportJKFString(r), r);
}

// A custom position (initial.data): White to move, promoted pieces on the board, pieces in
// both hands; White's dragon checks, a pawn drop checks again, Black takes it; White resigns.
{
  const sfen = "8k/9/6+P2/9/4+r4/9/9/9/K8 w G2p 1";
  const r = end(play(sfen, "5e5i 9i8h P*8g 8h8g".split(" ")), ts.SpecialMoveType.RESIGN);
  r.metadata.setStandardMetadata(ts.RecordMetadataKey.BLACK_NAME, "Black");
  r.metadata.setStandardMetadata(ts.RecordMetadataKey.WHITE_NAME, "White");
  write("custom_position.jkf", ts.exportJKFString(r), r);
}

// Sennichite: after 7g7f 3c3d both rooks shuffle until the position after move 2 has come a
// fourth time (move 14); tsshogi's Record counts it and the game is recorded as a draw.
{
  const cycle = "2h3h 8b7b 3h2h 7b8b".split(" ");
  const moves = ["7g7f", "3c3d", ...cycle, ...cycle, ...cycle];
  const r = play(null, moves);
  if (!r.repetition) throw new Error("tsshogi does not see the repetition");
  end(r, ts.SpecialMoveType.REPETITION_DRAW);
  r.metadata.setStandardMetadata(ts.RecordMetadataKey.BLACK_NAME, "千日手先手");
  r.metadata.setStandardMetadata(ts.RecordMetadataKey.WHITE_NAME, "千日手後手");
  write("sennichite.kif", ts.exportKIF(r), r);
  write("sennichite.csa", ts.exportCSA(r), r);
  write("sennichite.jkf", ts.exportJKFString(r), r);
  write("sennichite.usi", r.getUSI({ resign: true }) + "\n", r);
}

// Tsume problems as collections write them: the defender's hand as "the rest of the pieces"
// (Kifu for Windows' 残りの駒全部, and two short forms). From the public kingless problems whose
// defender holds every piece not on the board or in the attacker's hand, with YaneuraOu's mate
// line: tsshogi writes the record with the hand in full, then the hand line is replaced; the
// facts (tsshogi_tsume.json) keep tsshogi's start SFEN.
const tsume = {};
{
  const corpus = fs
    .readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), "..", "tests", "data", "kingless_mates_public.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
  const set = { p: 18, l: 4, n: 4, s: 4, g: 4, b: 2, r: 2 };
  // Pieces of each kind anywhere in the SFEN (board and both hands), kings left out.
  const counts = (sfen) => {
    const [board, , hand] = sfen.split(" ");
    const c = {};
    for (const ch of board.replace(/\+/g, "")) {
      const k = ch.toLowerCase();
      if (k in set) c[k] = (c[k] ?? 0) + 1;
    }
    for (const m of hand.matchAll(/(\d*)([a-zA-Z])/g)) {
      const k = m[2].toLowerCase();
      if (k in set) c[k] = (c[k] ?? 0) + (m[1] ? Number(m[1]) : 1);
    }
    return c;
  };
  const whole = (sfen) => Object.entries(set).every(([k, n]) => (counts(sfen)[k] ?? 0) === n);
  const spellings = ["残りの駒全部", "残り全部", "残駒全部"];
  const picked = [
    ...corpus.filter((p) => p.yo_answer === "mate" && p.sfen.split(" ")[1] === "b" && whole(p.sfen)).slice(0, 4),
    ...corpus.filter((p) => p.yo_answer === "mate" && p.sfen.split(" ")[1] === "w" && whole(p.sfen)).slice(0, 2),
  ];
  picked.forEach((p, i) => {
    const r = end(play(p.sfen, p.yo_line), ts.SpecialMoveType.MATE);
    const defender = p.sfen.split(" ")[1] === "b" ? "後手" : "先手";
    const rest = spellings[i % spellings.length];
    const kif = ts
      .exportKIF(r)
      .split("\n")
      .map((l) => (l.startsWith(`${defender}の持駒：`) ? `${defender}の持駒：${rest}` : l))
      .join("\n");
    if (!kif.includes(`${defender}の持駒：${rest}`)) throw new Error(`${p.id}: no ${defender} hand line`);
    const name = `tsume_${p.id}.kif`;
    fs.writeFileSync(path.join(outDir, name), kif);
    tsume[name] = { ...facts(r), corpus_id: p.id, corpus_sfen: p.sfen, rest };
  });
}
fs.writeFileSync(
  path.join(outDir, "tsshogi_tsume.json"),
  JSON.stringify({ generator: `tsshogi ${version}`, records: tsume }, null, 2) + "\n",
);

fs.writeFileSync(
  path.join(outDir, "tsshogi_facts.json"),
  JSON.stringify({ generator: `tsshogi ${version}`, records: out }, null, 2) + "\n",
);
console.log(
  `wrote ${Object.keys(out).length} records and ${Object.keys(tsume).length} tsume problems to ${outDir} with tsshogi ${version}`,
);
