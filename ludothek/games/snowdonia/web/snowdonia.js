/* Snowdonia board: the stacks and the players' contract lists are <details> dialogs; the server
 * re-renders the board after every move, so remember which ones are open and reopen them. */
(function () {
  "use strict";
  const open = new Set();
  document.addEventListener("toggle", (ev) => {
    const el = ev.target;
    if (!(el instanceof HTMLDetailsElement) || !el.dataset.sdKey) return;
    if (el.open) open.add(el.dataset.sdKey); else open.delete(el.dataset.sdKey);
  }, true);
  document.addEventListener("ludothek:board", () => {
    document.querySelectorAll("details[data-sd-key]").forEach((el) => {
      if (open.has(el.dataset.sdKey)) el.open = true;
    });
  });
})();

/* A build site on the route that needs substitutes (stone from rubble, steel from iron) picks that site in
 * the build picker instead of sending an action; the player then counts the substitutes and confirms. */
(function () {
  "use strict";
  function pickBase(el) {
    const radio = [...document.querySelectorAll("#picker-build .picker-bases input")].find((r) => r.value === el.dataset.pickBase);
    if (!radio) return;
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
    radio.focus();
  }
  document.addEventListener("click", (ev) => {
    const el = ev.target.closest && ev.target.closest("[data-pick-base]");
    if (el) pickBase(el);
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    const el = ev.target.closest && ev.target.closest("[data-pick-base]");
    if (el) { ev.preventDefault(); pickBase(el); }
  });
})();
