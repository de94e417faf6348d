// The benchmark's players for boardgame.io: `node client.js PORT TABLES THINK WARMUP WINDOW SEED`.
//
// TABLES two-seat tables, each seat its own boardgame.io client (the library's own `Client` with its
// `SocketIO` transport: one socket per seat).  A seat moves as soon as it is its turn and its previous
// move has been answered (the server's update reached it), after THINK seconds; a move is a random
// legal one.  A finished game is replaced by a new one at once (created and joined through the
// server's lobby API), so the load stays the same through the window.  Timed: from a move of seat 0
// being sent to seat 1's client receiving the state after it (as the Ludothek side times it).
//
// Prints "window-start" after WARMUP seconds and "window-end" WINDOW seconds later (the caller reads
// the server's CPU time at those two lines), then one line of JSON: moves answered in the window,
// games finished, the latencies in milliseconds, refused or stuck moves.
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { RollBuild, CARDS, affordable } = require('./game');

const [port, tables, think, warmup, windowSeconds, seed] = process.argv.slice(2).map(Number);
const base = `http://127.0.0.1:${port}`;
let rng = seed || 1;
function random() { // a small deterministic generator (mulberry32)
  rng |= 0; rng = (rng + 0x6d2b79f5) | 0;
  let t = Math.imul(rng ^ (rng >>> 15), 1 | rng);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const stats = { moves: 0, games: 0, stuck: 0, update_ms: [], measuring: false };
let stopping = false;

async function post(path, body) {
  const res = await fetch(base + path, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.json();
}

function choose(G, player) {
  if (G.rolled === null) return ['roll', []];
  const options = affordable(G, player).map((i) => ['build', [i]]);
  options.push(['pass', []]);
  return options[Math.floor(random() * options.length)];
}

async function game() {
  const { matchID } = await post('/games/rollbuild/create', { numPlayers: 2 });
  const credentials = [];
  for (const playerID of ['0', '1']) {
    const joined = await post(`/games/rollbuild/${matchID}/join`, { playerID, playerName: `p${playerID}` });
    credentials.push(joined.playerCredentials);
  }
  const pending = new Map(); // stateID a move of seat 0 was made against -> when it was sent
  const clients = ['0', '1'].map((playerID, seat) => Client({
    game: RollBuild, numPlayers: 2, matchID, playerID, credentials: credentials[seat], debug: false,
    multiplayer: SocketIO({ server: base }),
  }));
  await new Promise((resolve) => {
    let finished = false;
    const finish = () => { if (!finished) { finished = true; resolve(); } };
    clients.forEach((client, seat) => {
      let waitingFor = -1; // the stateID this seat's last move was made against
      let timer = null;
      const act = () => {
        const state = client.getState();
        if (finished || state === null) return;
        if (stopping || state.ctx.gameover) { finish(); return; }
        if (state.ctx.currentPlayer !== String(seat) || state._stateID <= waitingFor) return;
        const [move, args] = choose(state.G, seat);
        waitingFor = state._stateID;
        const go = () => {
          if (seat === 0) pending.set(state._stateID, performance.now());
          timer = setTimeout(() => { stats.stuck += 1; waitingFor = -1; act(); }, 5000);
          client.moves[move](...args);
        };
        if (think > 0) setTimeout(go, think * 1000); else go();
      };
      client.subscribe((state) => {
        if (state === null) return;
        const now = performance.now();
        if (seat === 1) {
          for (const [stateID, sent] of pending) {
            if (stateID < state._stateID) {
              pending.delete(stateID);
              if (stats.measuring) stats.update_ms.push(now - sent);
            }
          }
        }
        if (waitingFor >= 0 && state._stateID > waitingFor && timer !== null) {
          clearTimeout(timer); timer = null;
          if (stats.measuring) stats.moves += 1;
        }
        act();
      });
      client.start();
    });
  });
  clients.forEach((c) => c.stop());
  if (stats.measuring && !stopping) stats.games += 1;
}

async function table() {
  while (!stopping) await game();
}

async function main() {
  const running = Array.from({ length: tables }, () => table());
  await new Promise((r) => setTimeout(r, warmup * 1000));
  stats.measuring = true;
  process.stdout.write('window-start\n');
  const start = performance.now();
  await new Promise((r) => setTimeout(r, windowSeconds * 1000));
  stats.measuring = false;
  const seconds = (performance.now() - start) / 1000;
  process.stdout.write('window-end\n');
  stopping = true;
  await Promise.race([Promise.all(running), new Promise((r) => setTimeout(r, 3000))]);
  // exit only once the line is written: a pipe takes it in pieces, and exiting earlier cuts it off
  process.stdout.write(JSON.stringify({
    seconds, moves: stats.moves, games: stats.games, stuck: stats.stuck, update_ms: stats.update_ms,
  }) + '\n', () => process.exit(0));
}

main().catch((err) => { process.stderr.write(String(err && err.stack || err) + '\n'); process.exit(1); });
