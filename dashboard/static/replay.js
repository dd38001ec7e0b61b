// Replay viewer: step through a game's events, draw the table, show what one seat saw.
// Plain JavaScript, no libraries. The record is embedded in the page as JSON
// (#replay-data); while a game runs it holds public events only. What is on the table at
// each event comes from replay_state.js (ReplayState); this file draws it. It knows no game:
// it draws the common table (seats, hands, figures, pot, cards in the middle) and the common
// event keys (docs/replay.md); the game's module (/static/games/<game>.js) adds its own
// keys, event formats and drawing hooks (seatBadges, seatExtra, centerExtra).
// The page opens at the first deal; `#event-N` in the address opens it after N events.
(function () {
  "use strict";
  const RS = window.ReplayState;
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const record = data.record;
  const events = record.events || [];
  const decisions = record.decisions || [];
  const seats = data.game.seats;
  const N = events.length;
  const G = RS.gameOf(record.game);
  const SUITS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
  const CARD = /^(?:[2-9TJQKA][cdhs]|Jk)$/;
  const $ = (id) => document.getElementById(id);
  let pos = 0;          // events applied: 0..N
  let mode = "all";     // "all" or a seat number as a string
  let timer = null;

  // ------------------------------------------------------------ formatting
  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }
  function card(c) {
    if (c === "Jk") return '<span class="card joker" title="joker">JK</span>';
    const rank = c[0] === "T" ? "10" : c[0];
    const colour = c[1] === "d" || c[1] === "h" ? "red" : "black";
    return `<span class="card ${colour}" title="${c}">${rank}${SUITS[c[1]]}</span>`;
  }
  function back(n) {
    return n > 0 ? '<span class="card back"></span>'.repeat(Math.min(n, 14)) + (n > 14 ? ` <span class="muted">×${n}</span>` : "") : "";
  }
  function seatName(s) {
    const seat = seats[s];
    return seat ? `<span class="who">${esc(seat.bot_name)}</span><sub>${s}</sub>` : `seat ${s}`;
  }
  // The event keys the page understands (docs/replay.md), with the game module's own.
  const keys = G.keys || {};
  //: Event fields holding a seat number.
  const SEAT = new Set(["seat", "dealer"].concat(keys.seat || []));
  //: Event fields holding a list of seats.
  const SEAT_LIST = new Set(["seats", "players"].concat(keys.seatList || []));
  //: Event fields holding one figure per seat, in seat order.
  const PER_SEAT = new Set(["tokens", "points"].concat(keys.perSeat || []));
  //: Event fields left out of the event list when they are null.
  const OMIT_NULL = new Set(keys.omitWhenNull || []);
  //: The game module's own drawing of some event fields: key -> (value, H) -> HTML.
  const FORMAT = G.format || {};
  function value(v, key) {
    if (typeof v === "string" && CARD.test(v)) return card(v);
    if (Array.isArray(v)) {
      if (!v.length) return '<span class="muted">none</span>';
      if (v.every((x) => typeof x === "string" && CARD.test(x))) return v.map(card).join("");
      if (SEAT_LIST.has(key)) return v.map(seatName).join(", ");
      if (key === "hands") return v.map((h, s) => `${seatName(s)} ${h.length ? h.map(card).join("") : '<span class="muted">no cards</span>'}`).join("; ");
      if (FORMAT[key]) return FORMAT[key](v, H);
      if (PER_SEAT.has(key)) return v.map((x, s) => `${seatName(s)} ${esc(x)}`).join(", ");
      return v.map((x) => value(x, "")).join(", ");
    }
    if (v && typeof v === "object") {
      return Object.entries(v).map(([k, x]) => `${esc(k)} ${value(x, k)}`).join(", ");
    }
    if (SEAT.has(key) && Number.isInteger(v)) return seatName(v);
    return esc(v === null ? "–" : v);
  }
  function describe(e) {
    const d = e.data || {};
    const parts = Object.entries(d).filter(([k, v]) => !(v === null && OMIT_NULL.has(k)))
      .map(([k, v]) => `<span class="k">${esc(k.replace(/_/g, " "))}</span> ${value(v, k)}`);
    const lock = e.visible_to ? ` <span class="private" title="a private event: only these seats saw it">private to ${e.visible_to.map(seatName).join(", ")}</span>` : "";
    return `<b class="kind">${esc(e.kind)}</b> ${parts.join(" · ")}${lock}`;
  }
  // Pretty JSON with arrays of plain values kept on one line and card strings drawn as cards.
  function compactJson(v, indent) {
    const pad = " ".repeat(indent);
    if (Array.isArray(v)) {
      if (v.every((x) => x === null || typeof x !== "object")) return "[" + v.map((x) => JSON.stringify(x)).join(", ") + "]";
      return "[\n" + v.map((x) => pad + " " + compactJson(x, indent + 1)).join(",\n") + "\n" + pad + "]";
    }
    if (v && typeof v === "object") {
      const keys = Object.keys(v);
      if (!keys.length) return "{}";
      return "{\n" + keys.map((k) => `${pad} ${JSON.stringify(k)}: ${compactJson(v[k], indent + 1)}`).join(",\n") + "\n" + pad + "}";
    }
    return JSON.stringify(v);
  }
  //: What a game module's hooks and formats draw with.
  const H = { card, back, seatName, esc };
  function jsonHtml(v) {
    return esc(compactJson(v, 0)).replace(/&quot;((?:[2-9TJQKA][cdhs])|Jk)&quot;/g, (_, c) => card(c));
  }

  //: event index -> the seats asked a decision there, with that many events logged (whose turn it is).
  const askedAt = {};
  for (const d of decisions) (askedAt[d.event_index] = askedAt[d.event_index] || new Set()).add(d.seat);

  // The latest view sent to `seat` (null: any seat) at or before `upto`, for the seat panel.
  function lastDecision(upto, seat) {
    let found = null;
    for (const d of decisions) {
      if (d.event_index > upto) break;
      if (seat === null || d.seat === seat) found = d;
    }
    return found;
  }

  // ------------------------------------------------------------ drawing
  function drawTable() {
    const seat = mode === "all" ? null : Number(mode);
    const t = RS.tableAt(record, pos, seat);
    let html = '<div class="seats">';
    seats.forEach((s, i) => {
      const hand = t.hands[i];
      const me = seat === i;
      const toAct = seat === null && askedAt[pos] !== undefined && askedAt[pos].has(i);  // all seats: whose turn
      const classes = ["seat-box", me ? "me" : "", t.folded[i] ? "folded" : "", t.out[i] ? "out" : "", t.dealer === i ? "dealer" : "",
        toAct ? "to-act" : ""].join(" ");
      const cards = hand.cards.map(card).join("") + back(hand.hidden) || '<span class="muted">no cards</span>';
      const extra = G.seatExtra ? G.seatExtra(t, i, H) : "";
      const badges = (toAct ? ' <span class="badge to-act-badge" title="asked to decide now, after this event">to act</span>' : "") +
        (t.dealer === i ? ' <span class="badge dealer-badge" title="deals now">dealer</span>' : "") +
        (t.folded[i] ? ' <span class="badge">folded</span>' : "") + (t.out[i] ? ' <span class="badge">out</span>' : "") +
        (typeof t.shown[i] === "number" ? ` <span class="badge">shown: ${t.shown[i]} points</span>` : "") +
        (G.seatBadges ? G.seatBadges(t, i, H) : "");
      html += `<div class="${classes}" data-seat="${i}"><div class="seat-head">${seatName(i)} <span class="score" title="${t.unit}${G.lowerIsBetter ? " (lower is better)" : ""}">${esc(t.scores[i])} ${t.unit}</span>${badges}</div><div class="hand">${cards}</div>${extra}</div>`;
    });
    html += "</div>";
    html += `<div class="center">${t.stage ? `<div class="stage-info" id="stage">${esc(t.stage)}</div>` : ""}<div class="pile">${t.center.map(card).join("")}</div><div class="muted small">${esc(t.centerLabel)}</div>`;
    if (G.centerExtra) html += G.centerExtra(t, H);
    if (t.pot) html += `<div class="pot" id="pot">${esc(t.pot.label)} <b>${esc(t.pot.amount)}</b> tokens</div>`;
    html += `<div class="last-event">${pos > 0 ? describe(events[pos - 1]) : '<span class="muted">before the first event</span>'}</div></div>`;
    $("table").innerHTML = html;
  }
  function drawEvents() {
    const seat = mode === "all" ? null : Number(mode);
    const faultAt = {};
    for (const d of decisions) if (d.fault) (faultAt[d.event_index] = faultAt[d.event_index] || []).push(d);
    const items = [];
    for (let i = 0; i <= N; i++) {
      for (const d of faultAt[i] || []) {
        if (seat !== null && d.seat !== seat) continue;
        items.push(`<li class="decision-fault" value="${i}" data-pos="${i}">⚠ ${seatName(d.seat)} decision ${d.decision}: <b>${esc(d.fault)}</b> (${d.latency_ms} ms)</li>`);
      }
      if (i === N) break;
      const e = events[i];
      const hid = !RS.visible(e, seat);
      // numbered from 1: event k is the k-th, shown as "event k / N" when it is the last applied
      items.push(`<li id="ev-${i}" value="${i + 1}" data-pos="${i + 1}" class="${hid ? "hidden-event" : ""}">${hid ? '<span class="muted">hidden from this seat</span>' : describe(e)}</li>`);
    }
    $("events").innerHTML = items.join("");
  }
  function drawFaults() {
    const faults = record.faults || [];
    if (!faults.length) { $("faults-box").innerHTML = ""; return; }
    $("faults-box").innerHTML = '<div class="fault-list"><b>Faults:</b> ' + faults.map((f) =>
      `<a href="#decision-${f.seat}-${f.decision}" class="fault-link" data-seat="${f.seat}" data-decision="${f.decision}">${seatName(f.seat)} decision ${f.decision}: ${esc(f.kind)}</a>`).join(" · ") + "</div>";
  }
  function drawSeatPanel() {
    const panel = $("seat-panel");
    if (mode === "all") { panel.hidden = true; return; }
    const seat = Number(mode);
    const mine = decisions.filter((d) => d.seat === seat);
    const last = lastDecision(pos, seat);
    // a view sent in an earlier deal is not shown beside this deal's cards (docs/replay.md)
    const current = last && RS.tableAt(record, last.event_index, seat).deal === RS.tableAt(record, pos, seat).deal ? last : null;
    let html = `<h3>${seatName(seat)}: views sent and answers</h3>`;
    if (current) {
      const when = new Date(current.sent_at * 1000).toISOString().replace("T", " ").slice(0, 23);
      html += `<div class="decision-now${current.fault ? " fault" : ""}" id="current-decision"><div class="meta">Decision ${current.decision}, after event ${current.event_index} · sent ${when} UTC · answered in <b>${current.latency_ms} ms</b> · time bank left ${Math.round(current.time_bank_ms)} ms${current.fault ? ` · <b class="bad">fault: ${esc(current.fault)}</b>` : ""}${current.called ? "" : " · not called"}</div>`;
      html += `<h4>View sent</h4><pre class="json" id="view-json">${jsonHtml(current.view)}</pre>`;
      html += `<h4>Answer</h4><pre class="json" id="answer-json">${current.answer ? jsonHtml(current.answer) : '<span class="muted">no answer</span>'}</pre>`;
      html += `<h4>Action applied</h4><pre class="json">${jsonHtml(current.action)}</pre></div>`;
    } else if (last) {
      html += `<p class="muted" id="no-decision-this-deal">Not asked anything in this deal yet (its last decision, ${last.decision}, was after event ${last.event_index}).</p>`;
    } else {
      html += '<p class="muted">Not asked anything yet.</p>';
    }
    html += `<h4>All ${mine.length} decisions</h4><ol class="decisions" start="0">` + mine.map((d) =>
      `<li id="decision-${d.seat}-${d.decision}" data-pos="${d.event_index}" class="${d === current ? "current" : ""}${d.fault ? " fault" : ""}">after event ${d.event_index} · ${d.latency_ms} ms${d.fault ? ` · <b>${esc(d.fault)}</b>` : ""}</li>`).join("") + "</ol>";
    panel.innerHTML = html;
    panel.hidden = false;
  }
  function render() {
    $("scrub").value = String(pos);
    $("position").textContent = `event ${pos} / ${N}`;
    drawTable();
    drawSeatPanel();
    document.querySelectorAll("#events li.current").forEach((li) => li.classList.remove("current"));
    const cur = $("ev-" + (pos - 1));
    if (cur) { cur.classList.add("current"); }
    $("btn-back").disabled = pos === 0;
    $("btn-forward").disabled = pos === N;
  }
  // The address (#event-N, #decision-S-D) and the event list's scroll follow the position once a frame, not at
  // every step: scrolling lays the page out and the address bar is the browser's, so a held arrow key, Play or
  // a run of steps in one task pays them once, for the position shown (the page's DOM is up to date at each step).
  let anchor = "";
  let following = false;
  function follow(hash) {
    anchor = hash;
    if (following) return;
    following = true;
    const now = () => {
      following = false;
      if (history.replaceState) history.replaceState(null, "", anchor);
      const cur = $("ev-" + (pos - 1));
      if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: "nearest" });
    };
    if (window.requestAnimationFrame) requestAnimationFrame(now); else now();
  }
  function go(p, hash) {
    pos = Math.max(0, Math.min(N, p));
    render();
    follow(hash || `#event-${pos}`);
  }
  function setMode(m) {
    mode = m;
    $("mode").value = m;
    drawEvents();
    render();
  }
  function play() {
    if (timer) { clearInterval(timer); timer = null; $("btn-play").textContent = "▶ Play"; return; }
    if (pos === N) pos = 0;
    $("btn-play").textContent = "⏸ Pause";
    timer = setInterval(() => { if (pos >= N) { play(); } else { go(pos + 1); } }, 400);
  }
  function jumpToDecision(seat, decision) {
    const d = decisions.find((x) => x.seat === seat && x.decision === decision);
    setMode(String(seat));
    go(d ? d.event_index : 0, `#decision-${seat}-${decision}`);
  }

  // ------------------------------------------------------------ wiring
  $("btn-first").onclick = () => go(0);
  $("btn-back").onclick = () => go(pos - 1);
  $("btn-forward").onclick = () => go(pos + 1);
  $("btn-last").onclick = () => go(N);
  $("btn-play").onclick = play;
  $("scrub").oninput = (ev) => go(Number(ev.target.value));
  $("mode").onchange = (ev) => setMode(ev.target.value);
  $("events").onclick = (ev) => { const li = ev.target.closest("li[data-pos]"); if (li) go(Number(li.dataset.pos)); };
  $("seat-panel").onclick = (ev) => { const li = ev.target.closest("li[data-pos]"); if (li) go(Number(li.dataset.pos)); };
  $("faults-box").onclick = (ev) => {
    const a = ev.target.closest("a.fault-link");
    if (a) { ev.preventDefault(); jumpToDecision(Number(a.dataset.seat), Number(a.dataset.decision)); }
  };
  document.addEventListener("keydown", (ev) => {
    if (ev.target.closest("input, select, textarea")) return;
    if (ev.key === "ArrowRight") go(pos + 1);
    else if (ev.key === "ArrowLeft") go(pos - 1);
    else if (ev.key === "Home") go(0);
    else if (ev.key === "End") go(N);
    else if (ev.key === " ") { ev.preventDefault(); play(); }
    else return;
  });
  drawFaults();
  drawEvents();
  const m = /^#decision-(\d+)-(\d+)$/.exec(location.hash);
  const at = /^#event-(\d+)$/.exec(location.hash);
  if (m && !data.public_only) jumpToDecision(Number(m[1]), Number(m[2]));
  else if (at) go(Number(at[1]));
  else go(data.public_only ? N : RS.openingPosition(record));
})();
