// The advise page: a card picker filling the fields, the request, the table, and a permalink.
"use strict";
(function () {
  const form = document.getElementById("advise-form");
  const FIELDS = ["hand", "upcard", "pile", "opponent_took", "stock", "scores", "history", "rules", "opponent",
                  "plan", "seed", "max_samples", "max_seconds"];
  const field = name => document.getElementById("f-" + name);
  const words = name => field(name).value.split(/[\s,]+/).filter(Boolean);

  function target() { return document.querySelector('input[name="target"]:checked').value; }

  // Click a card: add it to the chosen target (the upcard is one card and also starts the pile), click again to remove.
  function pick(card) {
    const name = target();
    const list = words(name);
    const at = list.findIndex(c => c.toLowerCase() === card.toLowerCase());
    if (at >= 0) list.splice(at, 1); else if (name === "upcard") list.splice(0, list.length, card); else list.push(card);
    field(name).value = list.join(" ");
    if (name === "upcard" && at < 0 && !words("pile").length) field("pile").value = card;
    drawDeck();
  }

  function drawDeck() {
    const used = {};
    for (const name of ["hand", "upcard", "pile", "opponent_took"]) for (const c of words(name)) used[c.toLowerCase()] = name;
    const deck = document.getElementById("deck");
    deck.replaceChildren();
    for (const suit of "shdc") {
      const row = OK.el("div", undefined, "deck-row");
      for (const rank of OK.RANKS) {
        const c = rank + suit;
        row.append(OK.card(c, pick, used[c.toLowerCase()] ? "in-" + used[c.toLowerCase()] : ""));
      }
      deck.append(row);
    }
  }

  function values() {
    const out = {};
    for (const name of FIELDS) out[name] = field(name).value.trim();
    return out;
  }

  function permalink(sent) {
    const query = new URLSearchParams(Object.entries(sent).filter(([, v]) => v !== ""));
    const link = document.getElementById("permalink");
    link.href = "/advise?" + query.toString();
    document.getElementById("permalink-line").hidden = false;
  }

  function table(advice) {
    const out = document.getElementById("advice");
    out.replaceChildren();
    const win = advice.candidates.some(c => c.win_chance);
    const t = OK.el("table", undefined, "advice");
    const head = ["", "action", "points (95% CI)", "undercut risk", "vs best"].concat(win ? ["chance to win"] : []);
    t.append(row(head, "th"));
    for (const c of advice.candidates) {
      const vs = c.status === "recommended" ? "best" : c.status === "leading" ? "leader" : OK.fmt(c.vs_recommended, advice.objective === "win");
      const cells = [c.status === "recommended" ? "\u2605" : "", c.label, OK.fmt(c.points),
                     c.undercut_risk ? (100 * c.undercut_risk.mean).toFixed(1) + "%" : "", vs];
      if (win) cells.push(OK.fmt(c.win_chance, true));
      const r = row(cells, "td");
      r.className = "status-" + c.status;
      t.append(r);
    }
    out.append(t);
    const rec = advice.recommendation;
    out.append(OK.el("p", rec ? "recommendation: " + rec.label : "no recommendation: " + advice.no_recommendation,
                     rec ? "recommendation" : "recommendation none"));
    for (const line of [advice.worlds.text, "note: " + advice.assumptions, "evidence: " + advice.worlds.evidence,
                        `sampled ${advice.samples.toLocaleString()} worlds in ${advice.seconds.toFixed(2)} s: ${advice.stop}`])
      out.append(OK.el("p", line, "note"));
    out.dataset.json = JSON.stringify(advice);
  }

  function row(cells, tag) {
    const r = document.createElement("tr");
    for (const c of cells) r.append(OK.el(tag, c));
    return r;
  }

  async function submit(event) {
    if (event) event.preventDefault();
    const sent = values();
    permalink(sent);
    const body = Object.fromEntries(Object.entries(sent).map(([k, v]) => [k, v === "" ? null : v]));
    OK.status("sampling worlds\u2026");
    document.getElementById("advise-go").disabled = true;
    const started = performance.now();
    try {
      table(await OK.api("POST", "/api/advise", body));
      OK.status(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } catch (error) {
      document.getElementById("advice").replaceChildren();
      OK.status(error.message, true);
    } finally {
      document.getElementById("advise-go").disabled = false;
    }
  }

  form.addEventListener("submit", submit);
  form.addEventListener("input", drawDeck);
  document.getElementById("advise-clear").addEventListener("click", () => {
    for (const name of ["hand", "upcard", "pile", "opponent_took", "stock", "scores", "history"]) field(name).value = "";
    drawDeck();
  });
  // A permalink fills the form from its query; the advisor runs only on a click (a link from elsewhere must not
  // make this machine sample for a minute).
  const query = new URLSearchParams(location.search);
  for (const name of FIELDS) if (query.has(name)) field(name).value = query.get(name);
  drawDeck();
  if (query.get("hand")) OK.status("filled from the link: click advise to run it");
})();
