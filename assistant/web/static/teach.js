/* Setup: teach the camera a side's rim colour. Tap a side, then one of its figures on the picture. */
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const box = $("teach-sides");
  if (!box) return;
  const img = $("teach-picture"), say = $("teach-say");
  let side = null, picture = null;

  /* The inverse of a 3x3 matrix (rows): picture pixels -> table inches. */
  function inverse(m) {
    const [a, b, c] = m[0], [d, e, f] = m[1], [g, h, i] = m[2];
    const A = e * i - f * h, B = f * g - d * i, C = d * h - e * g;
    const det = a * A + b * B + c * C;
    return [[A / det, (c * h - b * i) / det, (b * f - c * e) / det],
            [B / det, (a * i - c * g) / det, (c * d - a * f) / det],
            [C / det, (b * g - a * h) / det, (a * e - b * d) / det]];
  }

  async function sides() {
    const data = await TS.api("GET", "/api/setup/colours");
    box.innerHTML = "";
    for (const s of data.sides) {
      const b = document.createElement("button");
      b.type = "button"; b.className = "button";
      const dot = document.createElement("span");
      dot.className = "swatch"; dot.style.cssText = `display:inline-block;width:1em;height:1em;border-radius:50%;margin-right:.4em;vertical-align:-.15em;background:${s.learned || s.colour}`;
      b.append(dot, document.createTextNode(`Tap a ${s.name} figure` + (s.learned ? " (learned)" : "")));
      b.addEventListener("click", () => start(s.name));
      box.appendChild(b);
    }
    if (!data.sides.length) box.textContent = "This table has no coloured sides.";
  }

  async function start(name) {
    const data = await TS.api("GET", "/api/scene");
    if (!data.picture || !data.picture.H_in_to_px) {
      say.textContent = "Take a photo of the table first (on the Table page).";
      img.hidden = true; return;
    }
    side = name; picture = data.picture;
    img.src = picture.url; img.hidden = false;
    say.textContent = `Now tap the middle of one ${name} figure's base.`;
  }

  img.addEventListener("click", async (ev) => {
    if (!side || !picture) return;
    const r = img.getBoundingClientRect();
    const u = (ev.clientX - r.left) * picture.width / r.width, v = (ev.clientY - r.top) * picture.height / r.height;
    const m = inverse(picture.H_in_to_px);
    const w = m[2][0] * u + m[2][1] * v + m[2][2];
    const x = (m[0][0] * u + m[0][1] * v + m[0][2]) / w, y = (m[1][0] * u + m[1][1] * v + m[1][2]) / w;
    try {
      const res = await TS.api("POST", "/api/setup/teach-colour", {side, x, y});
      const many = `${res.figures_of_side} ${side} figure${res.figures_of_side === 1 ? "" : "s"}`;
      if (res.used) {
        say.textContent = `Learned! The camera now finds ${many}.`;
        TS.toast(`Learned the ${side} colour.`);
      } else {
        say.textContent = `The camera already knows the ${side} colour: it finds ${many}. Nothing changed.`;
        TS.toast(`Kept the ${side} colour.`);
      }
      img.hidden = true; side = null;
      sides();
      // a colour learned finds more figures: the Figures list shows them
      if (res.used) document.dispatchEvent(new CustomEvent("ts:figures-changed"));
    } catch (e) {
      say.textContent = e.status === 422 ? `No ${side} figure there: tap the middle of one ${side} base.` : "";
      TS.problem(e);
    }
  });

  sides().catch(TS.problem);
})();
