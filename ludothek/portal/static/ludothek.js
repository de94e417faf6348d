/* Ludothek game page: one click on a [data-action] element = one engine action; live updates by WebSocket.
 * Boards may call window.ludothek.send(action) for multi-step UI and listen to the 'ludothek:board' event. */
(function () {
  "use strict";
  const root = () => document.getElementById("game");
  const csrf = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  let busy = false;
  let pending = false;

  function swapDone() {
    document.dispatchEvent(new CustomEvent("ludothek:board", { detail: { game: root() } }));
  }

  function refresh() {
    const g = root();
    if (!g || !window.htmx) return;
    if (busy) { pending = true; return; }
    busy = true;
    htmx.ajax("GET", g.dataset.boardUrl, { target: "#game", swap: "outerHTML" }).finally(() => {
      busy = false;
      if (pending) { pending = false; refresh(); }
    });
  }

  function send(action) {
    const g = root();
    if (!g || busy || !window.htmx) return Promise.resolve();
    busy = true;
    g.classList.add("sending");
    return htmx.ajax("POST", g.dataset.actUrl, {
      target: "#game", swap: "outerHTML",
      values: { action: action, seq: g.dataset.seq, csrf: csrf() },
    }).finally(() => {
      busy = false;
      if (pending) { pending = false; refresh(); }
    });
  }

  document.addEventListener("click", (ev) => {
    const el = ev.target.closest("[data-action]");
    const g = root();
    if (!el || !g || !g.contains(el)) return;
    ev.preventDefault();
    send(el.dataset.action);
  });

  let socket = null;
  let backoff = 500;
  function connect() {
    const g = root();
    if (!g || g.dataset.status === "cancelled") return;
    const status = document.getElementById("live-status");
    const proto = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${proto}://${location.host}/games/${g.dataset.game}/live`);
    socket.onopen = () => { backoff = 500; if (status) { status.textContent = "● " + status.dataset.on; status.className = "live-status on"; } };
    socket.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      const cur = root();
      if (!cur) return;
      if ((msg.type === "update" || msg.type === "hello") && String(msg.seq) !== cur.dataset.seq) refresh();
      else if (msg.type === "update" && msg.status !== cur.dataset.status) refresh();
    };
    socket.onclose = () => {
      if (status) { status.textContent = "○ " + status.dataset.off; status.className = "live-status off"; }
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 10000);
    };
  }

  /* New game form: show only the seats the chosen number of players has. */
  function seatRows() {
    const players = document.getElementById("players");
    if (!players) return;
    document.querySelectorAll(".seat-row").forEach((row) => {
      row.hidden = Number(row.dataset.seat) >= Number(players.value);
    });
  }
  document.addEventListener("change", (ev) => { if (ev.target.id === "players") seatRows(); });
  document.addEventListener("DOMContentLoaded", seatRows);

  document.addEventListener("htmx:afterSwap", swapDone);
  document.addEventListener("DOMContentLoaded", () => { connect(); swapDone(); });
  window.ludothek = { send: send, refresh: refresh };
})();
