// Live progress: while a season runs, poll the JSON API and update the progress bars and counts.
// The counts' names and order are the store's (store.PROGRESS_KEYS), as in _progress.html.
// On a season page (data-reload="yes") the page reloads when its season's done count changes,
// so standings and the crosstable stay current. Polling stops once nothing runs. data-source is the API URL
// polled: a list of seasons (the home page's) or one season (a season page's).
(function () {
  "use strict";
  const script = document.currentScript;
  const every = Math.max(1, Number(script.dataset.refresh || 3)) * 1000;
  const reload = script.dataset.reload === "yes";
  const source = script.dataset.source || "/api/v1/seasons";
  const bars = Array.from(document.querySelectorAll(".progress[data-season]"));
  if (!bars.length) return;

  const COUNTS = [["done", "done"], ["failed", "failed"], ["not_played", "not played"], ["cancelled", "cancelled"],
                  ["pending", "pending"], ["running", "running"]];
  // Statuses of a season no runner follows: nothing to poll for.
  const STILL = ["done", "cancelled", "paused"];
  function pct(n, total) { return total ? (100 * n / total) + "%" : "0%"; }
  function update(season) {
    const p = season.progress;
    document.querySelectorAll(`.progress[data-season="${season.id}"]`).forEach((el) => {
      const before = el.dataset.final;
      const final = String(p.done + p.failed + (p.not_played || 0) + (p.cancelled || 0));
      el.dataset.final = final;
      el.querySelector(".done").style.width = pct(p.done, p.total);
      el.querySelector(".failed").style.width = pct(p.failed, p.total);
      el.querySelector(".running").style.width = pct(p.running, p.total);
      el.querySelector(".n-done").textContent = String(p.done);
      el.querySelector(".n-total").textContent = String(p.total);
      el.querySelector(".n-others").textContent = COUNTS.slice(1).filter(([k]) => p[k]).map(([k, label]) => ` · ${p[k]} ${label}`).join("");
      el.title = COUNTS.map(([k, label]) => `${p[k] || 0} ${label}`).join(", ");
      if (reload && before !== final) location.reload();
    });
    const row = document.querySelector(`tr[data-season="${season.id}"]`);
    if (row) {
      const status = row.querySelector(".status");
      status.textContent = season.status;
      status.className = "status " + season.status;
      COUNTS.forEach(([k]) => { const cell = row.querySelector(`.c-${k}`); if (cell) cell.textContent = String(p[k] || 0); });
    }
  }
  async function poll() {
    try {
      const res = await fetch(source, { headers: { Accept: "application/json" } });
      if (!res.ok) return true;
      const data = await res.json();
      const seasons = Array.isArray(data) ? data : [data];
      seasons.forEach(update);
      return seasons.some((s) => !STILL.includes(s.status));
    } catch (e) {
      return true;  // the server may be restarting: keep trying
    }
  }
  const anyRunning = Array.from(document.querySelectorAll(".status")).some((el) => !STILL.includes(el.textContent.trim()));
  if (!anyRunning) return;
  const note = document.getElementById("live-note");
  if (note) note.hidden = false;
  const timer = setInterval(async () => { if (!(await poll())) { clearInterval(timer); if (note) note.hidden = true; } }, every);
})();
