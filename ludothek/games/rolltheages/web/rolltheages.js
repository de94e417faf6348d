/* Roll Through the Ages board: pick dice to roll again (then one button sends `roll:FACES`), and click
 * two-way dice to switch them between food and workers (then one button sends `food:N`). */
(function () {
  "use strict";
  const ORDER = "GFSXCW";
  let picked = new Set();
  let asWorkers = new Set();

  const board = () => document.querySelector(".rt[data-legal]");
  function legal() {
    const el = board();
    try { return el ? JSON.parse(el.dataset.legal) : []; } catch (e) { return []; }
  }
  function phase() { const el = board(); return el ? el.dataset.phase : ""; }
  function rerollAction() {
    const faces = [];
    document.querySelectorAll("#rt-dice .rt-die").forEach((d) => { if (picked.has(d.dataset.index)) faces.push(d.dataset.face); });
    faces.sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
    return faces.length ? "roll:" + faces.join("+") : null;
  }
  function foodCount() {
    let n = 0;
    document.querySelectorAll("#rt-dice .rt-die[data-face='X']").forEach((d) => { if (!asWorkers.has(d.dataset.index)) n += 1; });
    return n;
  }
  function update() {
    const ph = phase();
    document.querySelectorAll("#rt-dice .rt-die").forEach((d) => {
      d.classList.toggle("rt-picked", ph === "reroll" && picked.has(d.dataset.index));
      d.classList.toggle("rt-as-workers", ph === "choose" && d.dataset.face === "X" && asWorkers.has(d.dataset.index));
      d.classList.toggle("rt-as-food", ph === "choose" && d.dataset.face === "X" && !asWorkers.has(d.dataset.index));
    });
    const reroll = document.getElementById("rt-reroll");
    if (reroll) { const a = rerollAction(); reroll.disabled = !a || !legal().includes(a); reroll.dataset.pending = a || ""; }
    const choose = document.getElementById("rt-choose");
    if (choose) {
      const total = document.querySelectorAll("#rt-dice .rt-die[data-face='X']").length;
      const food = foodCount();
      choose.textContent = `✔ ${food * 2} ${choose.dataset.foodLabel} · ${(total - food) * 2} ${choose.dataset.workersLabel}`;
      choose.disabled = !legal().includes("food:" + food);
    }
  }
  document.addEventListener("click", (ev) => {
    const die = ev.target.closest("#rt-dice .rt-die.rt-clickable");
    if (die && !die.hasAttribute("data-action")) {
      const i = die.dataset.index;
      const set = phase() === "choose" ? asWorkers : picked;
      if (set.has(i)) set.delete(i); else set.add(i);
      update();
      return;
    }
    if (ev.target.closest("#rt-reroll")) {
      const a = rerollAction();
      if (a && legal().includes(a)) { picked = new Set(); window.ludothek.send(a); }
      return;
    }
    if (ev.target.closest("#rt-choose")) {
      const a = "food:" + foodCount();
      if (legal().includes(a)) { asWorkers = new Set(); window.ludothek.send(a); }
    }
  });
  document.addEventListener("ludothek:board", () => {
    const ph = phase();
    if (ph !== "reroll") picked = new Set();
    if (ph !== "choose") asWorkers = new Set();
    update();
  });
})();
