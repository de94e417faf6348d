/* Carpe Diem board: building a tile in three steps.  Click a highlighted cell (only cells where the tile
 * fits), turn it through the rotations that fit there (a preview shows it in place), then confirm; the
 * confirm button then carries the engine action `build:<cell>:<rotation>`.
 * The district tabs: which other district shows beside mine ("all" compares them all).  The board's own
 * default follows the player to move; once the player picks a tab, that choice survives live updates. */
(function () {
  "use strict";
  let picked = null;  // cell name
  let rotIndex = 0;
  let shownChoice = null;  // "all" or a seat number (as text) the player picked on the district tabs

  function showDistricts() {
    const box = document.querySelector(".cd-districts.cd-tabbed");
    if (!box) return;
    const tabs = [...document.querySelectorAll("#cd-tabs [data-cd-show]")];
    const offered = tabs.map((t) => t.dataset.cdShow);
    const want = shownChoice !== null && offered.includes(shownChoice) ? shownChoice : box.dataset.cdDefault;
    box.querySelectorAll(".cd-district:not(.cd-me)").forEach((d) => {
      d.classList.toggle("cd-shown", want === "all" || d.dataset.seat === want);
    });
    tabs.forEach((t) => t.setAttribute("aria-pressed", t.dataset.cdShow === want ? "true" : "false"));
  }

  const board = () => document.querySelector(".cd[data-legal]");
  function legal() {
    const el = board();
    try { return el ? JSON.parse(el.dataset.legal) : []; } catch (e) { return []; }
  }
  function builds() {
    const out = {};
    legal().forEach((a) => {
      const m = /^build:([a-f][1-6]):(\d+)$/.exec(a);
      if (m) (out[m[1]] = out[m[1]] || []).push(m[2]);
    });
    return out;
  }
  function myDistrict() {
    const bar = document.getElementById("cd-buildbar");
    if (!bar) return null;
    return document.querySelector(".cd-district.cd-me");
  }
  function clearPreview() {
    document.querySelectorAll(".cd .cd-cell .cd-preview-wrap").forEach((e) => e.remove());
    document.querySelectorAll(".cd .cd-cell.cd-picked").forEach((e) => e.classList.remove("cd-picked"));
  }
  function render() {
    const district = myDistrict();
    const options = builds();
    const confirm = document.getElementById("cd-confirm");
    const rotate = document.getElementById("cd-rotate");
    clearPreview();
    if (!district) { picked = null; return; }
    district.querySelectorAll(".cd-cell").forEach((c) => {
      const legal = !!options[c.dataset.cell];
      c.classList.toggle("cd-legal", legal);
      // keyboard: a cell where the tile fits is a tab stop; Enter or Space picks it like a click
      if (legal) { c.setAttribute("tabindex", "0"); c.setAttribute("role", "button"); c.setAttribute("aria-label", c.dataset.cell); }
      else { c.removeAttribute("tabindex"); c.removeAttribute("role"); c.removeAttribute("aria-label"); }
    });
    if (!picked || !options[picked]) {
      picked = null;
      if (confirm) { confirm.disabled = true; confirm.removeAttribute("data-action"); }
      if (rotate) rotate.disabled = true;
      return;
    }
    const rots = options[picked];
    rotIndex = rotIndex % rots.length;
    const rot = rots[rotIndex];
    const cell = district.querySelector(`.cd-cell[data-cell="${picked}"]`);
    cell.classList.add("cd-picked");
    const tpl = document.getElementById("cd-previews");
    const src = tpl && tpl.content.querySelector(`[data-rot="${rot}"]`);
    if (src) {
      const wrap = document.createElement("div");
      wrap.className = "cd-preview-wrap";
      wrap.appendChild(src.firstElementChild.cloneNode(true));
      cell.appendChild(wrap);
    }
    if (rotate) { rotate.disabled = rots.length < 2; rotate.dataset.count = String(rots.length); }
    if (confirm) {
      confirm.disabled = false;
      confirm.setAttribute("data-action", `build:${picked}:${rot}`);
      confirm.title = `build:${picked}:${rot}`;
    }
    const hint = document.getElementById("cd-build-hint");
    if (hint) hint.textContent = `${picked} · ${rot}°`;
  }
  document.addEventListener("click", (ev) => {
    const tab = ev.target.closest("#cd-tabs [data-cd-show]");
    if (tab) { shownChoice = tab.dataset.cdShow; showDistricts(); return; }
    const cell = ev.target.closest(".cd-district.cd-me .cd-cell.cd-legal");
    if (cell && document.getElementById("cd-buildbar")) {
      if (picked !== cell.dataset.cell) { picked = cell.dataset.cell; rotIndex = 0; }
      render();
      return;
    }
    if (ev.target.closest("#cd-rotate")) { rotIndex += 1; render(); }
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    const cell = ev.target.closest && ev.target.closest(".cd-district.cd-me .cd-cell.cd-legal");
    if (!cell || !document.getElementById("cd-buildbar")) return;
    ev.preventDefault();
    if (picked !== cell.dataset.cell) { picked = cell.dataset.cell; rotIndex = 0; }
    render();
  });
  document.addEventListener("ludothek:board", () => {
    if (!document.getElementById("cd-buildbar")) picked = null;
    render();
    showDistricts();
  });
  document.addEventListener("DOMContentLoaded", showDistricts);
  // htmx settles the classes of elements that keep their id (the districts) after the swap: apply again
  document.addEventListener("htmx:afterSettle", showDistricts);
})();
