/* Setup: camera check in words, rule system, figures (name, side, type with icons, painted). */
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  let types = [];

  const ICONS = {
    archer: '<path d="M8 4c10 4 10 20 0 24M8 4v24M4 16h22M22 12l5 4-5 4" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/>',
    horse_archer: '<path d="M5 22c2-7 7-9 13-9l4-5 2 4 3 1-2 3h-3l-1 9M9 22v6M16 22v6" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/><path d="M3 6c5 2 5 10 0 12" fill="none" stroke="currentColor" stroke-width="2"/>',
    wizard: '<path d="M16 3l-7 19h14zM6 22h20M13 13l1 1M18 9l1 1" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linejoin="round" stroke-linecap="round"/><path d="M16 22v7" stroke="currentColor" stroke-width="2.2"/>',
    knight: '<path d="M10 28h12M11 28l1-6c-3-2-4-6-2-10l5-7 2 3 3 1-1 4 3 3-2 3-4-1-2 7" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linejoin="round"/>',
    troop: '<path d="M16 4v24M10 10h12M8 28h16" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/><path d="M13 4l3-2 3 2" fill="none" stroke="currentColor" stroke-width="2"/>',
    hero: '<path d="M16 3l3.5 8 8.5.7-6.5 5.6 2 8.4L16 21.3 8.5 25.7l2-8.4L4 11.7l8.5-.7z" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linejoin="round"/>',
    giant: '<circle cx="16" cy="7" r="4" fill="none" stroke="currentColor" stroke-width="2.2"/><path d="M8 29l2-12 6-3 6 3 2 12M6 17l4 0M22 17h4" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/>',
    artillery: '<circle cx="10" cy="23" r="5" fill="none" stroke="currentColor" stroke-width="2.2"/><path d="M12 19l14-9 2 3-14 9" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linejoin="round"/>',
  };
  function icon(type) {
    const body = ICONS[type] || '<circle cx="16" cy="16" r="9" fill="none" stroke="currentColor" stroke-width="2.2"/>';
    return `<svg viewBox="0 0 32 32" width="30" height="30" aria-hidden="true">${body}</svg>`;
  }

  async function calibration() {
    const st = await TS.api("GET", "/api/status");
    const ul = $("calibration");
    ul.innerHTML = "";
    const box = $("calibration-hint");
    box.innerHTML = "";
    if (st.hint) box.appendChild(TS.hintBox(st.hint));
    for (const line of st.calibration_words) {
      const li = document.createElement("li"); li.textContent = line; ul.appendChild(li);
    }
  }

  async function systems() {
    const data = await TS.api("GET", "/api/systems");
    const box = $("systems");
    box.innerHTML = "";
    for (const s of data.systems) {
      const b = document.createElement("button");
      b.type = "button"; b.className = "button" + (s.current ? " on" : "");
      b.textContent = s.title;
      b.setAttribute("aria-pressed", s.current ? "true" : "false");
      b.addEventListener("click", async () => {
        // A game in progress: switching the rules ends it, so ask first (the server refuses without it).
        let confirm = false;
        try {
          const g = await TS.api("GET", "/api/game");
          if (g.game && g.game.system !== s.name && !["over", "start"].includes(g.kind)) {
            if (!window.confirm(`A game is in progress: switching to ${s.title} ends it. Switch and end the game?`)) return;
            confirm = true;
          }
          await TS.api("POST", "/api/setup/system", {name: s.name, confirm}); load();
        } catch (e) { TS.problem(e); }
      });
      box.appendChild(b);
      if (s.available === false) {          // a system that failed to load says why, and cannot be picked
        b.disabled = true; b.textContent = `${s.title}: cannot be loaded`; b.title = s.error;
      }
      if (s.current) {
        types = s.types;
        const ul = $("house-defaults");
        ul.innerHTML = "";
        for (const h of s.house_defaults) {
          const li = document.createElement("li");
          li.className = "house-row";
          const label = document.createElement("label");
          const id = "house-" + h.key.replace(/[^a-z0-9]+/gi, "-");
          label.htmlFor = id;
          label.textContent = h.label;
          const input = document.createElement("input");
          input.id = id; input.dataset.key = h.key;
          input.value = h.value;
          const numeric = typeof h.value === "number";
          if (numeric) { input.type = "number"; input.step = "any"; input.inputMode = "decimal"; }
          input.addEventListener("change", async () => {
            let v = numeric ? Number(input.value) : input.value;
            if (numeric && Number.isInteger(h.value) && Number.isInteger(v) === false) v = Number(input.value);
            try { await TS.api("PUT", "/api/setup/house", {key: h.key, value: v}); TS.toast("Saved: new games use it."); systems(); }
            catch (e) { TS.problem(e); systems(); }
          });
          const note = document.createElement("span");
          note.className = "note"; note.id = id + "-note";
          input.setAttribute("aria-describedby", note.id);
          note.textContent = (h.changed ? "changed by you. " : "") + h.note;
          li.append(label, input, note);
          ul.appendChild(li);
        }
      }
    }
  }

  async function save(id, fields) {
    try { await TS.api("PUT", `/api/roster/${encodeURIComponent(id)}`, fields); TS.toast("Saved."); }
    catch (e) { TS.problem(e); roster(); }
  }

  async function roster() {
    const data = await TS.api("GET", "/api/roster");
    const box = $("roster");
    box.innerHTML = "";
    if (!data.figures.length) { box.textContent = "No figures found yet: take a photo of the table."; return; }
    const sides = [...new Set(data.figures.map((f) => f.side).filter(Boolean).concat(["red", "blue"]))];
    for (const f of data.figures) {
      const row = document.createElement("div");
      row.className = "roster-row";
      row.dataset.id = f.id;
      const ic = document.createElement("span"); ic.className = "type-icon side-" + (f.side || "none");
      ic.innerHTML = icon(f.type);
      const name = document.createElement("input");
      name.value = f.name || ""; name.placeholder = f.id; name.maxLength = 40; name.setAttribute("aria-label", `Name of ${f.id}`);
      name.addEventListener("change", () => save(f.id, {name: name.value}));
      const side = document.createElement("select"); side.setAttribute("aria-label", `Side of ${f.name || f.id}`);
      side.innerHTML = '<option value="">side?</option>' + sides.map((s) => `<option${s === f.side ? " selected" : ""}>${s}</option>`).join("");
      side.addEventListener("change", () => save(f.id, {side: side.value}).then(roster));
      const type = document.createElement("select"); type.setAttribute("aria-label", `Type of ${f.name || f.id}`);
      const known = types.includes(f.type) || !f.type ? types : [f.type].concat(types);
      type.innerHTML = '<option value="">type?</option>' + known.map((t) => `<option value="${t}"${t === f.type ? " selected" : ""}>${t.replace("_", " ")}</option>`).join("");
      type.addEventListener("change", () => save(f.id, {type: type.value}).then(roster));
      const painted = document.createElement("label"); painted.className = "check";
      const cb = document.createElement("input"); cb.type = "checkbox"; cb.checked = f.painted;
      cb.addEventListener("change", () => save(f.id, {painted: cb.checked}));
      painted.append(cb, document.createTextNode(" painted"));
      const idl = document.createElement("span"); idl.className = "fid"; idl.textContent = f.marker !== null ? `marker ${f.marker}` : f.id;
      row.append(ic, name, side, type, painted, idl);
      box.appendChild(row);
    }
  }

  /* Saved tables: switch between them (a change: needs the PIN). */
  let tableInfo = null;
  async function tables() {
    tableInfo = await TS.api("GET", "/api/tables");
    const ul = $("saved-tables");
    ul.innerHTML = "";
    for (const t of tableInfo.tables) {
      const li = document.createElement("li");
      li.dataset.file = t.file || "";
      const words = document.createElement("span");
      words.className = "saved-name";
      words.textContent = `${t.name}: ${t.width} x ${t.depth} inches` + (t.grid ? `, ${t.grid.kind === "hex" ? "hexes" : "squares"}` : "");
      li.appendChild(words);
      if (t.current) {
        const on = document.createElement("span"); on.className = "in-use"; on.textContent = "in use";
        li.appendChild(on);
      } else {
        const b = document.createElement("button");
        b.type = "button"; b.className = "button use-table"; b.textContent = "Use this table";
        b.setAttribute("aria-label", `Use the table ${t.name}`);
        b.addEventListener("click", async () => {
          if (!confirm(`Switch to ${t.name}? The picture of the table in use goes away; take a new photo.`)) return;
          try { await TS.api("POST", "/api/tables/use", t.started ? {started: true} : {file: t.file}); TS.toast(`Now using ${t.name}.`); location.reload(); }
          catch (e) { TS.problem(e); }
        });
        li.appendChild(b);
      }
      ul.appendChild(li);
    }
  }

  /* The new-table wizard: one step at a time; the answers become a table file on the server. */
  const STEPS = ["print", "size", "grid", "sides", "terrain", "save", "test"];
  // Colour bases' sizes (inches, as the profile's `base`): "" lets the photo tell
  const BASES = [["", "Base size: let the photo tell"], ["0.984", "25 mm bases"], ["1.26", "32 mm bases"],
                 ["1.575", "40 mm bases"], ["1.969", "50 mm bases"]];
  const TERRAIN_WORDS = {woods: "Woods", rocks: "Rocks", hill: "Hill", water: "Water", wall: "Walls", building: "Buildings"};
  const wiz = {step: 0, paper: "a4", unit: "in", msize: 1, grid: "", sides: [{name: "Red", colour: "#c82828"}, {name: "Blue", colour: "#2850c8"}],
               terrain: new Set(["woods", "hill"]), saved: null};

  function showStep() {
    const name = STEPS[wiz.step];
    for (const el of document.querySelectorAll(".wizard-step")) el.hidden = el.dataset.step !== name;
    $("wizard-count").textContent = `Step ${wiz.step + 1} of ${STEPS.length}`;
    $("wiz-back").hidden = wiz.step === 0 || name === "test";
    $("wiz-next").hidden = name === "save";
    $("wiz-next").textContent = name === "test" ? "Finish" : "Next";
    if (name === "print") sheets();
    if (name === "sides") sides();
    if (name === "terrain") terrainPick();
    if (name === "save") $("wiz-summary").textContent = summary();
    const first = document.querySelector(`.wizard-step[data-step="${name}"] h3`);
    if (first) first.scrollIntoView({block: "nearest"});
  }

  function inches(v) { return wiz.unit === "cm" ? v / 2.54 : v; }
  function answers() {
    const round = (v) => Math.round(v * 100) / 100;
    return {name: $("wiz-name").value.trim(), width: round(inches(Number($("wiz-width").value))),
            depth: round(inches(Number($("wiz-depth").value))),
            grid: wiz.grid ? {kind: wiz.grid, pitch: Number($("wiz-pitch").value)} : null,
            sides: wiz.sides.filter((x) => x.name.trim()), terrain: [...wiz.terrain], marker_size: wiz.msize};
  }
  function summary() {
    const a = answers();
    const grid = a.grid ? `${a.grid.kind === "hex" ? "hexes" : "squares"} of ${a.grid.pitch} inch` : "no grid";
    const terr = a.terrain.map((k) => TERRAIN_WORDS[k] || k).join(", ") || "no terrain";
    return `${a.width} x ${a.depth} inches, ${grid}; sides: ${a.sides.map((x) => x.name).join(", ") || "none"}; ${terr}.`;
  }

  function sheets() {
    const q = `?paper=${wiz.paper}`;
    $("sheet-anchors").href = "/api/sheets/anchors.pdf" + q;
    $("sheet-grid").href = "/api/sheets/grid.pdf" + q + (wiz.grid ? `&kind=${wiz.grid}&pitch=${Number($("wiz-pitch").value) || 1}` : "");
    const li = $("sheet-sides");
    li.innerHTML = "";
    wiz.sides.slice(0, 3).forEach((side, i) => {
      const a = document.createElement("a");
      a.className = "button"; a.target = "_blank"; a.rel = "noopener";
      a.href = `/api/sheets/markers-${i}.pdf${q}&size=${wiz.msize}&colour=${encodeURIComponent(side.colour)}`;
      a.textContent = `Figure markers for ${side.name}`;
      li.appendChild(a);
    });
    const help = document.createElement("span"); help.className = "help";
    help.textContent = "Glue one marker on each figure's base (or under it, if the figure stands on a clear base).";
    li.appendChild(help);
  }

  function sides() {
    const ul = $("wiz-sides");
    ul.innerHTML = "";
    wiz.sides.forEach((side, i) => {
      const li = document.createElement("li");
      li.className = "wiz-side";
      const name = document.createElement("input");
      name.value = side.name; name.maxLength = 30; name.setAttribute("aria-label", `Name of side ${i + 1}`);
      name.addEventListener("input", () => { side.name = name.value; });
      const colour = document.createElement("input");
      colour.type = "color"; colour.value = side.colour; colour.setAttribute("aria-label", `Colour of ${side.name || "side " + (i + 1)}`);
      colour.addEventListener("input", () => { side.colour = colour.value; });
      const del = document.createElement("button");
      del.type = "button"; del.className = "button delete"; del.textContent = "Remove";
      del.setAttribute("aria-label", `Remove the side ${side.name}`);
      del.addEventListener("click", () => { wiz.sides.splice(i, 1); sides(); });
      const base = document.createElement("select");     // left as it is: read from the test photo
      base.setAttribute("aria-label", `Base size of ${side.name || "side " + (i + 1)}`);
      base.innerHTML = BASES.map(([v, words]) => `<option value="${v}"${String(side.base || "") === v ? " selected" : ""}>${words}</option>`).join("");
      base.addEventListener("change", () => { side.base = base.value ? Number(base.value) : null; });
      li.append(name, colour, del, base);
      ul.appendChild(li);
    });
    $("wiz-add-side").hidden = wiz.sides.length >= 6;
  }

  function terrainPick() {
    const box = $("wiz-terrain");
    box.innerHTML = "";
    for (const k of (tableInfo && tableInfo.terrain_kinds) || Object.keys(TERRAIN_WORDS)) {
      const label = document.createElement("label");
      label.className = "check terrain-check";
      const cb = document.createElement("input"); cb.type = "checkbox"; cb.value = k; cb.checked = wiz.terrain.has(k);
      cb.addEventListener("change", () => { if (cb.checked) wiz.terrain.add(k); else wiz.terrain.delete(k); });
      const sw = document.createElement("span"); sw.className = `swatch swatch-${k}`;
      label.append(cb, sw, document.createTextNode(" " + (TERRAIN_WORDS[k] || k)));
      box.appendChild(label);
    }
  }

  function pick(attr, onPick) {
    for (const b of document.querySelectorAll(`[data-${attr}]`)) {
      b.addEventListener("click", () => {
        for (const o of document.querySelectorAll(`[data-${attr}]`)) o.classList.toggle("on", o === b);
        onPick(b.dataset[attr]);
      });
    }
  }
  pick("paper", (v) => { wiz.paper = v; sheets(); });
  pick("msize", (v) => { wiz.msize = Number(v); sheets(); });
  pick("grid", (v) => { wiz.grid = v; $("pitch-row").hidden = !v; });
  pick("unit", (v) => {
    if (v === wiz.unit) return;
    const f = v === "cm" ? 2.54 : 1 / 2.54;
    for (const id of ["wiz-width", "wiz-depth"]) $(id).value = Math.round(Number($(id).value) * f * 10) / 10;
    wiz.unit = v;
  });

  $("wizard-start").addEventListener("click", () => {
    if (!TS.joined) { TS.toast("Join this tablet with the PIN first (tap Join at the top).", true); return; }
    $("wizard").hidden = false; $("wizard-start").hidden = true; wiz.step = 0; showStep();
    $("wizard").scrollIntoView({block: "start"});
  });
  $("wiz-cancel").addEventListener("click", () => { $("wizard").hidden = true; $("wizard-start").hidden = false; });
  $("wiz-back").addEventListener("click", () => { wiz.step = Math.max(0, wiz.step - 1); showStep(); });
  $("wiz-next").addEventListener("click", () => {
    const name = STEPS[wiz.step];
    if (name === "size") {
      const a = answers();
      if (!(a.width >= 5 && a.depth >= 5)) { TS.toast("Give the width and the depth (at least 5 inches).", true); return; }
    }
    if (name === "test") { location.reload(); return; }
    wiz.step = Math.min(STEPS.length - 1, wiz.step + 1); showStep();
  });
  $("wiz-add-side").addEventListener("click", () => {
    const used = new Set(wiz.sides.map((x) => x.name.toLowerCase()));
    const next = Object.entries((tableInfo && tableInfo.side_colours) || {}).find(([n]) => !used.has(n)) || ["Side", "#888888"];
    wiz.sides.push({name: next[0].charAt(0).toUpperCase() + next[0].slice(1), colour: next[1]});
    sides();
  });
  $("wiz-save").addEventListener("click", async () => {
    $("wiz-save").disabled = true;
    try {
      wiz.saved = await TS.api("POST", "/api/tables", answers());
      TS.toast(`Saved: ${wiz.saved.name} is the table now.`);
      $("table-name").textContent = wiz.saved.name;
      $("table-file").textContent = wiz.saved.file;
      await tables();
      wiz.step = STEPS.indexOf("test"); showStep();
    } catch (e) { TS.problem(e); }
    finally { $("wiz-save").disabled = false; }
  });
  $("wiz-photo").addEventListener("change", async (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    const box = $("wiz-verdict");
    box.innerHTML = "<p>Looking at the photo...</p>";
    const form = new FormData();
    form.append("photo", file);
    let out = null, hint = null;
    try { out = await TS.api("POST", "/api/photo", form); hint = out.hint; }
    catch (e) { hint = e.data && e.data.hint; if (!hint) { box.innerHTML = ""; TS.problem(e); } }
    ev.target.value = "";
    box.innerHTML = "";
    if (out && !hint) {
      const p = document.createElement("p"); p.className = "verdict-good";
      p.textContent = `All four corner markers found, and ${out.figures} figure${out.figures === 1 ? "" : "s"}: your table is ready!`;
      box.appendChild(p);
      if (out.colour_words) {         // measured, but colour bases would be missed more often
        const note = document.createElement("p"); note.className = "verdict-note"; note.id = "wiz-colour-note";
        note.textContent = out.colour_words;
        box.appendChild(note);
      }
      if (out.bases_words) {          // the colour bases' size was read from the photo
        const note = document.createElement("p"); note.id = "wiz-bases-note";
        note.textContent = out.bases_words;
        box.appendChild(note);
      }
    } else if (hint) {
      box.appendChild(TS.hintBox(hint));
    }
    calibration().catch(TS.problem);
  });

  async function load() {
    try { await calibration(); await systems(); await tables(); await roster(); } catch (e) { TS.problem(e); }
  }
  load();
  TS.onChange(() => calibration().catch(TS.problem));
  document.addEventListener("ts:figures-changed", () => roster().catch(TS.problem));
})();
