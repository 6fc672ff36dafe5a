/* Kids' mode: one big prompt at a time from /api/game. */
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const board = new TS.Board($("board"), {mode: "picture"});
  let prompt = null;
  let lastSaid = "";
  let busy = false;
  const PHASES = {missile: "arrows and magic", initiative: "who goes first", groups: "how many may move",
                  move: "moving", melee: "fighting", free_move: "free moves", victory: "who is winning",
                  shoot: "shooting", attack: "attacks"};
  const SMART_PHASES = {missile: "shooting", melee: "hand-to-hand"};
  let removedFigures = [];
  const autoSpeak = $("auto-speak");
  autoSpeak.checked = localStorage.getItem("ts-auto-speak") === "1";
  autoSpeak.addEventListener("change", () => localStorage.setItem("ts-auto-speak", autoSpeak.checked ? "1" : "0"));

  function pips(n) {
    const box = $("pips");
    box.innerHTML = "";
    for (let v = 1; v <= n; v++) {
      const b = document.createElement("button");
      b.type = "button"; b.className = "button pip"; b.dataset.value = v;
      b.setAttribute("aria-label", `I rolled ${v}`);
      b.textContent = v;
      b.addEventListener("click", () => act("/api/game/roll", {value: v}));
      box.appendChild(b);
    }
  }

  function show(p) {
    if (!prompt || prompt.title !== p.title) $("photo-status").textContent = "";
    prompt = p;
    const g = p.game;
    const phase = p.kind === "outcome" && p.step ? p.step : g && g.phase;
    const words = (g && g.system === "smart" && SMART_PHASES[phase]) || PHASES[phase];
    $("turn").textContent = g ? `Turn ${g.turn}` + (words ? ` · ${words}` : "") : "";
    $("prompt-title").textContent = p.title || "";
    $("prompt-text").textContent = p.text || "";
    const lines = $("prompt-lines");
    lines.innerHTML = "";
    for (const line of p.lines || []) {
      const li = document.createElement("li"); li.textContent = line; lines.appendChild(li);
    }
    const card = $("prompt");
    card.dataset.kind = p.kind;
    card.classList.toggle("remove", !!(p.remove && p.remove.length));
    const rolling = p.kind === "roll";
    $("dice").hidden = !rolling;
    if (rolling) pips(p.sides || 6);
    const canAct = TS.joined;
    $("join-needed").hidden = canAct;
    $("next").hidden = !(p.button && p.kind !== "start" && p.kind !== "over" && p.kind !== "problem");
    $("next").textContent = p.button || "Next";
    $("new-game").hidden = false;         // always reachable; during a game it asks first
    $("new-game").classList.toggle("primary", p.kind === "start" || p.kind === "over");
    $("new-game").classList.toggle("big", p.kind === "start" || p.kind === "over");
    $("undo").hidden = !(g && g.can_undo);
    // A move or a removal is checked on a new picture; a mismatch may be accepted anyway.
    $("play-photo").hidden = !(p.photo || p.kind === "check" || (p.remove && p.remove.length && g && g.system && g.system !== "kimmiria"));
    $("accept").hidden = !p.accept;
    if (p.accept) $("accept").textContent = p.accept;
    setEnabled();
    const remove = new Set(p.remove || []);
    const ghosts = removedFigures.filter((f) => remove.has(f.id)).concat(p.ring_figures || []);
    board.update({highlight: p.highlight || null, ghosts, groups: p.groups || null, dice: p.dice || null});
    const say = p.say || "";
    if (autoSpeak.checked && say && say !== lastSaid) TS.speak(say);
    lastSaid = say;
  }

  // While a tap is on its way to the server, the buttons wait (a second tap would land on the next prompt).
  function setEnabled() {
    for (const b of document.querySelectorAll(".prompt button:not(#speak)")) b.disabled = !TS.joined || busy;
  }

  async function refreshBoard() {
    try {
      const s = await TS.loadScene();
      removedFigures = s.removed_figures || [];
      board.update({scene: s.scene, picture: s.picture, hint: s.hint});
    } catch (e) { TS.problem(e); }
  }

  async function refresh() {
    try { show(await TS.api("GET", "/api/game")); } catch (e) { TS.problem(e); }
  }

  async function act(url, body) {
    if (busy) return;
    busy = true;
    setEnabled();
    const rolledBy = prompt && prompt.side ? prompt.side[0].toUpperCase() + prompt.side.slice(1) : "The die";
    try {
      const out = await TS.api("POST", url, body === undefined ? {} : body);
      if (out.rolled) {
        const r = $("rolled");
        r.hidden = false;
        $("rolled-who").textContent = `${rolledBy} rolled`;
        $("rolled-value").textContent = `${out.rolled.value}`;
        r.classList.remove("spin"); void r.offsetWidth; r.classList.add("spin");
        clearTimeout(act.timer);
        act.timer = setTimeout(() => { r.hidden = true; }, 2500);
      }
      await refreshBoard();
      show(out.prompt || out);
    } catch (e) { TS.problem(e); }
    finally { busy = false; setEnabled(); }
  }

  $("play-photo-input").addEventListener("change", async (ev) => {
    const file = ev.target.files[0];
    if (!file || busy) return;
    busy = true; setEnabled();
    const status = $("photo-status");
    status.textContent = "Looking at the picture...";
    const form = new FormData();
    form.append("photo", file);
    try {
      const out = await TS.api("POST", "/api/photo", form);
      status.textContent = `Got it: ${out.figures} figure${out.figures === 1 ? "" : "s"} on the picture. Now tap ${prompt && prompt.button || "Next"}.` +
        (out.colour_words ? " " + out.colour_words : "");
    } catch (e) { status.textContent = ""; TS.problem(e); }
    ev.target.value = "";
    busy = false; setEnabled();
    await refreshBoard();
  });
  $("accept").addEventListener("click", () => act("/api/game/accept"));
  $("roll-me").addEventListener("click", () => act("/api/game/roll", {}));
  $("next").addEventListener("click", () => act("/api/game/next"));
  $("undo").addEventListener("click", () => {
    $("rolled").hidden = true;            // the die taken back is no longer "rolled"
    act("/api/game/undo");
  });
  $("new-game").addEventListener("click", () => {
    const playing = prompt && prompt.game && prompt.kind !== "over";
    if (playing && !confirm("Start a new game? This game ends here.")) return;
    act("/api/game/new");
  });
  $("speak").addEventListener("click", () => {
    if (!TS.speak(prompt && prompt.say)) TS.toast("This browser cannot read aloud.");
  });

  refreshBoard().then(refresh);
  TS.onChange(() => { refreshBoard(); refresh(); });
})();
