// boardgame.io's own server (Koa + socket.io) with its default in-memory storage, serving the
// roll-and-build game: `node server.js PORT`.  Prints "ready" once it listens.
const { Server } = require('boardgame.io/server');
const { RollBuild } = require('./game');

const port = Number(process.argv[2] || 8000);
const server = Server({ games: [RollBuild] });
server.run(port, () => {
  process.stdout.write('ready\n');
});
