/* Referee: tap a shooter then a target: the ruler corridor, what blocks it, distances; the ranking. */
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  let picked = [];
  let width = "rules";
  let names = {};
  const board = new TS.Board($("board"), {mode: "picture", onTap: tap});

  function fmt(n) { return `${Number(n).toFixed(1)}"`; }

  async function refreshBoard() {
    try {
      const s = await TS.loadScene();
      names = {};
      for (const f of (s.scene ? s.scene.figures : [])) names[f.id] = f.name || f.id;
      picked = picked.filter((id) => id in names);
      board.update({scene: s.scene, picture: s.picture, hint: s.hint});
      await redo();
    } catch (e) { TS.problem(e); }
  }

  function tap(id) {
    if (picked.length >= 2) picked = [];
    if (picked[0] === id) return;
    picked.push(id);
    redo();
  }

  async function redo() {
    const help = $("ref-help");
    $("clear-pick").hidden = picked.length === 0;
    board.update({selected: picked, corridor: null, blockers: [], highlight: null});
    if (picked.length === 0) {
      help.textContent = "Tap the shooter, then tap the target.";
      $("los-result").hidden = true; $("ranking").hidden = true;
      return;
    }
    if (picked.length === 1) {
      help.textContent = `${names[picked[0]]} picked. Now tap the target.`;
      $("los-result").hidden = true;
      await ranking(picked[0]);
      return;
    }
    const [a, b] = picked;
    help.textContent = `${names[a]} → ${names[b]}`;
    try {
      const r = await TS.api("GET", `/api/los?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}&width=${encodeURIComponent(width)}`);
      board.update({corridor: {points: r.corridor, clear: r.clear}, blockers: r.blocked_by.map((x) => x.id)});
      const box = $("los-result");
      box.hidden = false;
      box.className = "result " + (r.clear ? "clear" : "blocked");
      box.innerHTML = "";
      const h = document.createElement("p"); h.className = "verdict";
      h.textContent = r.clear ? "Clear" : "Blocked";
      const p = document.createElement("p"); p.className = "words"; p.textContent = r.words;
      const dl = document.createElement("dl");
      for (const [k, v] of [["Centre to centre", fmt(r.distance_in)], ["Edge to edge", fmt(r.edge_distance_in)],
                            ["Ruler", `${r.width_in}" wide: ${r.width_words}`]]) {
        const dt = document.createElement("dt"); dt.textContent = k;
        const dd = document.createElement("dd"); dd.textContent = v;
        dl.append(dt, dd);
      }
      box.append(h, p, dl);
      await ranking(a);
    } catch (e) { TS.problem(e); }
  }

  async function ranking(shooter) {
    const box = $("ranking");
    try {
      const r = await TS.api("GET", `/api/targets?shooter=${encodeURIComponent(shooter)}`);
      box.hidden = false;
      box.innerHTML = "";
      const h = document.createElement("h2");
      if (!r.shooters.length) { h.textContent = "Targets"; const p = document.createElement("p"); p.textContent = r.note; box.append(h, p); return; }
      const s = r.shooters[0];
      h.textContent = `Targets for ${s.name}` + (s.range_in ? ` (range ${s.range_in}")` : "");
      const table = document.createElement("table");
      table.innerHTML = "<thead><tr><th>Enemy</th><th>Distance</th><th>Why</th></tr></thead>";
      const tb = document.createElement("tbody");
      for (const e of s.enemies) {
        const tr = document.createElement("tr");
        tr.className = "reason-" + e.reason;
        const inWay = e.blocked_by.map((x) => x.name).join(", ");
        const why = e.blocked_by.length ? `${e.reason_words} (${inWay} in the way)` : e.reason_words;
        for (const text of [e.name, fmt(e.distance_in), why]) {
          const td = document.createElement("td"); td.textContent = text; tr.appendChild(td);
        }
        tr.addEventListener("click", () => { picked = [shooter, e.id]; redo(); });
        tb.appendChild(tr);
      }
      table.appendChild(tb);
      box.append(h, table);
      if (picked.length === 1 && s.target) board.update({highlight: {from: shooter, to: [s.target].concat(s.ties)}});
    } catch (e) { TS.problem(e); }
  }

  for (const b of document.querySelectorAll("[data-width]")) {
    b.addEventListener("click", () => {
      width = b.dataset.width;
      for (const o of document.querySelectorAll("[data-width]")) o.classList.toggle("on", o === b);
      redo();
    });
  }
  for (const b of document.querySelectorAll("[data-view]")) {
    b.addEventListener("click", () => {
      for (const o of document.querySelectorAll("[data-view]")) o.classList.toggle("on", o === b);
      board.setMode(b.dataset.view);
    });
  }
  $("clear-pick").addEventListener("click", () => { picked = []; redo(); });
  refreshBoard();
  TS.onChange(refreshBoard);
})();
