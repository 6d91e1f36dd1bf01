// The new-game form: deal, then go to the game's own page (its address resumes it).
"use strict";
document.getElementById("new-game").addEventListener("submit", async event => {
  event.preventDefault();
  const sent = {};
  for (const name of ["rules", "players", "against", "seed"]) sent[name] = document.getElementById("g-" + name).value.trim() || null;
  OK.status("dealing\u2026");
  try {
    const game = await OK.api("POST", "/api/play", sent);
    location.href = "/play/" + game.id;
  } catch (error) {
    OK.status(error.message, true);
  }
});
