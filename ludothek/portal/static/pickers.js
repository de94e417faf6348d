/* Board pickers (templates/boards/_picker.html): build one engine action from a base and token counts,
 * then confirm.  The data (JSON in data-picker) lists every legal action the picker may produce with its
 * base and counts; a "+" is enabled only while some legal action still has room for one more of that
 * token, and Confirm only when the picked combination is exactly one legal action.  So the picker can
 * never send an illegal action (and the server refuses any anyway).  No inline script: wired here. */
(function () {
  "use strict";

  function fits(opt, base, counts) {
    if (opt.base !== base) return false;
    return Object.keys(counts).every((k) => counts[k] <= (opt.counts[k] || 0));
  }

  function exact(opt, base, counts) {
    if (!fits(opt, base, counts)) return false;
    return Object.keys(opt.counts).every((k) => (counts[k] || 0) === opt.counts[k]);
  }

  function wire(form) {
    let data;
    try { data = JSON.parse(form.dataset.picker); } catch (e) { return; }
    form.dataset.wired = "1";
    const options = data.options || [];
    const bases = data.bases || [{ key: "" }];
    // an option marked "preset" (e.g. the cheapest payment) is what a base starts with
    const presetOf = (b) => { const o = options.find((x) => x.base === b && x.preset); return o ? Object.assign({}, o.counts) : {}; };
    const firstBase = bases.length === 1 ? bases[0].key : null;
    let base = firstBase;
    let counts = firstBase === null ? {} : presetOf(firstBase);
    const text = form.querySelector(".picker-text");
    const ok = form.querySelector(".picker-ok");

    function chosen() {
      if (base === null) return null;
      return options.find((o) => exact(o, base, counts)) || null;
    }

    function render() {
      form.querySelectorAll(".picker-bases input").forEach((r) => {
        r.checked = r.value === base;
        r.disabled = !options.some((o) => o.base === r.value);
      });
      form.querySelectorAll(".picker-token").forEach((row) => {
        const key = row.dataset.token;
        const n = counts[key] || 0;
        const more = Object.assign({}, counts, { [key]: n + 1 });
        row.querySelector(".picker-n").textContent = String(n);
        row.querySelector(".picker-more").disabled = base === null || !options.some((o) => fits(o, base, more));
        row.querySelector(".picker-less").disabled = n === 0;
        row.classList.toggle("picker-has", n > 0);
      });
      const opt = chosen();
      ok.disabled = !opt;
      text.textContent = opt ? opt.text : text.dataset.none;
      form.dataset.picked = opt ? opt.action : "";  // not data-action: that would be a click-to-send element
    }

    form.addEventListener("change", (ev) => {
      if (ev.target.matches(".picker-bases input")) {
        base = ev.target.value;
        counts = presetOf(base);
        render();
      }
    });
    form.addEventListener("click", (ev) => {
      const btn = ev.target.closest("button");
      if (!btn || btn.disabled) return;
      const row = btn.closest(".picker-token");
      if (btn.classList.contains("picker-more") && row) {
        counts[row.dataset.token] = (counts[row.dataset.token] || 0) + 1;
      } else if (btn.classList.contains("picker-less") && row) {
        const k = row.dataset.token;
        counts[k] = Math.max(0, (counts[k] || 0) - 1);
        if (!counts[k]) delete counts[k];
      } else if (btn.classList.contains("picker-reset")) {
        counts = base === null ? {} : presetOf(base);
      } else {
        return;
      }
      render();
    });
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const opt = chosen();
      if (opt && window.ludothek) window.ludothek.send(opt.action);
    });
    render();
  }

  function wireAll() {
    document.querySelectorAll("form.picker[data-picker]:not([data-wired])").forEach(wire);
  }
  document.addEventListener("ludothek:board", wireAll);
  document.addEventListener("DOMContentLoaded", wireAll);
})();
