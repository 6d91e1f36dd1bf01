// The game table: shows the seat's view, sends each click as a move, shows the referee's refusals and the coach.
"use strict";
(function () {
  const id = document.getElementById("game").dataset.game;
  const $ = name => document.getElementById(name);
  let state = null;
  let busy = false;
  let typed = "";  // a card being typed (keys), e.g. "k7" before its suit
  // How many hands' ends were read ("next hand"), kept in this browser: a reload or a second tab shows the same.
  const READ = `oklasim-read-${id}`;

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
    typed = "";  // a half-typed card was for the table before
    OK.cards($("pile"), s.pile.slice(-8));
    if (s.pile.length > 8) $("pile").prepend(OK.el("span", "\u2026 ", "note"));
    botMoves(s.bots);
    $("stock").replaceChildren(OK.el("span", `${s.stock} cards`, "card back"));
    $("holdings").replaceChildren(...Object.entries(s.holdings).map(([who, cards]) => {
      const div = OK.el("div", `${who} holds (from the pile): `);
      cards.forEach(c => div.append(OK.card(c)));
      return div;
    }));
    mark($("holdings"), s.bots.map(b => b.took), "bot-took");
    const hand = $("hand");
    hand.replaceChildren();
    const clickable = s.decision && (s.decision.kind === "discard" || s.decision.kind === "knock");
    s.hand.melds.forEach(meld => hand.append(group(meld, "meld", clickable ? clickCard : null)));
    s.hand.loose.forEach(c => hand.append(OK.card(c, clickable ? clickCard : null, "loose")));
    $("deadwood").textContent = `deadwood ${s.hand.deadwood}`;
    decision(s.decision, s);
    $("showdowns").replaceChildren(...s.showdowns.slice().reverse().map(showdown));
    handEnd(s);
    $("coach-go").disabled = !(s.decision && s.decision.coach);
    if (s.decision && s.decision.coach && $("coach-auto").checked) coach();
  }

  function decision(d, s) {
    const box = $("decision");
    box.replaceChildren();
    $("knock-toggle-line").hidden = !(d && (d.kind === "knock" || d.kind === "discard"));
    if (!d) return;  // the game is over: the end-of-hand panel says how it ended
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

  const listed = (names, values) => names.map((n, k) => `${n} ${values[k]}`).join(", ");

  // The bots' turns since your last move, beside the pile; the cards they threw (on the pile) and took (in their
  // holdings) are marked.
  function botMoves(bots) {
    $("bot-moves").replaceChildren(...bots.map(b => OK.el("div", b.text)));
    mark($("pile"), bots.map(b => b.threw), "bot-threw");
  }

  function mark(box, cards, cls) {
    box.querySelectorAll(".card").forEach(el => el.classList.toggle(cls, cards.includes(el.dataset.card)));
  }

  function group(cards, cls, onclick, extra) {
    const g = OK.el("span", undefined, cls);
    cards.forEach(c => g.append(OK.card(c, onclick, extra)));
    return g;
  }

  // One hand's end: every hand sorted into melds (the knocker's as laid, the others' after their layoffs, the
  // laid-off cards marked), deadwood before and after the layoffs, how the points were counted, the score.
  function showdown(sd) {
    const div = OK.el("div", undefined, "showdown");
    div.dataset.hand = sd.hand;
    div.append(OK.el("h3", `hand ${sd.hand}: ${sd.summary}`));
    for (const h of sd.hands) {
      const line = OK.el("div", `${h.name}: `, "shown-hand");
      h.melds.forEach(m => line.append(group(m, "meld", null)));
      if (h.laid_off.length) {
        const laid = group(h.laid_off, "laid-off-group", null, "laid-off");
        laid.prepend(OK.el("span", "laid off \u21aa ", "note"));
        line.append(laid);
      }
      h.loose.forEach(c => line.append(OK.card(c, null, "loose")));
      const deadwood = h.role === "opponent" ? `deadwood ${h.before} before layoffs, ${h.deadwood} after`
                                              : `deadwood ${h.deadwood}` + (h.role === "knocker" ? ", knocked" : "");
      line.append(OK.el("span", ` ${deadwood}`, "note deadwood"));
      div.append(line);
    }
    sd.points.forEach(p => div.append(OK.el("p", `points: ${p}`, "points")));
    div.append(OK.el("p", `score ${listed(sd.names, sd.scores)} (game to ${sd.target})`, "score"));
    return div;
  }

  function readHands() { return Number(localStorage.getItem(READ) || 0); }

  // The latest hand's end stays on top, the next deal hidden, until "next hand" (until the end, once the game is
  // over). Shown only while nothing was played since: a game reopened mid-hand shows the table.
  function handEnd(s) {
    const last = s.showdowns[s.showdowns.length - 1];
    const open = last && (s.over || (last.moves === s.moves && readHands() < s.showdowns.length));
    const panel = $("hand-end");
    if (open && panel.hidden) window.scrollTo(0, 0);
    panel.hidden = !open;
    $("live").hidden = !!open;
    $("headline").textContent = s.over ? "game over" : open ? `hand ${last.hand} is over` : `hand ${s.hand_number}`;
    tableLine(s, open && last);
    $("story").textContent = s.story.slice(0, open ? Math.max(0, s.story.length - (s.told - last.told)) : undefined)
      .join("\n");
    $("story").scrollTop = $("story").scrollHeight;
    if (!open) return;
    panel.replaceChildren(showdown(last));
    if (s.over) {
      panel.append(OK.el("p", s.ending.line, "result"));
      s.ending.bonuses.forEach(line => panel.append(OK.el("p", line, "note")));
      // Two players: the advisor weighs two-player hands, so only those games can be reviewed.
      if (s.names.length === 2) {
        panel.append(Object.assign(OK.el("a", "review this game"), {href: `/review/${id}`}), " \u00b7 ");
      }
      panel.append(Object.assign(OK.el("a", "play another game"), {href: "/play"}));
      return;
    }
    const next = OK.el("button", "next hand", "next-hand");
    next.id = "next-hand";
    next.type = "button";
    next.addEventListener("click", nextHand);
    panel.append(next, OK.el("span", " (or Enter)", "note"));
  }

  // The rules and the score; the knock limit and the upcard of the hand being played, none of the next one's while
  // a hand's end (``ended``) shows, and the totals once the game is over.
  function tableLine(s, ended) {
    const scores = s.over ? `totals ${listed(s.names, s.ending.totals)}`
                          : `score ${listed(s.names, ended ? ended.scores : s.scores)}`;
    const limit = s.knock_limit === 0 ? "gin only" : `knock limit ${s.knock_limit}`;
    $("table-line").textContent = `${s.rules} rules \u00b7 against ${s.against} \u00b7 seed ${s.seed} \u00b7 ` +
      `${scores} (game to ${s.target})` + (ended ? "" : ` \u00b7 ${limit}` + (s.upcard ? ` (upcard ${s.upcard})` : ""));
  }

  function nextHand() {
    localStorage.setItem(READ, String(state.showdowns.length));
    handEnd(state);
  }

  // Keys, as the legend on the page says; none while typing in a field, and only Enter while a hand's end shows.
  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || !state) return;
    const field = event.target.closest("input, textarea, select, [contenteditable]");
    if (field && !["checkbox", "radio"].includes(field.type)) return;  // typing there; a ticked box is no field
    if (!$("hand-end").hidden) {
      if (event.key === "Enter" && $("next-hand")) {
        event.preventDefault();
        nextHand();
      }
      return;
    }
    const move = keyMove(state.decision, event.key.toLowerCase());
    $("typed").textContent = typed ? `typed: ${typed}` : "";
    if (move) {
      event.preventDefault();
      send(move);
    }
  }

  // The move a key makes at decision d, if any. A card is typed rank then suit ("7h"; "t" or "0" for the ten),
  // "k" before it knocks with it ("kks": knock with the king of spades).
  function keyMove(d, key) {
    if (!d) return null;
    const named = {take_upcard: {t: "t", n: "n"}, draw: {p: "p", s: "s"}}[d.kind];
    if (named) return named[key] || null;
    if (d.kind === "arrange") return /^[1-9]$/.test(key) && Number(key) <= d.arrangements.length ? key : null;
    if (d.kind === "knock" && d.last_chance && key === "n") return "n";
    if (key === "escape") typed = "";
    if (key.length !== 1 || key === "1") return null;  // "10h": the 0 makes the ten
    typed += key === "0" ? "t" : key;
    const card = /^(k?)([a2-9tjqk][scdh])$/.exec(typed);
    if (card) {
      typed = "";
      return (card[1] ? "knock " : "") + card[2];
    }
    if (!/^k?[a2-9tjqk]?$/.test(typed)) typed = /^[a2-9tjqk]$/.test(key) ? key : "";  // a slip: start again
    return null;
  }

  // The coach's sentence first, its numbers a click away; the card it names (to take or to discard) is marked
  // in the hand and on the pile.
  async function coach() {
    const asked = state.moves;
    $("coach").textContent = "the coach is sampling (a few seconds)\u2026";
    let shown, card = null;
    try {
      const brief = await OK.api("POST", `/api/play/${id}/coach`, {});
      shown = [OK.el("p", brief.sentence, "coach-sentence")];
      if (brief.details.length) {
        const numbers = OK.el("details", undefined, "coach-numbers");
        numbers.append(OK.el("summary", "the numbers"), OK.el("pre", brief.details.join("\n")));
        shown.push(numbers);
      }
      card = brief.card;
    } catch (error) {
      shown = [OK.el("p", "no advice: " + error.message)];
    }
    if (state.moves !== asked) return;  // a move made meanwhile: that advice is stale
    $("coach").replaceChildren(...shown);
    [$("hand"), $("pile")].forEach(box => mark(box, [card], "suggested"));
  }

  async function refresh() {
    try {
      show(await OK.api("GET", `/api/play/${id}`));
    } catch (error) {
      OK.status(error.message, true);
    }
  }

  $("coach-go").addEventListener("click", coach);
  document.addEventListener("keydown", onKey);
  refresh();
})();
