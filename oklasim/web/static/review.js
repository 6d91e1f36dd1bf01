// A review being judged in the server: start it (or join the running one), show its progress, and show the review
// once complete (the page is rendered again). A reloaded page finds a running review and watches it again.
"use strict";
(function () {
  const box = document.getElementById("review");
  if (!box) return;
  const id = box.dataset.game;
  const $ = name => document.getElementById(name);
  let polling = null;

  function show(state) {
    $("review-progress").max = state.total;
    $("review-progress").value = state.judged;
    $("review-count").textContent = `${state.judged} of ${state.total} decisions judged`;
    $("review-go").disabled = state.status === "running";
    if (state.status === "complete") location.reload();
    else if (state.status === "running") OK.status("the advisor is judging your decisions\u2026");
    else OK.status(state.error ? "the review stopped: " + state.error : "", !!state.error);
    if (state.status !== "running") stopPolling();
  }

  function stopPolling() {
    if (polling) clearInterval(polling);
    polling = null;
  }

  async function poll() {
    try {
      show(await OK.api("GET", `/api/review/${id}`));
    } catch (error) {
      stopPolling();
      OK.status(error.message, true);
    }
  }

  function watch() {
    if (!polling) polling = setInterval(poll, 1500);
  }

  const go = $("review-go");
  if (!go) return;  // nothing to review yet
  go.addEventListener("click", async () => {
    go.disabled = true;
    OK.status("starting\u2026");
    try {
      show(await OK.api("POST", `/api/review/${id}`, {}));
      watch();
    } catch (error) {
      go.disabled = false;
      OK.status(error.message, true);  // e.g. another game's review is being judged (429)
    }
  });
  if (box.dataset.status === "running") {
    go.disabled = true;
    OK.status("the advisor is judging your decisions\u2026");
    watch();
  }
})();
