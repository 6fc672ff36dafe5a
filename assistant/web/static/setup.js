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
          label.textContent = h.key.replace(/^figure_types\./, "").replace(/\./g, " ").replace(/_/g, " ");
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
          note.className = "note";
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

  async function load() {
    try { await calibration(); await systems(); await roster(); } catch (e) { TS.problem(e); }
  }
  load();
  TS.onChange(() => calibration().catch(TS.problem));
})();
