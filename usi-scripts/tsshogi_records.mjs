// Writes the records of tests/data/records/ the way ShogiHome's record library, tsshogi, writes
// them, with tsshogi's own view of each game (final SFEN, moves, players, ending) in
// tsshogi_facts.json, so that the Rust tests can check hayate's reading against it. Node is
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

fs.writeFileSync(
  path.join(outDir, "tsshogi_facts.json"),
  JSON.stringify({ generator: `tsshogi ${version}`, records: out }, null, 2) + "\n",
);
console.log(`wrote ${Object.keys(out).length} records to ${outDir} with tsshogi ${version}`);
