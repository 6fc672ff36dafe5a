/* Table view: the picture with overlays, the map, taking a photo, the live camera. */
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const pictureBoard = new TS.Board($("board-picture"), {mode: "picture"});
  const mapBoard = new TS.Board($("board-map"), {mode: "map"});
  const SOURCES = {demo: "demo table", photo: "from a photo", live: "live camera", none: "no picture yet"};

  async function refresh() {
    try {
      const [s, st, tr] = await Promise.all([TS.loadScene(), TS.api("GET", "/api/status"), TS.api("GET", "/api/terrain")]);
      pictureBoard.update({scene: s.scene, picture: s.picture, hint: s.hint});
      mapBoard.update({scene: s.scene, picture: null});
      drawnList(tr);
      kinds(tr.kinds);
      $("draw-start").hidden = !s.scene || drawing;
      $("source").textContent = `(${SOURCES[st.source] || st.source}, ${st.figures} figure${st.figures === 1 ? "" : "s"})`;
      const live = $("live-toggle");
      live.hidden = !st.live_available;
      live.textContent = st.live_running ? "Stop the camera" : "Start the camera";
      live.dataset.on = st.live_running ? "1" : "0";
    } catch (e) { TS.problem(e); }
  }

  $("photo-input").addEventListener("change", async (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    const status = $("photo-status");
    status.textContent = "Looking at the photo...";
    const form = new FormData();
    form.append("photo", file);
    try {
      const out = await TS.api("POST", "/api/photo", form);
      status.textContent = out.hint ? out.hint.title :
        `Got it: ${out.figures} figure${out.figures === 1 ? "" : "s"} on the table.` +
        (out.hand_words ? " " + out.hand_words : "") + (out.colour_words ? " " + out.colour_words : "") +
        (out.bases_words ? " " + out.bases_words : "");
    } catch (e) {
      // A photo that could not be measured: the hint over the picture says what to fix.
      status.textContent = e.status === 401 ? "Join this tablet with the PIN first." :
        (e.data && e.data.hint ? e.data.hint.title : e.message);
      if (!(e.data && e.data.hint)) TS.problem(e);
    }
    ev.target.value = "";
    refresh();
  });

  $("live-toggle").addEventListener("click", async () => {
    try { await TS.api("POST", "/api/live", {on: $("live-toggle").dataset.on !== "1"}); refresh(); }
    catch (e) { TS.problem(e); }
  });

  /* Drawing terrain on the map: pick a kind, tap the corners, Finish. */
  let drawing = false;
  let kind = null;
  let corners = [];
  const KIND_WORDS = {woods: "Woods", rocks: "Rocks", hill: "Hill", water: "Water", wall: "Wall", building: "Building"};
  const kindWord = (k) => KIND_WORDS[k] || k.charAt(0).toUpperCase() + k.slice(1).replace(/_/g, " ");

  function kinds(list) {
    const box = $("kind-pick");
    if (box.dataset.kinds === list.join(",")) return;
    box.dataset.kinds = list.join(",");
    box.innerHTML = "";
    for (const k of list) {
      const b = document.createElement("button");
      b.type = "button"; b.className = "button kind"; b.dataset.kind = k;
      const sw = document.createElement("span"); sw.className = `swatch swatch-${k}`;
      b.append(sw, kindWord(k));
      b.addEventListener("click", () => { kind = k; showDraft(); });
      box.appendChild(b);
    }
    showDraft();
  }

  function showDraft() {
    for (const b of document.querySelectorAll("#kind-pick .kind")) b.classList.toggle("on", b.dataset.kind === kind);
    $("draw-finish").disabled = !(kind && corners.length >= 3);
    $("draw-undo").disabled = corners.length === 0;
    const n = corners.length;
    let help;
    if (!kind) help = "Pick what it is, then tap its corners on the map.";
    else if (n < 3) help = `${kindWord(kind)}: tap ${n ? "the next corner" : "the first corner"} on the map ` +
                           `(${n} of at least 3).`;
    else help = `${kindWord(kind)}: ${n} corners. Tap more corners, or Finish.`;
    $("draw-help").textContent = help;
    mapBoard.update({draft: drawing ? {points: corners, kind} : null});
  }

  function setDrawing(on) {
    drawing = on;
    corners = [];
    if (!on) kind = null;
    document.querySelector(".tableview").classList.toggle("drawing", on);
    $("draw-tools").hidden = !on;
    $("draw-start").hidden = on;
    mapBoard.onPoint = on ? (x, y) => { corners.push([+x.toFixed(2), +y.toFixed(2)]); showDraft(); } : null;
    showDraft();
    if (on) $("map-card").scrollIntoView({block: "start"});
  }

  $("draw-start").addEventListener("click", () => {
    if (!TS.joined) { TS.toast("Join this tablet with the PIN first (tap Join at the top).", true); return; }
    setDrawing(true);
  });
  $("draw-cancel").addEventListener("click", () => setDrawing(false));
  $("draw-undo").addEventListener("click", () => { corners.pop(); showDraft(); });
  $("draw-finish").addEventListener("click", async () => {
    $("draw-finish").disabled = true;
    try {
      const out = await TS.api("POST", "/api/terrain", {kind, polygon: corners});
      TS.toast(`${kindWord(out.kind)} drawn on the map.`);
      setDrawing(false);
      refresh();
    } catch (e) { TS.problem(e); showDraft(); }
  });

  function drawnList(tr) {
    const drawn = tr.terrain.filter((t) => t.source === "drawn");
    $("drawn-box").hidden = drawn.length === 0;
    const ul = $("drawn-list");
    ul.innerHTML = "";
    for (const t of drawn) {
      const li = document.createElement("li");
      li.dataset.id = t.id;
      const sw = document.createElement("span"); sw.className = `swatch swatch-${t.kind}`;
      const name = document.createElement("span"); name.className = "drawn-name";
      name.textContent = `${kindWord(t.kind)} (${t.id})`;
      const del = document.createElement("button");
      del.type = "button"; del.className = "button delete"; del.textContent = "Delete";
      del.setAttribute("aria-label", `Delete the drawn ${t.kind} ${t.id}`);
      del.addEventListener("click", async () => {
        del.disabled = true;
        try { await TS.api("DELETE", `/api/terrain/${encodeURIComponent(t.id)}`); TS.toast(`${kindWord(t.kind)} deleted.`); refresh(); }
        catch (e) { TS.problem(e); del.disabled = false; }
      });
      li.append(sw, name, del);
      ul.appendChild(li);
    }
  }

  refresh();
  TS.onChange(refresh);
})();
