/* Ludothek: being told things while a tab is open (issues 9 and 30).
 *
 * One WebSocket per tab (/live/me) hears "a game became your turn" (``turn``) and "a wait of yours
 * ended" (``waiting``: your move in another tab or device, a timeout, a game's end).  Then the tab
 * title's count ("(3) Ludothek") is fetched anew from /api/me/waiting and the lists of the home page
 * are refreshed.  The count is also re-read after every board swap (the player's own move can end a wait).
 *
 * The same socket brings the notices of the open-tab channel (`ludothek.workers.channels.tab`):
 * {"type": "notice", "id", "kind", "game", "title", "body", "path"}, each one the player wants in
 * their tabs (the account page's choices).  If the user allowed browser notifications, each is shown
 * once, however many tabs are open (its tag is the notice's id), and a click opens its path. */
(function () {
  "use strict";
  const body = document.body;
  if (!body || body.dataset.waiting === undefined) return;
  const canNotify = "Notification" in window;

  function setTitle(count) {
    const bare = document.title.replace(/^\(\d+\)\s*/, "");
    document.title = count > 0 ? `(${count}) ${bare}` : bare;
    body.dataset.waiting = String(count);
    const next = document.getElementById("next-game");  // stands out only while a game waits
    if (next) next.classList.toggle("btn-accent", count > 0);
  }

  function refreshLists() {
    if (!window.htmx) return;
    ["running-games", "my-open-games", "finished-games"].forEach((id) => {
      if (document.getElementById(id)) {
        htmx.ajax("GET", "/", { target: "#" + id, select: "#" + id, swap: "outerHTML" });
      }
    });
  }

  function notify(notice) {
    if (!canNotify || Notification.permission !== "granted" || !notice || !notice.title) return;
    // Only site-relative paths are followed (the server writes them so; nothing else is opened).
    const path = typeof notice.path === "string" && /^\/(?!\/)/.test(notice.path) ? notice.path : "/";
    const n = new Notification(notice.title, { body: notice.body || "", tag: `ludothek-notice-${notice.id}` });
    n.onclick = () => { window.focus(); location.href = path; };
  }

  // A turn heard but not counted is a turn missed: if the count cannot be read (a busy server,
  // a dropped connection), try again a few times, a little later each time.
  function update(attempt = 0) {
    const retry = () => {
      if (attempt < 5) setTimeout(() => update(attempt + 1), 500 * 2 ** attempt);
    };
    return fetch("/api/me/waiting", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
      .then((data) => {
        if (!data) { retry(); return; }
        setTitle(data.count);
      })
      .catch(retry);
  }

  let backoff = 1000;
  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${proto}://${location.host}/live/me`);
    // On (re)connecting, catch up: a turn may have come while the socket was not yet or no longer open.
    socket.onopen = () => { backoff = 1000; update(); };
    socket.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "notice") { notify(msg); return; }
      if (msg.type === "waiting") {  // a wait of mine ended (my move in another tab, a game's end)
        update();
        refreshLists();
        return;
      }
      if (msg.type !== "turn") return;
      update();
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

  document.addEventListener("ludothek:board", () => update());
  document.addEventListener("DOMContentLoaded", () => { connect(); permissionButton(); timezoneDefault(); });
})();
