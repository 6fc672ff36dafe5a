/* Table view: the picture with overlays, the map, taking a photo, the live camera. */
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const pictureBoard = new TS.Board($("board-picture"), {mode: "picture"});
  const mapBoard = new TS.Board($("board-map"), {mode: "map"});
  const SOURCES = {demo: "demo table", photo: "from a photo", live: "live camera", none: "no picture yet"};

  async function refresh() {
    try {
      const [s, st] = await Promise.all([TS.loadScene(), TS.api("GET", "/api/status")]);
      pictureBoard.update({scene: s.scene, picture: s.picture});
      mapBoard.update({scene: s.scene, picture: null});
      $("source").textContent = `(${SOURCES[st.source] || st.source}, ${st.figures} figures)`;
      const prob = st.calibration.problem;
      $("problem").hidden = !prob;
      $("problem").textContent = prob ? `The last picture could not be measured: ${prob}` : "";
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
      status.textContent = `Found ${out.figures} figure${out.figures === 1 ? "" : "s"}.`;
    } catch (e) {
      status.textContent = e.status === 401 ? "Join this tablet with the PIN first." : e.message;
      TS.problem(e);
    }
    ev.target.value = "";
    refresh();
  });

  $("live-toggle").addEventListener("click", async () => {
    try { await TS.api("POST", "/api/live", {on: $("live-toggle").dataset.on !== "1"}); refresh(); }
    catch (e) { TS.problem(e); }
  });

  refresh();
  TS.onChange(refresh);
})();
