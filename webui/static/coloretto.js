// Coloretto helper: card counts per player, scored by the server on every change.
"use strict";

(() => {
  const MAX_PLAYERS = 5;  // Coloretto is for 2 to 5 players
  // name -> {card: count}. A Map: a player named "constructor" is a player, not a
  // property every object has.
  const players = new Map();
  const box = document.getElementById("players");
  const template = document.getElementById("player-template");
  const winner = document.getElementById("winner");
  const clear = document.getElementById("clear-players");

  // The counts survive a reload (a phone that locks mid-count): kept in this browser.
  const KEPT = "setupcam-coloretto";
  const keep = () => localStorage.setItem(KEPT, JSON.stringify({
    table: document.getElementById("table").value, players: Object.fromEntries(players),
  }));

  function addPlayer(name, counts = {}) {
    name = name.trim();
    if (!name) return setupcam.showError("Give the player a name first.");
    if (players.has(name)) return setupcam.showError(`${name} is already counted.`);
    if (players.size >= MAX_PLAYERS) {
      return setupcam.showError(`Coloretto is for 2 to ${MAX_PLAYERS} players: remove one first.`);
    }
    setupcam.hideError();
    players.set(name, {});
    const node = template.content.firstElementChild.cloneNode(true);
    node.dataset.player = name;
    node.querySelector(".name").textContent = name;
    node.querySelector(".remove").addEventListener("click", () => {
      players.delete(name); node.remove(); keep(); rescore();
    });
    for (const row of node.querySelectorAll(".card-row")) {
      const card = row.dataset.card;
      const show = (count) => {
        players.get(name)[card] = count;
        row.querySelector(".count").textContent = count;
      };
      const change = async (step) => {
        const before = players.get(name)[card] || 0;
        show(Math.max(0, before + step));
        // A card the game cannot have (a tenth of a colour) is taken back: the banner
        // says why, and the totals shown are still those of the cards before it.
        if ((await rescore()) === false) { show(before); rescore({ keepBanner: true }); }
      };
      row.querySelector(".add").addEventListener("click", () => change(1));
      row.querySelector(".minus").addEventListener("click", () => change(-1));
      if (counts[card]) show(counts[card]);
    }
    box.appendChild(node);
    rescore();
  }

  // Each tap asks the server again; only the answer to the latest question is shown
  // (an earlier one arriving late would show totals for cards no longer on screen).
  let asked = 0;

  // True once the totals shown are those of the cards shown; false when the server
  // refused the cards; null when a later tap has already asked again.
  // With keepBanner, the error banner is left as it is (it says why a card was refused).
  async function rescore({ keepBanner = false } = {}) {
    keep();
    clear.hidden = players.size === 0;
    const mine = ++asked;
    if (!players.size) { winner.textContent = ""; return true; }
    // The page's seven colours: a joker may become any of them, held or not.
    const colours = JSON.parse(box.dataset.colours);
    const body = { table: document.getElementById("table").value, colours, players: {} };
    for (const [name, cards] of players) {
      body.players[name] = {};
      for (const [card, count] of Object.entries(cards)) if (count) body.players[name][card] = count;
    }
    let result;
    try {
      if (keepBanner) {
        const { response, data } = await setupcam.ask("POST", "/api/coloretto/score", body);
        if (!response.ok) throw new Error(data && data.error);
        result = data;
      } else {
        result = await setupcam.api("POST", "/api/coloretto/score", body);
      }
    } catch (e) {
      return mine === asked ? false : null;  // the banner says why (e.g. a tenth red card)
    }
    if (mine !== asked) return null;
    for (const [name, score] of Object.entries(result.players)) {
      const node = box.querySelector(`[data-player="${CSS.escape(name)}"]`);
      if (!node) continue;
      node.querySelector(".total").textContent = `${score.total} point${score.total === 1 ? "" : "s"}`;
      node.querySelector(".explain").textContent = result.explain[name].join("\n");
    }
    showWinner(result.players);
    return true;
  }

  function showWinner(scores) {
    // In the page's order (the answer's keys come sorted).
    const totals = [...players.keys()].filter((name) => scores[name]).map((name) => [name, scores[name].total]);
    if (totals.length < 2) { winner.textContent = ""; return; }
    const best = Math.max(...totals.map(([, total]) => total));
    const top = totals.filter(([, total]) => total === best).map(([name]) => name);
    winner.textContent = top.length === 1
      ? `Winner: ${top[0]} with ${best}`
      : `Tie between ${top.join(", ")} with ${best}`;
  }

  document.getElementById("add-player").addEventListener("click", () => {
    const input = document.getElementById("new-player");
    addPlayer(input.value);
    input.value = "";
  });
  document.getElementById("new-player").addEventListener("keydown", (e) => {
    if (e.key === "Enter") document.getElementById("add-player").click();
  });
  clear.addEventListener("click", () => {
    if (!window.confirm("Start a new count? Every player's cards on this page are cleared.")) return;
    players.clear();
    box.replaceChildren();
    rescore();
  });
  document.getElementById("table").addEventListener("change", rescore);
  try {
    const kept = JSON.parse(localStorage.getItem(KEPT) || "null");
    if (kept) {
      document.getElementById("table").value = kept.table === "purple" ? "purple" : "brown";
      for (const [name, counts] of Object.entries(kept.players || {}).slice(0, MAX_PLAYERS)) {
        addPlayer(name, counts);
      }
    }
  } catch (e) { localStorage.removeItem(KEPT); }  // unreadable: start afresh
  setupcam.followCamera();
})();
