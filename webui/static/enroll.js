// The Enrol page: the plan's five photos, each laid out on the table and taken by the
// camera, then the set learnt. Every answer of /api/enrollment is the guide's state.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const SUIT_NAMES = ["★", "♥", "♦", "♣", "♠"];
  let guide = null;

  function render(state) {
    guide = state;
    const layout = state.layout;
    const taken = state.taken.filter(Boolean).length;
    $("enrol-status").textContent =
      (state.enrolled ? "The table is read with an enrolled set. " : "No tile set enrolled yet. ") +
      (!state.active && taken ? `${taken} of ${state.plan.length} photos taken are kept: press Go on. ` : "") +
      (state.simulated ? "This is the demo's simulated table: its players lay each photo out for you." : "");
    $("enrol-start").hidden = state.active;
    // Once a set is learnt, starting again means photographing it anew.
    $("enrol-start").textContent = taken ? "Go on" : state.enrolled ? "Enrol again" : "Start";
    $("enrol-close").hidden = !state.active;
    // Learnt: the photos are done; what is left is putting the game's tiles back.
    $("enrol-steps").hidden = !state.active || state.learnt;
    const live = $("enrol-live");
    if (state.active && !live.src) live.src = live.dataset.src;
    const photo = state.plan[state.showing];
    $("enrol-title").textContent = `Photo ${state.showing + 1} of ${state.plan.length}` +
      (state.taken[state.showing] ? " (taken)" : "");
    $("enrol-text").textContent = photo.text;
    boardDiagram.draw($("enrol-board"), { layout, players: [], position: photo, turns: [] });
    const list = $("enrol-photos");
    list.replaceChildren();
    state.plan.forEach((p, i) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.textContent = `${SUIT_NAMES[i] || ""} ${state.taken[i] ? "✓ taken" : "to take"}`;
      button.className = i === state.showing ? "primary" : "";
      button.addEventListener("click", () => call("show", { photo: i }));
      item.appendChild(button);
      list.appendChild(item);
    });
    $("enrol-learn").disabled = taken < state.plan.length;
    $("enrol-message").textContent = `${taken} of ${state.plan.length} photos taken`;
    const result = state.result;
    $("enrol-result").hidden = !result || (state.active && !state.learnt);
    if (result) {
      $("enrol-result-text").textContent =
        `Saved to ${result.saved}` + (result.previous ? ` (the one before is kept as ${result.previous})` : "") +
        `. Read with your set, the five photos show ${result.read_back} squares as planned` +
        (result.misread.length ? ` (not: ${result.misread.join(", ")})` : "") +
        ". The camera now reads the table with it." +
        (result.soft ? ` Note: ${result.soft}.` : "") +
        (state.learnt ? " No play is scored yet: put the game's tiles back as they were, then press Back to the game." : "");
    }
  }

  async function call(step, body) {
    try {
      render(await setupcam.api("POST", `/api/enrollment/${step}`, body || {}));
    } catch (e) {
      // The banner says why; the page shows the guide as it now is.
      await refresh();
    }
  }

  async function refresh() {
    const state = await setupcam.peek("/api/enrollment");
    if (state) render(state);
    const game = await setupcam.peek("/api/state");
    if (game) setupcam.showCamera(game.camera);
  }

  $("enrol-start").addEventListener("click", () => call("start"));
  $("enrol-close").addEventListener("click", () => call("close"));
  $("enrol-take").addEventListener("click", async () => {
    $("enrol-message").textContent = "taking the photo…";
    await call("take", { photo: guide.showing });
  });
  $("enrol-learn").addEventListener("click", async () => {
    $("enrol-learn").disabled = true;
    $("enrol-message").textContent = "learning your set (a few seconds)…";
    await call("finish");
  });

  // Leaving the page ends the photos' turn at the table (those taken are kept): a game
  // must not wait unscored behind a page nobody looks at.
  window.addEventListener("pagehide", () => {
    if (!guide || !guide.active) return;
    const token = setupcam.token();
    navigator.sendBeacon("/api/enrollment/close" + (token ? `?token=${encodeURIComponent(token)}` : ""));
  });

  refresh();
  // Another device may take a step, and the camera line changes: keep both current.
  setInterval(refresh, 2000);
})();
