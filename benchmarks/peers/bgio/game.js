// A small roll-and-build game for boardgame.io, shaped like a two-player Machi Koro turn:
// the player to move rolls one die (server-side randomness), every player earns coins from
// the buildings the roll activates, then the mover builds one affordable building or passes,
// which ends the turn.  The first to own WIN buildings of the top kind (or the most points
// after MAX_TURNS turns) wins.  Both moves run only on the server (client: false), so a
// client's state changes only when the server has answered.

const CARDS = [
  // name, cost, activating roll, income, points
  { name: 'wheat', cost: 1, roll: [1], income: 1, points: 0 },
  { name: 'ranch', cost: 1, roll: [2], income: 1, points: 0 },
  { name: 'bakery', cost: 1, roll: [2, 3], income: 1, points: 0 },
  { name: 'cafe', cost: 2, roll: [3], income: 1, points: 0 },
  { name: 'shop', cost: 2, roll: [4], income: 3, points: 0 },
  { name: 'forest', cost: 3, roll: [5], income: 1, points: 0 },
  { name: 'mine', cost: 6, roll: [6], income: 5, points: 0 },
  { name: 'tower', cost: 10, roll: [], income: 0, points: 1 },
];
const WIN = 4;
const MAX_TURNS = 120;

function affordable(G, player) {
  return CARDS.map((c, i) => i).filter((i) => CARDS[i].cost <= G.coins[player]);
}

const RollBuild = {
  name: 'rollbuild',
  minPlayers: 2,
  maxPlayers: 2,
  setup: ({ ctx }) => ({
    coins: Array(ctx.numPlayers).fill(3),
    built: Array.from({ length: ctx.numPlayers }, () => CARDS.map((c, i) => (i < 2 ? 1 : 0))),
    rolled: null,
    log: [],
  }),
  moves: {
    roll: {
      client: false,
      move: ({ G, ctx, random }) => {
        if (G.rolled !== null) return 'INVALID_MOVE';
        const die = random.D6();
        G.rolled = die;
        for (let p = 0; p < ctx.numPlayers; p++) {
          CARDS.forEach((c, i) => {
            if (c.roll.includes(die)) G.coins[p] += c.income * G.built[p][i];
          });
        }
        G.log.push(`${ctx.currentPlayer} rolled ${die}`);
        if (G.log.length > 8) G.log.shift();
      },
    },
    build: {
      client: false,
      move: ({ G, ctx, events }, card) => {
        const p = Number(ctx.currentPlayer);
        if (G.rolled === null || !Number.isInteger(card) || card < 0 || card >= CARDS.length) return 'INVALID_MOVE';
        if (CARDS[card].cost > G.coins[p]) return 'INVALID_MOVE';
        G.coins[p] -= CARDS[card].cost;
        G.built[p][card] += 1;
        G.rolled = null;
        G.log.push(`${ctx.currentPlayer} built ${CARDS[card].name}`);
        if (G.log.length > 8) G.log.shift();
        events.endTurn();
      },
    },
    pass: {
      client: false,
      move: ({ G, ctx, events }) => {
        if (G.rolled === null) return 'INVALID_MOVE';
        G.rolled = null;
        G.log.push(`${ctx.currentPlayer} passed`);
        if (G.log.length > 8) G.log.shift();
        events.endTurn();
      },
    },
  },
  endIf: ({ G, ctx }) => {
    const towers = CARDS.length - 1;
    for (let p = 0; p < ctx.numPlayers; p++) {
      if (G.built[p][towers] >= WIN) return { winner: String(p) };
    }
    if (ctx.turn > MAX_TURNS) return { draw: true };
    return undefined;
  },
};

module.exports = { RollBuild, CARDS, affordable };
