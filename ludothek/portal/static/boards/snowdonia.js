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
