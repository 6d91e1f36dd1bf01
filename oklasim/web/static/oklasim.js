// Shared by every page: the API call (with the page token) and how a card looks.
"use strict";
const OK = {
  SUITS: {s: "\u2660", c: "\u2663", d: "\u2666", h: "\u2665"},
  RANKS: "A23456789TJQK",

  token() { return document.querySelector('meta[name="oklasim-token"]').content; },

  // JSON in, JSON out; a refusal rejects with the server's one-line reason (and its HTTP status).
  async api(method, url, body) {
    const options = {method, headers: {"X-Oklasim-Token": OK.token()}};
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const response = await fetch(url, options);
    const data = await response.json().catch(() => ({error: `HTTP ${response.status}`}));
    if (!response.ok) throw Object.assign(new Error(data.error || `HTTP ${response.status}`), {status: response.status});
    return data;
  },

  // A card ("Kd") as an element; clickable when onclick is given.
  card(text, onclick, extra) {
    const el = document.createElement(onclick ? "button" : "span");
    const suit = text.slice(-1).toLowerCase();
    el.className = `card suit-${suit}` + (extra ? ` ${extra}` : "");
    el.dataset.card = text;
    el.textContent = text.slice(0, -1).toUpperCase().replace("T", "10") + OK.SUITS[suit];
    if (onclick) { el.type = "button"; el.addEventListener("click", () => onclick(text, el)); }
    return el;
  },

  cards(container, list, onclick, extra) {
    container.replaceChildren(...list.map(c => OK.card(c, onclick, extra)));
  },

  status(text, isError) {
    const el = document.getElementById("status");
    el.textContent = text;
    el.className = "status" + (isError ? " error" : "");
  },

  fmt(e, pct) {
    if (!e) return "-";
    const f = v => pct ? (100 * v).toFixed(1) + "%" : (v >= 0 ? "+" : "") + v.toFixed(2);
    return `${f(e.mean)} [${f(e.low)}, ${f(e.high)}]`;
  },

  el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  },
};
