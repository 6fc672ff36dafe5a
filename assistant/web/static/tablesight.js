/* tablesight: shared helpers for every page (no libraries, no build step). */
"use strict";
const TS = (() => {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const joined = document.body.dataset.joined === "yes";

  async function api(method, url, body) {
    const opts = {method, headers: {"X-CSRF-Token": csrf, "Accept": "application/json"}, credentials: "same-origin"};
    if (body instanceof FormData) opts.body = body;
    else if (body !== undefined) { opts.body = JSON.stringify(body); opts.headers["Content-Type"] = "application/json"; }
    const res = await fetch(url, opts);
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      // The server's own words; never a bare HTTP status ("UNPROCESSABLE ENTITY") on a child's screen.
      const err = new Error((data && data.error) || "Something went wrong: try again.");
      err.status = res.status; err.data = data;
      throw err;
    }
    return data;
  }

  function toast(text, bad) {
    const el = document.getElementById("toast");
    el.textContent = text; el.hidden = false; el.classList.toggle("bad", !!bad);
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { el.hidden = true; }, 4000);
  }

  function problem(err) {
    if (err.status === 401) toast("Join this tablet with the PIN first (tap Join at the top).", true);
    else toast(err.message || String(err), true);
  }

  /* Server-Sent Events: call back whenever the table or the game changed. */
  function onChange(callback) {
    if (!window.EventSource) { setInterval(callback, 5000); return; }
    let last = null;
    const es = new EventSource("/live/events");
    es.addEventListener("change", (ev) => {
      const v = JSON.parse(ev.data).version;
      if (v !== last) { last = v; callback(v); }
    });
    return es;
  }

  /* Speech: read a prompt aloud with the tablet's own voice. */
  function speak(text) {
    if (!("speechSynthesis" in window) || !text) return false;
    window.speechSynthesis.cancel();
    const u = new SpeechSynthesisUtterance(text);
    u.rate = 0.95; u.lang = "en";
    window.speechSynthesis.speak(u);
    return true;
  }

  const SIDE_COLOURS = {red: "#d63031", blue: "#2b6fd6", green: "#1e9e4a", yellow: "#e8b90c", white: "#f2f2f2",
                        black: "#222", orange: "#e67e22", purple: "#8e44ad"};
  const PALETTE = ["#d63031", "#2b6fd6", "#1e9e4a", "#e8b90c", "#8e44ad", "#e67e22"];
  const TERRAIN_COLOURS = {woods: "#2f6b2a", rocks: "#8a8a90", hill: "#b59a62", water: "#3c78aa",
                           wall: "#6b4f3a", building: "#7a5c48", stream: "#4f8fc0"};
  function sideColour(side, sides) {
    if (!side) return "#999";
    if (SIDE_COLOURS[side.toLowerCase()]) return SIDE_COLOURS[side.toLowerCase()];
    const i = sides.indexOf(side);
    return PALETTE[(i < 0 ? 0 : i) % PALETTE.length];
  }

  const SVGNS = "http://www.w3.org/2000/svg";
  function el(tag, attrs, parent) {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  /* A photo that could not be measured (or only just): what to fix, in words and a small drawing of the
     table with its corner markers, the missing ones ringed in red. */
  function hintBox(hint) {
    const box = document.createElement("div");
    box.className = "photo-hint " + (hint.failed ? "failed" : "warn");
    box.setAttribute("role", "alert");
    const W = hint.table.width, D = hint.table.depth, pad = Math.max(W, D) * 0.12;
    const svg = el("svg", {viewBox: `${-pad} ${-pad} ${W + 2 * pad} ${D + 2 * pad}`, class: "hint-drawing",
                           role: "img", "aria-label": "The table from above with its corner markers"});
    const kinds = new Set(hint.reasons.map((r) => r.kind));
    const defs = el("defs", {}, svg);
    if (kinds.has("blurred")) {
      const f = el("filter", {id: "hint-blur"}, defs);
      el("feGaussianBlur", {stdDeviation: Math.max(W, D) * 0.012}, f);
    }
    const table = el("g", kinds.has("blurred") ? {filter: "url(#hint-blur)"} : {}, svg);
    el("rect", {x: 0, y: 0, width: W, height: D, rx: Math.min(W, D) * 0.03, class: "hint-table"}, table);
    const s = Math.max(Math.min(W, D) * 0.14, 2);          // markers drawn bigger than life, to be seen
    for (const a of hint.anchors) {
      const x = Math.min(Math.max(a.x, s / 2), W - s / 2), y = Math.min(Math.max(a.y, s / 2), D - s / 2);
      const g = el("g", {class: `hint-anchor ${a.state}`, "data-id": a.id, "data-place": a.place}, table);
      el("rect", {x: x - s / 2, y: y - s / 2, width: s, height: s, class: "hint-marker"}, g);
      el("rect", {x: x - s / 4, y: y - s / 4, width: s / 2, height: s / 2, class: "hint-marker-inner"}, g);
      if (a.state !== "seen") {
        el("circle", {cx: x, cy: y, r: s * 0.95, class: "hint-ring", "stroke-width": s * 0.22}, g);
      } else {
        el("path", {d: `M${x - s * .3},${y}l${s * .22},${s * .25}l${s * .42},${-s * .5}`, class: "hint-tick",
                    "stroke-width": s * 0.2}, g);
      }
    }
    if (kinds.has("dark")) el("rect", {x: -pad, y: -pad, width: W + 2 * pad, height: D + 2 * pad, class: "hint-dark"}, svg);
    if (kinds.has("cut_off")) {
      // The photo's edge: a dashed frame that leaves the missing corners outside.
      const out = hint.anchors.filter((a) => a.state === "outside");
      let x0 = -pad / 2, y0 = -pad / 2, x1 = W + pad / 2, y1 = D + pad / 2;
      if (out.length && out.every((a) => a.place.includes("right"))) x1 = W * 0.72;
      if (out.length && out.every((a) => a.place.includes("left"))) x0 = W * 0.28;
      if (out.length && out.every((a) => a.place.includes("bottom"))) y1 = D * 0.72;
      if (out.length && out.every((a) => a.place.includes("top"))) y0 = D * 0.28;
      el("rect", {x: x0, y: y0, width: x1 - x0, height: y1 - y0, class: "hint-photo-edge",
                  "stroke-width": Math.max(W, D) * 0.012, "stroke-dasharray": `${W * 0.03} ${W * 0.02}`}, svg);
    }
    const words = document.createElement("div");
    words.className = "hint-words";
    const h = document.createElement("p"); h.className = "hint-title"; h.textContent = hint.title;
    const ul = document.createElement("ul");
    for (const line of hint.lines) {
      const li = document.createElement("li"); li.textContent = line; ul.appendChild(li);
    }
    words.append(h, ul);
    box.append(svg, words);
    return box;
  }

  /* A board draws the Scene over the picture (mode "picture") or as a top-down map ("map"). */
  class Board {
    constructor(container, options) {
      this.container = container;
      this.mode = (options && options.mode) || "picture";
      this.onTap = (options && options.onTap) || null;
      this.onPoint = null;              // set while drawing: a tap on the map gives table inches

      this.data = null;
      this.view = {};
      window.addEventListener("resize", () => this.render());
    }
    setMode(mode) { this.mode = mode; this.render(); }
    update(data) { this.data = Object.assign({}, this.data || {}, data); this.render(); }

    render() {
      const d = this.data;
      const c = this.container;
      const hint = d && d.hint && this.mode === "picture" ? hintBox(d.hint) : null;
      if (!d || !d.scene) {
        c.innerHTML = '<p class="empty">No picture of the table yet. Take a photo on the Table page.</p>';
        if (hint) c.prepend(hint);
        return;
      }
      const pic = d.picture;
      const usePicture = this.mode === "picture" && pic && pic.H_in_to_px;
      const scene = d.scene;
      let w, h, project;
      if (usePicture) {
        w = pic.width; h = pic.height;
        const H = pic.H_in_to_px;
        project = (x, y) => {
          const z = H[2][0] * x + H[2][1] * y + H[2][2];
          return [(H[0][0] * x + H[0][1] * y + H[0][2]) / z, (H[1][0] * x + H[1][1] * y + H[1][2]) / z];
        };
      } else {
        w = scene.table.width; h = scene.table.depth;
        project = (x, y) => [x, y];
      }
      c.innerHTML = "";
      if (hint) c.appendChild(hint);
      c.classList.toggle("is-map", !usePicture);
      const frame = document.createElement("div");
      frame.className = "board-frame";
      frame.style.aspectRatio = `${w} / ${h}`;
      // As wide as the card allows, but never taller than --board-max-h (the picture keeps its shape).
      frame.style.maxWidth = `calc(var(--board-max-h) * ${(w / h).toFixed(4)})`;
      c.appendChild(frame);
      if (usePicture) {
        // One <img> per board, reused: a live picture changes without the board flickering.
        if (!this.img) {
          this.img = document.createElement("img");
          this.img.alt = "The table as the camera sees it"; this.img.draggable = false;
        }
        if (this.img.getAttribute("src") !== pic.url) this.img.src = pic.url;
        frame.appendChild(this.img);
      }
      const svg = el("svg", {viewBox: `0 0 ${w} ${h}`, preserveAspectRatio: "none", role: "img",
                             "aria-label": usePicture ? "Figures over the picture" : "Map of the table"}, frame);
      const shownWidth = frame.clientWidth || c.clientWidth || 800;
      const unit = w / shownWidth;              // svg units per CSS pixel
      const px = (n) => n * unit;
      const poly = (pts) => pts.map(([x, y]) => project(x, y).map((v) => v.toFixed(2)).join(",")).join(" ");
      const radius = (f) => {
        const [cx, cy] = project(f.x, f.y);
        const [ex, ey] = project(f.x + (f.base || 1) / 2, f.y);
        return Math.max(Math.hypot(ex - cx, ey - cy), px(6));
      };

      if (!usePicture) {
        el("rect", {x: 0, y: 0, width: w, height: h, class: "felt"}, svg);
        if (scene.grid && scene.grid.kind === "square") {
          const g = el("g", {class: "grid"}, svg);
          const p = scene.grid.pitch;
          for (let x = 0; x <= w + 1e-6; x += p) el("line", {x1: x, y1: 0, x2: x, y2: h}, g);
          for (let y = 0; y <= h + 1e-6; y += p) el("line", {x1: 0, y1: y, x2: w, y2: y}, g);
        }
      }
      const terrainLayer = el("g", {class: "terrain"}, svg);
      const blockers = new Set(d.blockers || []);
      for (const t of scene.terrain || []) {
        const blocking = blockers.has(t.id);
        const drawn = t.source === "drawn";
        const attrs = {points: poly(t.polygon), fill: TERRAIN_COLOURS[t.kind] || "#999",
                       class: `terrain-${t.kind}` + (usePicture ? " over-picture" : "") + (blocking ? " blocker" : "") +
                              (drawn ? " drawn" : ""),
                       "data-id": t.id, "stroke-width": px(blocking ? 5 : drawn ? 3 : 2)};
        // Drawn on a tablet, not found by the camera: a dashed outline (dashes in screen pixels).
        if (drawn && !blocking) attrs["stroke-dasharray"] = `${px(8)} ${px(5)}`;
        el("polygon", attrs, terrainLayer);
        if (!usePicture) {
          const xs = t.polygon.map((p) => p[0]), ys = t.polygon.map((p) => p[1]);
          const tx = xs.reduce((a, b) => a + b) / xs.length, ty = ys.reduce((a, b) => a + b) / ys.length;
          const label = el("text", {x: tx, y: ty, class: "terrain-label" + (drawn ? " drawn" : ""), "font-size": px(16),
                                    "stroke-width": px(3)}, terrainLayer);
          label.textContent = drawn ? `${t.kind} (drawn)` : t.kind;
        }
      }
      // The ruler corridor, under the figures.
      if (d.corridor && d.corridor.points && d.corridor.points.length) {
        el("polygon", {points: poly(d.corridor.points), class: "corridor " + (d.corridor.clear ? "clear" : "blocked"),
                       "stroke-width": px(2)}, svg);
      }
      const hl = d.highlight || null;
      if (hl && hl.from && hl.to) {
        const from = scene.figures.find((f) => f.id === hl.from);
        for (const tid of hl.to) {
          const to = scene.figures.find((f) => f.id === tid);
          if (!from || !to) continue;
          const [x1, y1] = project(from.x, from.y), [x2, y2] = project(to.x, to.y);
          el("line", {x1, y1, x2, y2, class: "shot-line", "stroke-width": px(5), "stroke-dasharray": `${px(14)} ${px(8)}`}, svg);
        }
      }
      const sides = [...new Set(scene.figures.map((f) => f.side).filter(Boolean))];
      // Groups (figures standing close together): a soft patch round each, numbered, under the figures.
      const groupLabels = [];
      if (d.groups && d.groups.length) {
        const gl = el("g", {class: "groups"}, svg);
        d.groups.forEach((ids, i) => {
          const members = scene.figures.filter((f) => ids.includes(f.id));
          if (!members.length) return;
          const g = el("g", {class: "group", "data-group": i + 1}, gl);
          let left = null;
          for (const f of members) {
            const [cx, cy] = project(f.x, f.y);
            const r = radius(f) + px(10);
            el("circle", {cx, cy, r, class: "group-patch", "stroke-width": px(2), "stroke-dasharray": `${px(5)} ${px(3)}`}, g);
            if (!left || cx - r < left[0]) left = [cx - r, cy];
          }
          groupLabels.push({n: i + 1, x: left[0], y: left[1]});
        });
      }
      const selected = new Set(d.selected || []);
      const figLayer = el("g", {class: "figures"}, svg);
      const labels = [];
      this.hit = [];
      for (const f of scene.figures) {
        const [cx, cy] = project(f.x, f.y);
        const r = radius(f);
        const colour = sideColour(f.side, sides);
        const g = el("g", {class: "figure", "data-id": f.id, "data-name": f.name || f.id}, figLayer);
        const roles = [];
        if (hl && hl.from === f.id) roles.push("shooter");
        if (hl && (hl.to || []).includes(f.id)) roles.push("target");
        if (selected.has(f.id)) roles.push("selected");
        if (blockers.has(f.id)) roles.push("blocker");
        if (roles.length) g.setAttribute("class", "figure " + roles.join(" "));
        if (roles.includes("target") || roles.includes("selected") || roles.includes("shooter")) {
          el("circle", {cx, cy, r: r + px(10), class: "halo", "stroke-width": px(5)}, g);
        }
        el("circle", {cx, cy, r, fill: usePicture ? "none" : colour, stroke: usePicture ? colour : "#fff",
                      "stroke-width": px(usePicture ? 4 : 2), class: "base"}, g);
        labels.push({f, cx, cy, r, colour});
        this.hit.push({id: f.id, cx, cy, r});
      }
      // Figures to take off the table: a red cross where they stand.
      for (const f of d.ghosts || []) {
        const [cx, cy] = project(f.x, f.y);
        const r = radius(f) + px(4);
        const g = el("g", {class: "ghost", "data-id": f.id}, figLayer);
        el("circle", {cx, cy, r: r + px(8), class: "halo", "stroke-width": px(5)}, g);
        el("path", {d: `M${cx - r},${cy - r}L${cx + r},${cy + r}M${cx + r},${cy - r}L${cx - r},${cy + r}`,
                    class: "cross", "stroke-width": px(6)}, g);
        labels.push({f, cx, cy, r, colour: "#c0392b"});
      }
      // Dice by the figures they belong to (each die left of its figure), and each group's number:
      // placed before the name tags so the tags keep clear of them, drawn after so they stay on top.
      const badges = [];
      for (const [fid, value] of Object.entries(d.dice || {})) {
        const f = scene.figures.find((x) => x.id === fid) || (d.ghosts || []).find((x) => x.id === fid);
        if (!f) continue;
        const [cx, cy] = project(f.x, f.y);
        const r = radius(f), size = px(34);
        badges.push({kind: "die", id: fid, text: String(value), x: cx - r - size - px(3), y: cy - size / 2, w: size, h: size});
      }
      for (const gl of groupLabels) {
        const size = px(26);
        badges.push({kind: "group", n: gl.n, text: String(gl.n), x: gl.x - size - px(1), y: gl.y - size / 2, w: size, h: size});
      }
      // Name tags: below the base, else above, right or left, whichever overlaps nothing placed yet.
      const labelLayer = el("g", {class: "labels"}, svg);
      const fs = px(16);                   // never smaller than 16 px on the screen
      const placed = badges.map((b) => ({x: b.x, y: b.y, w: b.w, h: b.h}));
      const overlap = (a, b) => Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) *
                                Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
      const circles = labels.map(({cx, cy, r}) => ({x: cx - r, y: cy - r, w: 2 * r, h: 2 * r}));
      for (const {f, cx, cy, r, colour} of labels) {
        const name = f.name || f.id;
        const bw = fs * 0.6 * name.length + px(8), bh = fs * 1.35, gap = px(2);
        const options = [
          {x: cx - bw / 2, y: cy + r + gap}, {x: cx - bw / 2, y: cy - r - gap - bh},
          {x: cx + r + gap, y: cy - bh / 2}, {x: cx - r - gap - bw, y: cy - bh / 2},
          {x: cx + r * 0.7, y: cy + r * 0.7}, {x: cx - r * 0.7 - bw, y: cy - r * 0.7 - bh},
          {x: cx + r * 0.7, y: cy - r * 0.7 - bh}, {x: cx - r * 0.7 - bw, y: cy + r * 0.7}];
        // The first place that covers nothing, else the one that covers least.
        let box = null, least = Infinity;
        for (const o of options) {
          const cand = {x: o.x, y: o.y, w: bw, h: bh};
          let cover = 0;
          for (const p of placed) cover += overlap(p, cand);
          for (const c of circles) cover += overlap(c, cand) * 2;
          if (cand.x < 0 || cand.y < 0 || cand.x + bw > w || cand.y + bh > h) cover += bw * bh * 0.5;
          if (cover < least) { least = cover; box = cand; }
          if (cover === 0) break;
        }
        placed.push(box);
        el("rect", {x: box.x, y: box.y, width: bw, height: bh, rx: px(4), class: "label-bg", fill: colour}, labelLayer);
        const t = el("text", {x: box.x + bw / 2, y: box.y + bh * 0.74, "font-size": fs, class: "label"}, labelLayer);
        t.textContent = name;
      }
      const badgeLayer = el("g", {class: "badges"}, svg);
      for (const b of badges) {
        const g = el("g", b.kind === "die" ? {class: "die-badge", "data-id": b.id} :
                          {class: "group-label", "data-group": b.n, "aria-label": `Group ${b.n}`}, badgeLayer);
        if (b.kind === "die") {
          el("rect", {x: b.x, y: b.y, width: b.w, height: b.h, rx: px(7), class: "die-face", "stroke-width": px(2)}, g);
        } else {
          el("circle", {cx: b.x + b.w / 2, cy: b.y + b.h / 2, r: b.w / 2, class: "group-tag", "stroke-width": px(2)}, g);
        }
        const t = el("text", {x: b.x + b.w / 2, y: b.y + b.h * (b.kind === "die" ? 0.72 : 0.7),
                              "font-size": px(b.kind === "die" ? 22 : 17), class: b.kind === "die" ? "die-value" : "group-text"}, g);
        t.textContent = b.text;
      }
      // A piece being drawn, over everything: its corners so far, closed once there are three.
      if (d.draft && d.draft.points && d.draft.points.length && !usePicture) {
        const pts = d.draft.points;
        const g = el("g", {class: "draft"}, svg);
        const shape = pts.length >= 3 ? "polygon" : "polyline";
        el(shape, {points: poly(pts), fill: pts.length >= 3 ? (TERRAIN_COLOURS[d.draft.kind] || "#fff") : "none",
                   class: "draft-shape", "stroke-width": px(3), "stroke-dasharray": `${px(8)} ${px(5)}`}, g);
        pts.forEach(([x, y], i) => el("circle", {cx: x, cy: y, r: px(i === 0 ? 9 : 7), class: "draft-corner",
                                                 "stroke-width": px(2)}, g));
      }
      this.view = {w, h, unit};
      if (this.onPoint && !usePicture) {
        svg.classList.add("tappable", "drawing");
        svg.addEventListener("click", (ev) => {
          const pt = svg.createSVGPoint();
          pt.x = ev.clientX; pt.y = ev.clientY;
          const loc = pt.matrixTransform(svg.getScreenCTM().inverse());
          this.onPoint(Math.min(w, Math.max(0, loc.x)), Math.min(h, Math.max(0, loc.y)));
        });
      } else if (this.onTap) {
        svg.classList.add("tappable");
        svg.addEventListener("click", (ev) => {
          const pt = svg.createSVGPoint();
          pt.x = ev.clientX; pt.y = ev.clientY;
          const loc = pt.matrixTransform(svg.getScreenCTM().inverse());
          let best = null, bestD = Infinity;
          for (const hgt of this.hit) {
            const dist = Math.hypot(hgt.cx - loc.x, hgt.cy - loc.y);
            if (dist < bestD) { bestD = dist; best = hgt; }
          }
          const reach = best ? Math.max(best.r * 1.6, px(30)) : 0;
          if (best && bestD <= reach) this.onTap(best.id);
        });
      }
    }
  }

  /* The current scene plus picture, from the API. */
  async function loadScene() {
    return api("GET", "/api/scene");
  }

  return {api, toast, problem, onChange, speak, Board, loadScene, joined, csrf, hintBox};
})();
