/* Ludothek: the game chat (issue 12).  Messages arrive over the game's live socket (ludothek.js hands them
 * on as the 'ludothek:chat' event); sending and reporting go through the page's own forms with fetch, which
 * answer with JSON in the reader's language.  Every text is inserted with textContent: a message is never
 * HTML.  After the socket (re)connects, the messages written meanwhile are fetched once. */
(function () {
  "use strict";
  const panel = () => document.getElementById("chat");
  const csrf = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";

  function lastId() {
    const items = document.querySelectorAll("#chat-list > li[data-id]");
    return items.length ? Number(items[items.length - 1].dataset.id) : 0;
  }

  function reportForm(id) {
    const tpl = document.getElementById("chat-report-template");
    if (!tpl) return null;
    const node = tpl.content.firstElementChild.cloneNode(true);
    node.querySelector("form").setAttribute("action", `/chat/${id}/report`);
    return node;
  }

  function atMoveText(seq) {
    const box = panel();
    return ((box && box.dataset.atMove) || "#{n}").replace("{n}", String(seq));
  }

  // The time of day in the reader's language and time zone (the page's data-lang, data-tz), as the
  // server writes it for the lines it renders: "move 3 · 10:24".
  function timeOfDay(iso) {
    const box = panel();
    const when = new Date(iso);
    if (!box || Number.isNaN(when.getTime())) return "";
    try {
      return " · " + new Intl.DateTimeFormat(box.dataset.lang || undefined,
        { hour: "numeric", minute: "2-digit", timeZone: box.dataset.tz || "UTC" }).format(when);
    } catch (e) {
      return "";
    }
  }

  function add(message) {
    const box = panel();
    const list = document.getElementById("chat-list");
    if (!box || !list || !message || Number(message.game) !== Number(box.dataset.game)) return;
    if (list.querySelector(`li[data-id="${Number(message.id)}"]`)) return;  // already shown
    const li = document.createElement("li");
    li.className = "chat-msg";
    li.dataset.id = String(Number(message.id));
    li.dataset.seq = String(Number(message.seq));
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = message.author;
    const text = document.createElement("bdi");
    text.className = "chat-text";
    text.textContent = message.text;
    const at = document.createElement("small");
    at.className = "muted chat-at";
    const time = document.createElement("time");
    time.setAttribute("datetime", message.at);
    time.textContent = atMoveText(message.seq) + timeOfDay(message.at);
    at.appendChild(time);
    li.append(who, " ", text, " ", at);
    if (box.dataset.me && message.author === box.dataset.me) li.classList.add("mine");
    else {
      const report = reportForm(message.id);
      if (report) li.append(" ", report);
    }
    // Keep the list in id order (a catch-up may bring older messages after newer live ones).
    const after = Array.from(list.children).find((x) => Number(x.dataset.id) > Number(message.id));
    list.insertBefore(li, after || null);
    const empty = document.getElementById("chat-empty");
    if (empty) empty.hidden = true;
    const scroll = list.closest(".chat-scroll");
    if (scroll) scroll.scrollTop = scroll.scrollHeight;
  }

  function catchUp() {
    const box = panel();
    if (!box) return;
    fetch(`/api/games/${box.dataset.game}/chat?after=${lastId()}`, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null))
      .then((data) => { if (data) data.messages.forEach(add); })
      .catch(() => {});
  }

  function showError(text) {
    const flash = document.getElementById("chat-error");
    if (!flash) return;
    flash.textContent = text || "";
    flash.hidden = !text;
  }

  function send(form) {
    const box = panel();
    const data = new FormData(form);
    data.set("csrf", csrf());
    return fetch(form.getAttribute("action"), {
      method: "POST", body: new URLSearchParams(data), credentials: "same-origin",
      headers: { "X-Ludothek-Fetch": "1", "X-CSRF-Token": csrf(), Accept: "application/json" },
    }).then((r) => r.json().then((body) => ({ ok: r.ok, body: body })))
      .catch(() => ({ ok: false, body: { detail: box ? box.dataset.errNetwork : "" } }));
  }

  document.addEventListener("submit", (ev) => {
    const form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.closest("#chat")) return;
    ev.preventDefault();
    if (form.id === "chat-form") {
      const input = document.getElementById("chat-text");
      const button = document.getElementById("chat-send");
      if (button) button.disabled = true;
      send(form).then((res) => {
        if (button) button.disabled = false;
        if (res.ok) { add(res.body); if (input) { input.value = ""; input.focus(); } showError(""); }
        else showError(res.body && res.body.detail);
      });
    } else if (form.closest(".chat-report")) {
      send(form).then((res) => {
        const details = form.closest("details");
        const note = document.createElement("small");
        note.className = "muted";
        note.textContent = res.ok ? panel().dataset.reported : (res.body && res.body.detail) || "";
        if (details) details.replaceWith(note);
      });
    }
  });

  document.addEventListener("ludothek:chat", (ev) => add(ev.detail));
  document.addEventListener("ludothek:live", catchUp);
  document.addEventListener("DOMContentLoaded", () => {
    const list = document.getElementById("chat-list");
    const scroll = list && list.closest(".chat-scroll");
    if (scroll) scroll.scrollTop = scroll.scrollHeight;
  });
})();
