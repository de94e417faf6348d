/* Machi Koro board: enlarge a player's landmarks by clicking the name (Yucata), and the Business Center
 * trade in two clicks (first your establishment, then the other player's), sent as one `trade:A:N:B`. */
(function () {
  "use strict";
  const big = new Set();
  let give = null;

  function legal() {
    const el = document.querySelector(".mk[data-legal]");
    try { return el ? JSON.parse(el.dataset.legal) : []; } catch (e) { return []; }
  }
  function mySeat() {
    const mine = document.querySelector(".mk-city.mk-mine");
    return mine ? String(Number(mine.dataset.seat) + 1) : null;
  }
  function decorate() {
    document.querySelectorAll(".mk-city").forEach((c) => c.classList.toggle("mk-big", big.has(c.dataset.seat)));
    const trades = legal().filter((a) => a.startsWith("trade:"));
    const me = mySeat();
    document.querySelectorAll(".mk-mini").forEach((m) => {
      const id = m.dataset.own, owner = m.dataset.owner;
      const can = owner === me ? trades.some((a) => a.startsWith(`trade:${id}:`))
        : give !== null && trades.includes(`trade:${give}:${owner}:${id}`);
      m.classList.toggle("mk-pick", can);
      m.classList.toggle("mk-picked", owner === me && id === give);
    });
  }
  document.addEventListener("click", (ev) => {
    const toggle = ev.target.closest("[data-mk-toggle]");
    if (toggle) {
      const s = toggle.dataset.mkToggle;
      if (big.has(s)) big.delete(s); else big.add(s);
      decorate();
      return;
    }
    const mini = ev.target.closest(".mk-mini.mk-pick");
    if (!mini) return;
    if (mini.dataset.owner === mySeat()) { give = give === mini.dataset.own ? null : mini.dataset.own; decorate(); }
    else if (give !== null) { const a = `trade:${give}:${mini.dataset.owner}:${mini.dataset.own}`; give = null; window.ludothek.send(a); }
  });
  document.addEventListener("ludothek:board", () => { if (!legal().some((a) => a.startsWith("trade:"))) give = null; decorate(); });
})();
