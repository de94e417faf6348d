/* Machi Koro board: enlarge a player's landmarks by clicking the name (Yucata), and the Business Center
 * trade picked on the cards: one of your establishments and one of another player's (either first), then
 * Confirm sends `trade:A:N:B`.  Only cards that still lead to a legal trade (#mk-trade's data) can be
 * picked; cards are focusable buttons while trading (Enter or Space picks). */
(function () {
  "use strict";
  const big = new Set();
  let give = null;   // my establishment id
  let take = null;   // {owner, id}

  function trades() {
    const el = document.getElementById("mk-trade");
    try { return el ? JSON.parse(el.dataset.trades) : []; } catch (e) { return []; }
  }
  function mySeat() {
    const mine = document.querySelector(".mk-city.mk-mine");
    return mine ? String(Number(mine.dataset.seat) + 1) : null;
  }
  function chosen(list) {
    if (give === null || take === null) return null;
    return list.find((t) => t.give === give && t.owner === take.owner && t.take === take.id) || null;
  }
  function decorate() {
    document.querySelectorAll(".mk-city").forEach((c) => c.classList.toggle("mk-big", big.has(c.dataset.seat)));
    const list = trades();
    const me = mySeat();
    document.querySelectorAll(".mk-mini").forEach((m) => {
      const id = m.dataset.own, owner = m.dataset.owner;
      const mineCard = owner === me;
      const can = mineCard
        ? list.some((t) => t.give === id && (take === null || (t.owner === take.owner && t.take === take.id)))
        : list.some((t) => t.owner === owner && t.take === id && (give === null || t.give === give));
      const picked = mineCard ? id === give : take !== null && take.owner === owner && take.id === id;
      m.classList.toggle("mk-pick", can);
      m.classList.toggle("mk-picked", picked);
      if (m.hasAttribute("aria-pressed")) {
        m.setAttribute("aria-pressed", picked ? "true" : "false");
        m.setAttribute("aria-disabled", can ? "false" : "true");
      }
    });
    const bar = document.getElementById("mk-trade");
    if (bar) {
      const t = chosen(list);
      bar.querySelector(".mk-trade-ok").disabled = !t;
      const text = bar.querySelector(".mk-trade-text");
      text.textContent = t ? t.text : text.dataset.none;
      bar.dataset.picked = t ? t.action : "";
    }
  }
  function pick(mini) {
    if (mini.dataset.owner === mySeat()) give = give === mini.dataset.own ? null : mini.dataset.own;
    else if (take && take.owner === mini.dataset.owner && take.id === mini.dataset.own) take = null;
    else take = { owner: mini.dataset.owner, id: mini.dataset.own };
    decorate();
  }
  document.addEventListener("click", (ev) => {
    const toggle = ev.target.closest("[data-mk-toggle]");
    if (toggle) {
      const s = toggle.dataset.mkToggle;
      if (big.has(s)) big.delete(s); else big.add(s);
      decorate();
      return;
    }
    if (ev.target.closest(".mk-trade-reset")) { give = null; take = null; decorate(); return; }
    if (ev.target.closest(".mk-trade-ok")) {
      const t = chosen(trades());
      if (t && window.ludothek) { give = null; take = null; window.ludothek.send(t.action); }
      return;
    }
    const mini = ev.target.closest(".mk-mini.mk-pick");
    if (mini) pick(mini);
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    const mini = ev.target.closest && ev.target.closest(".mk-mini.mk-pick[role=button]");
    if (!mini) return;
    ev.preventDefault();
    pick(mini);
  });
  document.addEventListener("ludothek:board", () => { if (!trades().length) { give = null; take = null; } decorate(); });
})();
