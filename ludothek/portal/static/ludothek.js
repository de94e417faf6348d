/* Ludothek game page: one click on a [data-action] element = one engine action; live updates by WebSocket.
 * Boards may call window.ludothek.send(action) for multi-step UI and listen to the 'ludothek:board' event.
 *
 * Clicks are never dropped: a click that arrives while the board is being refreshed or while another
 * action is on its way waits in a queue and is sent afterwards, against the sequence number of the board
 * the player clicked on.  If the game moved on in between, the server refuses it as stale with a clear
 * message (it is never applied to a position the player did not see), and it can never be applied twice.
 * While a request is in flight the board is marked busy (dimmed, progress cursor, aria-busy). */
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  const root = () => document.getElementById("game");
  const csrf = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  let busy = false;          // a request that replaces #game is in flight
  let pending = false;       // a live refresh is wanted after it
  let inflight = null;       // {action, seq} being sent now
  const queue = [];          // clicks waiting: {action, seq}

  /* Keyboard play: every clickable board element that is no button or link gets a tab stop and the
   * button role (Enter or Space sends its action), unless it holds other controls (those stay the tab
   * stops then; nested controls confuse screen readers).  After a swap the focus returns to the board
   * if it was there: to the same element if it is still offered, else (for keyboard users only, so a
   * mouse user's page never jumps) to the next decision. */
  const PLAIN = "[data-action]:not(button):not(a):not(input):not(select):not(tr)";  // rows keep their table role; their boards offer buttons too
  const CONTROLS = "button, a[href], input, select, textarea, [data-action]";
  let focusBefore = null;    // {action, id} of the focused board element before a swap, if any
  let byKeyboard = false;    // the player's last input was a key (then the focus follows the game)
  document.addEventListener("keydown", () => { byKeyboard = true; }, true);
  document.addEventListener("pointerdown", () => { byKeyboard = false; }, true);

  function keyboardable(g) {
    g.querySelectorAll(PLAIN).forEach((el) => {
      if (el.querySelector(CONTROLS)) return;
      if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "0");
      if (!el.hasAttribute("role")) el.setAttribute("role", "button");
    });
  }

  function rememberFocus() {
    const g = root();
    const el = document.activeElement;
    if (!g) { focusBefore = null; return; }
    // Focus lost with the last swap (nothing to act on then): keep waiting to put it back.
    if (!el || el === document.body) return;
    if (!g.contains(el)) { focusBefore = null; return; }  // the player is elsewhere (chat, menu): leave it
    focusBefore = { action: el.dataset ? el.dataset.action || "" : "", id: el.id || "" };
  }

  function restoreFocus(g) {
    const was = focusBefore;
    if (!was) return;
    const active = document.activeElement;
    if (active && active !== document.body && !g.contains(active)) { focusBefore = null; return; }
    const visible = (el) => el && el.getClientRects().length > 0;
    let el = was.id ? document.getElementById(was.id) : null;
    if (!visible(el) && was.action) el = [...g.querySelectorAll("[data-action]")].find((e) => e.dataset.action === was.action && visible(e));
    // A mouse user keeps their scroll position: only the same control gets the focus back, quietly.
    if (!byKeyboard) { if (visible(el)) el.focus({ preventScroll: true }); focusBefore = null; return; }
    if (!visible(el)) el = [...g.querySelectorAll("#board .btn-accent[data-action], #board [data-action], #board form.picker input:not([disabled]), #board form.picker button:not([disabled]), #legal [data-action]")].find(visible);
    if (el) { el.focus({ preventScroll: false }); focusBefore = null; }  // else: wait for a swap that offers something
  }

  /* The folded "all actions" list stays as the player left it: a live update re-renders the board
   * (sometimes twice for the same position), and it must not fold the list away under their pointer. */
  let allActionsOpen = false;
  document.addEventListener("toggle", (ev) => {
    const el = ev.target;
    if (el instanceof HTMLDetailsElement && el.matches("#legal details.all-actions")) allActionsOpen = el.open;
  }, true);

  /* A turn waiting for its player's confirmation counts down; when it is due the page looks again
   * (the server hands it on; its live update may not reach a page whose move number stays the same). */
  let countdown = null;
  function startCountdown(g) {
    if (countdown) { clearInterval(countdown); countdown = null; }
    const spans = g ? [...g.querySelectorAll("[data-countdown]")] : [];
    if (!spans.length) return;
    const end = Date.now() + 1000 * Number(spans[0].dataset.countdown);
    countdown = setInterval(() => {
      const left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
      spans.forEach((s) => { s.textContent = String(left); });
      if (Date.now() > end + 1500) { clearInterval(countdown); countdown = null; refresh(); }
    }, 250);
  }

  function swapDone() {
    const g = root();
    startCountdown(g);
    if (g && allActionsOpen) g.querySelectorAll("#legal details.all-actions").forEach((el) => { el.open = true; });
    if (g) { keyboardable(g); restoreFocus(g); }
    document.dispatchEvent(new CustomEvent("ludothek:board", { detail: { game: g } }));
  }

  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    const el = ev.target;
    const g = root();
    if (!(el instanceof Element) || !el.matches(PLAIN) || !g || !g.contains(el)) return;
    ev.preventDefault();
    send(el.dataset.action);
  });

  function setBusy(on) {
    busy = on;
    const g = root();
    if (!g) return;
    g.classList.toggle("sending", on);
    if (on) g.setAttribute("aria-busy", "true"); else g.removeAttribute("aria-busy");
  }

  /* After a request: first the clicks that waited, then a refresh a live update asked for. */
  function next() {
    setBusy(false);
    inflight = null;
    if (queue.length) { const item = queue.shift(); post(item.action, item.seq); return; }
    if (pending) { pending = false; refresh(); }
  }

  function refresh() {
    const g = root();
    if (!g || !window.htmx) return;
    if (busy) { pending = true; return; }
    setBusy(true);
    rememberFocus();
    htmx.ajax("GET", g.dataset.boardUrl, { target: "#game", swap: "outerHTML" })
      .finally(() => { thinking(lastThinking); next(); });
  }

  function post(action, seq) {
    const g = root();
    if (!g || !window.htmx) return Promise.resolve();
    setBusy(true);
    rememberFocus();
    inflight = { action: action, seq: seq };
    return htmx.ajax("POST", g.dataset.actUrl, {
      target: "#game", swap: "outerHTML",
      values: { action: action, seq: seq, csrf: csrf() },
    }).finally(next);
  }

  /* Submit one engine action, made against the board the player sees now. */
  function send(action) {
    const g = root();
    if (!g || !window.htmx) return Promise.resolve();
    const seq = g.dataset.seq;
    if (busy) {
      // The very same click again (a double click) is already on its way: it must not be sent twice.
      const same = (x) => x && x.action === action && x.seq === seq;
      if (!same(inflight) && !queue.some(same)) queue.push({ action: action, seq: seq });
      return Promise.resolve();
    }
    return post(action, seq);
  }

  document.addEventListener("click", (ev) => {
    const el = ev.target.closest("[data-action]");
    const g = root();
    if (!el || !g || !g.contains(el)) return;
    ev.preventDefault();
    send(el.dataset.action);
  });

  /* A bot worker took (or gave back) the turn of the board's move: say so on the bot's panel, without
   * fetching the board.  Its move, or the claim running out (a worker that died: look again then), ends it. */
  let thinkingTimer = null;
  let lastThinking = null;  // news that came while the board was being fetched: shown once it is there
  function thinking(msg) {
    const cur = root();
    if (!msg || !cur || Number(msg.seq) !== Number(cur.dataset.seq)) return;
    cur.querySelectorAll(".players .player").forEach((li) => {
      const note = li.querySelector(".thinking");
      const on = msg.seat !== null && msg.seat !== undefined && Number(li.dataset.seat) === Number(msg.seat);
      li.classList.toggle("is-thinking", on);
      if (!note) return;
      if (!on) { note.textContent = ""; return; }
      if (note.textContent) return;
      const who = document.createElement("span");
      who.className = "sr-only";
      who.textContent = note.dataset.who || "";
      note.append(who, note.dataset.text || "");
    });
    clearTimeout(thinkingTimer);
    if (msg.seat !== null && msg.seat !== undefined && msg.seconds > 0) {
      thinkingTimer = setTimeout(() => { const g = root(); if (g && g.dataset.seq === String(msg.seq)) refresh(); },
                                 msg.seconds * 1000 + 500);
    }
  }

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
      // Chat messages (only those this user may read ever arrive) go to the chat panel (chat.js).
      if (msg.type === "chat") { document.dispatchEvent(new CustomEvent("ludothek:chat", { detail: msg.message })); return; }
      if (msg.type === "hello") document.dispatchEvent(new CustomEvent("ludothek:live", { detail: msg }));
      const cur = root();
      if (!cur) return;
      // Only news makes a refresh: the echo of a move this page already shows (or an older one) does not.
      const newer = Number(msg.seq) > Number(cur.dataset.seq);
      if (msg.type === "thinking") { lastThinking = msg; if (!newer) thinking(msg); return; }
      if ((msg.type === "update" || msg.type === "hello") && newer) refresh();
      // A turn handed on without a chance step keeps the move number; who is to move changes.
      else if (msg.type === "update" && String(msg.to_move ?? "") !== cur.dataset.toMove) refresh();
      else if (msg.type === "update" && msg.status !== cur.dataset.status) refresh();
      // Seats or votes changed without a move (an offer to abandon, its decline, a resignation).
      else if (msg.type === "update" && msg.seats_rev != null && String(msg.seats_rev) !== cur.dataset.seatsRev) refresh();
    };
    socket.onclose = (ev) => {
      if (status) { status.textContent = "○ " + status.dataset.off; status.className = "live-status off"; }
      // 1008: live updates need a login (a visitor reloads instead), 1013: too many live tabs of this user,
      // or the server holds all the sockets it can: try again later.
      if (ev.code === 1008) return;
      if (ev.code === 1013) backoff = 10000;
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 10000);
    };
  }

  /* Resigning asks first (issue 30): the button's form opens the question in a native dialog, whose own
   * form confirms.  Without a dialog (or without this script) the post itself answers with the question. */
  document.addEventListener("submit", (ev) => {
    const form = ev.target;
    /* The same two steps call a tournament off (its organiser's "Call off"). */
    const asks = { "resign-form": "resign-dialog", "cancel-tournament-form": "cancel-tournament-dialog" };
    if (!(form instanceof HTMLFormElement) || !Object.hasOwn(asks, form.id)) return;
    const dialog = document.getElementById(asks[form.id]);
    if (!dialog || typeof dialog.showModal !== "function") return;
    ev.preventDefault();
    dialog.showModal();
  });

  /* New game form: only the seats 2..N of the chosen number of players N are shown and submitted
   * (hidden rows are disabled, so the browser leaves them out); the name field only for an invitation. */
  function seatRows() {
    const players = document.getElementById("players");
    if (!players) return;
    document.querySelectorAll(".seat-row").forEach((row) => {
      const off = Number(row.dataset.seat) >= Number(players.value);
      row.hidden = off;
      const kind = row.querySelector("select");
      const name = row.querySelector("input");
      if (kind) { kind.disabled = off; row.dataset.kind = kind.value; }
      if (name) { name.disabled = off || !kind || kind.value !== "invite"; name.required = !name.disabled; }
    });
  }
  document.addEventListener("change", (ev) => {
    if (ev.target.id === "players" || (ev.target.closest && ev.target.closest(".seat-row"))) seatRows();
  });
  document.addEventListener("DOMContentLoaded", seatRows);

  /* One click on a friend's name invites them: the first free seat (an open invitation or an empty
   * invitation) takes their name, adding a seat when the game allows more; a second click takes it back. */
  const rowKind = (row) => row.querySelector("select");
  const rowName = (row) => row.querySelector("input");
  function friendChips() {
    const rows = Array.from(document.querySelectorAll(".seat-row")).filter((r) => !r.hidden);
    const invited = rows.filter((r) => rowKind(r).value === "invite").map((r) => rowName(r).value.trim().toLowerCase());
    document.querySelectorAll(".friend-chip").forEach((chip) => {
      chip.setAttribute("aria-pressed", invited.includes(chip.dataset.invite.toLowerCase()) ? "true" : "false");
    });
  }
  function inviteFriend(name) {
    const players = document.getElementById("players");
    const visible = () => Array.from(document.querySelectorAll(".seat-row")).filter((r) => !r.hidden);
    const status = document.getElementById("friend-invite-status");
    if (status) status.textContent = "";
    const same = visible().find((r) => rowKind(r).value === "invite" && rowName(r).value.trim().toLowerCase() === name.toLowerCase());
    if (same) {
      rowKind(same).value = "open";
      rowName(same).value = "";
    } else {
      const free = (r) => rowKind(r).value === "open" || (rowKind(r).value === "invite" && !rowName(r).value.trim());
      let row = visible().find(free);
      if (!row && players) {
        const more = Array.from(players.options).find((o) => Number(o.value) === Number(players.value) + 1);
        if (more) { players.value = more.value; seatRows(); row = visible().find(free); }
      }
      if (!row) {
        const box = document.getElementById("friend-invites");
        if (status && box) status.textContent = box.dataset.full;
        return;
      }
      rowKind(row).value = "invite";
      rowName(row).value = name;
    }
    seatRows();
    friendChips();
  }
  document.addEventListener("click", (ev) => {
    const chip = ev.target.closest && ev.target.closest(".friend-chip");
    if (!chip) return;
    ev.preventDefault();
    inviteFriend(chip.dataset.invite);
  });
  document.addEventListener("input", (ev) => { if (ev.target.closest && ev.target.closest(".seat-row")) friendChips(); });
  document.addEventListener("change", friendChips);
  document.addEventListener("DOMContentLoaded", friendChips);

  /* A page answering a POST that cannot redirect (a new API token is shown once) names the address it
   * stands for: the history entry becomes that address, so a reload shows it rather than sending the
   * form again. */
  document.addEventListener("DOMContentLoaded", () => {
    const marked = document.querySelector("[data-replace-url]");
    if (marked && marked.dataset.replaceUrl.startsWith("/") && !marked.dataset.replaceUrl.startsWith("//")) {
      history.replaceState(null, "", marked.dataset.replaceUrl);
    }
  });

  /* Never fail silently: a click that could not be sent, or a server error, is said on the board. */
  function showError(key) {
    const g = root();
    const status = document.getElementById("live-status");
    const text = status && status.dataset[key];
    if (!g || !text) return;
    let flash = document.getElementById("move-error");
    if (!flash) {
      flash = document.createElement("p");
      flash.id = "move-error";
      flash.className = "flash error";
      flash.setAttribute("role", "alert");
      const head = g.querySelector(".game-head");
      if (head) head.after(flash); else g.prepend(flash);
    }
    flash.textContent = text;
  }
  document.addEventListener("htmx:sendError", () => showError("errNetwork"));
  document.addEventListener("htmx:beforeSwap", (ev) => {
    const xhr = ev.detail.xhr;
    if (xhr && xhr.status >= 500 && !(xhr.responseText || "").includes('id="game"')) {
      ev.detail.shouldSwap = false;  // keep the board instead of replacing it with an error text
      showError("errServer");
      setTimeout(refresh, 1500);
    }
  });

  /* A game still waiting for players: the store announces only its start, so look at the seats now and
   * then to show who joined or left meanwhile. */
  setInterval(() => {
    const g = root();
    if (g && g.dataset.status === "open" && !busy && document.visibilityState === "visible") refresh();
  }, 5000);

  document.addEventListener("htmx:afterSwap", swapDone);
  document.addEventListener("DOMContentLoaded", () => { connect(); swapDone(); });
  window.ludothek = { send: send, refresh: refresh };
})();
