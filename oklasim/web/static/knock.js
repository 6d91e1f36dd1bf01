// The knock policy: one short table per rules preset, bonus and answer; its basis one click away.
"use strict";
(function () {
  const $ = name => document.getElementById(name);

  async function show(event) {
    if (event) event.preventDefault();
    const query = new URLSearchParams({rules: $("k-rules").value, answer: $("k-answer").value});
    if ($("k-bonus").value.trim()) query.set("bonus", $("k-bonus").value.trim());
    history.replaceState(null, "", "/knock?" + query.toString());
    const out = $("knock");
    out.replaceChildren();
    OK.status("looking up\u2026");
    try {
      const k = await OK.api("GET", "/api/knock?" + query.toString());
      OK.status("");
      out.append(OK.el("h2", `${k.rules} rules, undercut bonus ${k.undercut_bonus}: ${k.heading}`));
      const t = OK.el("table", undefined, "advice knock-table");
      const head = document.createElement("tr");
      ["knock limit", "what to do", k.gain_label].forEach(h => head.append(OK.el("th", h)));
      t.append(head);
      for (const r of k.rows) {
        const tr = document.createElement("tr");
        const gain = r.gain === null ? "" : `${r.gain >= 0 ? "+" : ""}${r.gain.toFixed(2)} [${r.low.toFixed(2)}, ${r.high.toFixed(2)}]`;
        [r.limit, r.do + (r.also ? ` (+${r.also} within noise)` : "") + (r.worst ? ` [worst: ${r.worst}]` : "")
          + (r.warning ? ` ${r.warning}` : ""), gain].forEach(c => tr.append(OK.el("td", c)));
        t.append(tr);
      }
      out.append(t);
      out.append(OK.el("p", `from ${k.source}; measured by: ${k.command}`, "note"));
      const details = OK.el("details");
      details.append(OK.el("summary", "details: every answer, how it was measured"), OK.el("pre", k.details));
      out.append(details);
    } catch (error) {
      OK.status(error.message, true);
    }
  }

  $("knock-form").addEventListener("submit", show);
  const query = new URLSearchParams(location.search);
  for (const [name, id] of [["rules", "k-rules"], ["bonus", "k-bonus"], ["answer", "k-answer"]])
    if (query.has(name)) $(id).value = query.get(name);
  show();
})();
