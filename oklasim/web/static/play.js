// The game table: shows the seat's view, sends each click as a move, shows the referee's refusals and the coach.
"use strict";
(function () {
  const id = document.getElementById("game").dataset.game;
  const $ = name => document.getElementById(name);
  let state = null;
  let busy = false;

  // Each move carries the number of moves this page showed: played elsewhere meanwhile, it is refused (409).
  async function send(move) {
    if (busy) return;
    busy = true;
    OK.status("");  // a refusal shown is about the move before
    try {
      show(await OK.api("POST", `/api/play/${id}/move`, {move, moves: state.moves}));
      OK.status("");
    } catch (error) {
      OK.status("no: " + error.message, true);
      if (error.status === 409) await refresh();  // a stale page: the table as it is now
    } finally {
      busy = false;
    }
  }

  // A click on a card of the hand: a discard, or a knock when the toggle is on.
  function clickCard(card) {
    const d = state.decision;
    if (!d) return;
    send(($("knock-toggle").checked ? "knock " : "") + card);
  }

  function button(text, move, cls) {
    const b = OK.el("button", text, cls);
    b.type = "button";
    b.dataset.move = move;
    b.addEventListener("click", () => send(move));
    return b;
  }

  function show(s) {
    if (!state || state.moves !== s.moves) $("coach").textContent = "";  // advice is for one decision only
    state = s;
    $("game").dataset.moves = s.moves;  // what this page has shown: a new number once a move is played
    const names = s.names;
    $("headline").textContent = s.over ? "game over" : `hand ${s.hand_number}`;
    const scores = names.map((n, k) => `${n} ${s.scores[k]}`).join(", ");
    const limit = s.knock_limit === 0 ? "gin only" : `knock limit ${s.knock_limit}`;
    $("table-line").textContent = `${s.rules} rules \u00b7 against ${s.against} \u00b7 seed ${s.seed} \u00b7 ` +
      `${scores} (game to ${s.target}) \u00b7 ${limit}` + (s.upcard ? ` (upcard ${s.upcard})` : "");
    OK.cards($("pile"), s.pile.slice(-8));
    if (s.pile.length > 8) $("pile").prepend(OK.el("span", "\u2026 ", "note"));
    $("stock").replaceChildren(OK.el("span", `${s.stock} cards`, "card back"));
    $("holdings").replaceChildren(...Object.entries(s.holdings).map(([who, cards]) => {
      const div = OK.el("div", `${who} holds (from the pile): `);
      cards.forEach(c => div.append(OK.card(c)));
      return div;
    }));
    const hand = $("hand");
    hand.replaceChildren();
    const clickable = s.decision && (s.decision.kind === "discard" || s.decision.kind === "knock");
    for (const meld of s.hand.melds) {
      const group = OK.el("span", undefined, "meld");
      meld.forEach(c => group.append(OK.card(c, clickable ? clickCard : null)));
      hand.append(group);
    }
    s.hand.loose.forEach(c => hand.append(OK.card(c, clickable ? clickCard : null, "loose")));
    $("deadwood").textContent = `deadwood ${s.hand.deadwood}`;
    decision(s.decision, s);
    $("story").textContent = s.story.join("\n");
    $("story").scrollTop = $("story").scrollHeight;
    showdowns(s.showdowns);
    $("coach-go").disabled = !(s.decision && s.decision.coach);
    if (s.decision && s.decision.coach && $("coach-auto").checked) coach();
  }

  function decision(d, s) {
    const box = $("decision");
    box.replaceChildren();
    $("knock-toggle-line").hidden = !(d && (d.kind === "knock" || d.kind === "discard"));
    if (!d) {
      const r = s.result;
      const who = r.winner === null ? "nobody wins" : r.winner === 0 ? "you win" : `${s.names[r.winner]} wins`;
      box.append(OK.el("p", `${who}; totals ${s.names.map((n, k) => `${n} ${r.totals[k]}`).join(", ")}`, "result"));
      box.append(Object.assign(OK.el("a", "play another game"), {href: "/play"}));
      return;
    }
    if (d.kind === "take_upcard") {
      box.append(OK.el("span", `take the upcard ${s.pile[s.pile.length - 1]}? `), button("take", "t"), button("pass", "n"));
    } else if (d.kind === "draw") {
      box.append(OK.el("span", "draw: "), button(`pile (${s.pile[s.pile.length - 1]})`, "p"), button("stock", "s"));
    } else if (d.kind === "knock") {
      const knocks = d.knocks.map(k => `${k.card} (deadwood ${k.deadwood})`).join(", ");
      box.append(OK.el("span", d.last_chance ? `the wall: take the last discard only to knock, discarding ${knocks}: `
                                             : `you may knock discarding ${knocks || "-"}; or click a card to discard. `));
      d.knocks.forEach(k => box.append(button(`knock ${k.card}`, "knock " + k.card, "knock")));
      if (d.big_gin) box.append(button("big gin", "big gin", "knock"));
      if (d.last_chance) box.append(button("no (the hand is void)", "n"));
    } else if (d.kind === "discard") {
      box.append(OK.el("span", "click a card to discard" + (d.forbidden ? ` (not ${d.forbidden}, just taken)` : "")));
    } else if (d.kind === "arrange") {
      box.append(OK.el("span", "lay which melds? "));
      d.arrangements.forEach((melds, k) => box.append(button(melds.map(m => "[" + m.join(" ") + "]").join(" "), String(k + 1))));
    }
  }

  function showdowns(list) {
    const box = $("showdowns");
    box.replaceChildren();
    for (const sd of list.slice().reverse()) {
      const div = OK.el("div", undefined, "showdown");
      div.append(OK.el("p", `hand ${sd.hand}: ${sd.summary}`));
      for (const h of sd.hands) {
        const line = OK.el("div", `${h.name}: `);
        h.melds.forEach(m => { const g = OK.el("span", undefined, "meld"); m.forEach(c => g.append(OK.card(c))); line.append(g); });
        h.loose.forEach(c => line.append(OK.card(c, null, "loose")));
        line.append(OK.el("span", ` deadwood ${h.deadwood}`, "note"));
        div.append(line);
      }
      box.append(div);
    }
  }

  async function coach() {
    const asked = state.moves;
    $("coach").textContent = "the coach is sampling (a few seconds)\u2026";
    let text;
    try {
      const advice = await OK.api("POST", `/api/play/${id}/coach`, {});
      text = `assumes the opponent plays ${advice.assumes}\n` + advice.lines.join("\n");
    } catch (error) {
      text = "no advice: " + error.message;
    }
    if (state.moves === asked) $("coach").textContent = text;  // a move made meanwhile: that advice is stale
  }

  async function refresh() {
    try {
      show(await OK.api("GET", `/api/play/${id}`));
    } catch (error) {
      OK.status(error.message, true);
    }
  }

  $("coach-go").addEventListener("click", coach);
  refresh();
})();
