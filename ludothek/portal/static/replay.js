/* Replay page: step without reloading, jump with the slider, play back at a chosen speed.
 * The page works without this script (its controls are one form); here each step is fetched as a
 * fragment (GET for a stored game, POST with the record for an imported one) and replaces #replay.
 * The play timer lives here, so it goes on across the swaps; it stops at the last step. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  const root = () => document.getElementById("replay");
  let timer = null;
  let loading = false;
  let wanted = null;

  function seatValue() {
    const sel = document.getElementById("replay-seat");
    return sel ? sel.value : "";
  }

  function setPlaying(on) {
    const btn = document.getElementById("replay-play");
    if (btn) {
      btn.setAttribute("aria-pressed", on ? "true" : "false");
      btn.textContent = (on ? "⏸ " + btn.dataset.pause : "▶ " + btn.dataset.play);
    }
  }

  function stop() {
    if (timer) { clearInterval(timer); timer = null; }
    setPlaying(false);
  }

  async function load(step) {
    const r = root();
    if (!r) return;
    const last = Number(r.dataset.last);
    step = Math.max(0, Math.min(last, step));
    if (loading) { wanted = step; return; }
    loading = true;
    r.setAttribute("aria-busy", "true");
    try {
      let resp;
      if (r.dataset.mode === "post") {
        const form = document.getElementById("replay-controls");
        const data = new FormData(form);
        data.set("step", String(step));
        data.delete("go");
        resp = await fetch(r.dataset.url + "?frame=1", { method: "POST", body: data, credentials: "same-origin" });
      } else {
        const url = `${r.dataset.url}?step=${step}&seat=${encodeURIComponent(seatValue())}`;
        resp = await fetch(url + "&frame=1", { credentials: "same-origin" });
        if (resp.ok) history.replaceState(null, "", url);
      }
      if (!resp.ok) { stop(); return; }
      const html = await resp.text();
      const holder = document.createElement("div");
      holder.innerHTML = html;
      const fresh = holder.querySelector("#replay");
      const cur = root();
      if (fresh && cur) {
        cur.replaceWith(fresh);
        setPlaying(timer !== null);
        document.dispatchEvent(new CustomEvent("ludothek:board", { detail: { game: fresh } }));
      }
    } catch (e) {
      stop();
    } finally {
      loading = false;
      const r2 = root();
      if (r2) r2.removeAttribute("aria-busy");
      if (wanted !== null) { const w = wanted; wanted = null; load(w); }
    }
  }

  function tick() {
    const r = root();
    if (!r) return stop();
    const step = Number(r.dataset.step);
    if (step >= Number(r.dataset.last)) return stop();
    if (!loading) load(step + 1);
  }

  document.addEventListener("click", (ev) => {
    const btn = ev.target.closest("#replay button");
    if (!btn) return;
    if (btn.id === "replay-play") {
      ev.preventDefault();
      if (timer) { stop(); return; }
      const speed = Number((document.getElementById("replay-speed") || {}).value || 1);
      timer = setInterval(tick, speed * 1000);
      setPlaying(true);
      tick();
      return;
    }
    if (btn.name === "go") {
      ev.preventDefault();
      stop();
      load(Number(btn.value));
    } else if (btn.id === "replay-show") {
      ev.preventDefault();
      load(Number(document.getElementById("replay-slider").value));
    }
  });

  document.addEventListener("input", (ev) => {
    if (ev.target.id !== "replay-slider") return;
    const pos = document.querySelector("#replay-position strong");
    if (pos) pos.dataset.preview = ev.target.value;
  });

  document.addEventListener("change", (ev) => {
    if (ev.target.id === "replay-slider") { stop(); load(Number(ev.target.value)); }
    else if (ev.target.id === "replay-seat") { const r = root(); if (r) load(Number(r.dataset.step)); }
    else if (ev.target.id === "replay-speed" && timer) {
      clearInterval(timer);
      timer = setInterval(tick, Number(ev.target.value) * 1000);
    }
  });

  document.addEventListener("keydown", (ev) => {
    const r = root();
    if (!r || ev.target.closest("input, select, textarea")) return;
    if (ev.key === "ArrowRight") { stop(); load(Number(r.dataset.step) + 1); }
    else if (ev.key === "ArrowLeft") { stop(); load(Number(r.dataset.step) - 1); }
  });
})();
