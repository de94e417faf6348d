/* Ludothek: being told it is my turn while a tab is open (issue 9).
 *
 * One WebSocket per tab (/live/me) hears "a game became your turn" (``turn``) and "a wait of yours
 * ended" (``waiting``: your move in another tab or device, a game's end).  Then the tab title's count
 * ("(3) Ludothek") is fetched anew from /api/me/waiting, the lists of the home page are refreshed,
 * and, if the user allowed it, a browser notification is shown.  Several tabs show the same
 * notification only once: its tag names the game and move.  The count is also re-read after
 * every board swap (the player's own move can end a wait). */
(function () {
  "use strict";
  const body = document.body;
  if (!body || body.dataset.waiting === undefined) return;
  const canNotify = "Notification" in window;

  function setTitle(count) {
    const bare = document.title.replace(/^\(\d+\)\s*/, "");
    document.title = count > 0 ? `(${count}) ${bare}` : bare;
    body.dataset.waiting = String(count);
  }

  function refreshLists() {
    if (!window.htmx) return;
    ["running-games", "my-open-games", "finished-games"].forEach((id) => {
      if (document.getElementById(id)) {
        htmx.ajax("GET", "/", { target: "#" + id, select: "#" + id, swap: "outerHTML" });
      }
    });
  }

  function notify(game) {
    if (!canNotify || Notification.permission !== "granted" || !game) return;
    const names = (game.seats || []).map((s) => s.name).filter(Boolean).join(", ");
    const n = new Notification(body.dataset.notifyTitle || "Ludothek", {
      body: `${game.title} #${game.id} – ${names}`,
      tag: `ludothek-${game.id}-${game.seq}`,
    });
    n.onclick = () => { window.focus(); location.href = `/games/${game.id}`; };
  }

  // A turn heard but not counted is a turn missed: if the count cannot be read (a busy server,
  // a dropped connection), try again a few times, a little later each time.
  function update(turn, attempt = 0) {
    const retry = () => {
      if (attempt < 5) setTimeout(() => update(turn, attempt + 1), 500 * 2 ** attempt);
    };
    return fetch("/api/me/waiting", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
      .then((data) => {
        if (!data) { retry(); return; }
        setTitle(data.count);
        if (turn) notify(data.games.find((g) => g.id === turn.game));
      })
      .catch(retry);
  }

  let backoff = 1000;
  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${proto}://${location.host}/live/me`);
    // On (re)connecting, catch up: a turn may have come while the socket was not yet or no longer open.
    socket.onopen = () => { backoff = 1000; update(null); };
    socket.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "waiting") {  // a wait of mine ended (my move in another tab, a game's end)
        update(null);
        refreshLists();
        return;
      }
      if (msg.type !== "turn") return;
      update(msg);
      refreshLists();
      document.dispatchEvent(new CustomEvent("ludothek:turn", { detail: msg }));
    };
    socket.onclose = () => { setTimeout(connect, backoff); backoff = Math.min(backoff * 2, 30000); };
  }

  function permissionButton() {
    const button = document.getElementById("browser-notify");
    if (!button || !canNotify || Notification.permission === "granted") return;
    button.hidden = false;
    button.addEventListener("click", () => {
      Notification.requestPermission().then((p) => { if (p === "granted") button.hidden = true; });
    });
  }

  function timezoneDefault() {
    const field = document.getElementById("mail-timezone");
    if (field && field.dataset.default === "browser") {
      try { field.value = Intl.DateTimeFormat().resolvedOptions().timeZone || field.value; } catch (e) { /* keep */ }
    }
  }

  document.addEventListener("ludothek:board", () => update(null));
  document.addEventListener("DOMContentLoaded", () => { connect(); permissionButton(); timezoneDefault(); });
})();
