// Coloretto helper: card counts per player, scored by the server on every change.
"use strict";

(() => {
  const players = {};  // name -> {card: count}
  const box = document.getElementById("players");
  const template = document.getElementById("player-template");

  // The counts survive a reload (a phone that locks mid-count): kept in this browser.
  const KEPT = "setupcam-coloretto";
  const keep = () => localStorage.setItem(KEPT, JSON.stringify({ table: document.getElementById("table").value, players }));

  function addPlayer(name, counts = {}) {
    name = name.trim();
    if (!name || players[name]) return;
    players[name] = {};
    const node = template.content.firstElementChild.cloneNode(true);
    node.dataset.player = name;
    node.querySelector(".name").textContent = name;
    node.querySelector(".remove").addEventListener("click", () => { delete players[name]; node.remove(); keep(); rescore(); });
    for (const row of node.querySelectorAll(".card-row")) {
      const card = row.dataset.card;
      const show = (count) => {
        players[name][card] = count;
        row.querySelector(".count").textContent = count;
      };
      const change = async (step) => {
        const before = players[name][card] || 0;
        show(Math.max(0, before + step));
        // A card the game cannot have (a tenth of a colour) is taken back: the banner
        // says why, and the totals shown are still those of the cards before it.
        if (!(await rescore())) { show(before); keep(); }
      };
      row.querySelector(".add").addEventListener("click", () => change(1));
      row.querySelector(".minus").addEventListener("click", () => change(-1));
      if (counts[card]) show(counts[card]);
    }
    box.appendChild(node);
    rescore();
  }

  // True once the totals shown are those of the cards shown.
  async function rescore() {
    keep();
    const names = Object.keys(players);
    if (!names.length) return true;
    // The page's seven colours: a joker may become any of them, held or not.
    const colours = JSON.parse(box.dataset.colours);
    const body = { table: document.getElementById("table").value, colours, players: {} };
    for (const name of names) {
      body.players[name] = {};
      for (const [card, count] of Object.entries(players[name])) if (count) body.players[name][card] = count;
    }
    try {
      const result = await setupcam.api("POST", "/api/coloretto/score", body);
      for (const name of names) {
        const node = box.querySelector(`[data-player="${CSS.escape(name)}"]`);
        const score = result.players[name];
        node.querySelector(".total").textContent = `${score.total} points`;
        node.querySelector(".explain").textContent = result.explain[name].join("\n");
      }
      return true;
    } catch (e) {
      return false;  // the banner says why (e.g. more than 9 cards of a colour)
    }
  }

  document.getElementById("add-player").addEventListener("click", () => {
    const input = document.getElementById("new-player");
    addPlayer(input.value);
    input.value = "";
  });
  document.getElementById("new-player").addEventListener("keydown", (e) => {
    if (e.key === "Enter") document.getElementById("add-player").click();
  });
  document.getElementById("table").addEventListener("change", rescore);
  try {
    const kept = JSON.parse(localStorage.getItem(KEPT) || "null");
    if (kept) {
      document.getElementById("table").value = kept.table === "purple" ? "purple" : "brown";
      for (const [name, counts] of Object.entries(kept.players || {})) addPlayer(name, counts);
    }
  } catch (e) { localStorage.removeItem(KEPT); }  // unreadable: start afresh
  setupcam.followCamera();
})();
