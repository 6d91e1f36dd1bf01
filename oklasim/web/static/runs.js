// Runs: start a simulate, watch its progress (polling), cancel it; the list refreshes when it ends.
"use strict";
(function () {
  const $ = name => document.getElementById(name);
  let polling = null;

  function showJobs(jobs) {
    const box = $("jobs");
    box.replaceChildren();
    for (const j of jobs.slice().reverse()) {
      const div = OK.el("div", undefined, "job status-" + j.status);
      div.dataset.job = j.id;
      div.append(OK.el("strong", `${j.name}: ${j.status}`), OK.el("span", ` ${j.shards_done}/${j.shards} shards of ${j.count.toLocaleString()} ${j.mode}, ${j.seconds} s `));
      const bar = OK.el("progress");
      bar.max = 1;
      bar.value = j.progress;
      div.append(bar);
      if (j.status === "running") {
        const b = OK.el("button", "cancel", "cancel");
        b.type = "button";
        b.addEventListener("click", () => OK.api("POST", `/api/jobs/${j.id}/cancel`, {}).then(poll, e => OK.status(e.message, true)));
        div.append(b);
      } else if (j.status === "complete") {
        div.append(Object.assign(OK.el("a", " see the run"), {href: `/browse/runs/${j.name}`}));
      }
      if (j.output && j.status !== "complete") div.append(OK.el("pre", j.output.join("\n")));
      box.append(div);
    }
  }

  async function poll() {
    const jobs = await OK.api("GET", "/api/jobs");
    showJobs(jobs);
    const running = jobs.some(j => j.status === "running");
    if (running && !polling) polling = setInterval(poll, 1000);
    if (!running && polling) {
      clearInterval(polling);
      polling = null;
      location.reload();  // the finished run appears in the list
    }
  }

  $("sim-form").addEventListener("submit", async event => {
    event.preventDefault();
    const sent = {};
    for (const name of ["name", "rules", "strategies", "mode", "count", "seed", "workers"]) sent[name] = $("s-" + name).value.trim();
    OK.status("starting\u2026");
    try {
      await OK.api("POST", "/api/simulate", sent);
      OK.status("");
      poll();
    } catch (error) {
      OK.status(error.message, true);
    }
  });
  poll();
})();
