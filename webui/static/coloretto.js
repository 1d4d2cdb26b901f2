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
    removed: removedColours(),
  }));

  // The colours taken out of this game (3 players: one, 2 players: two): no card of
  // theirs can be held, and no joker may become one.
  const inPlay = [...document.querySelectorAll("#in-play input")];
  const removedColours = () => inPlay.filter((box) => !box.checked).map((box) => box.value);
  function markRemoved() {
    const removed = new Set(removedColours());
    for (const row of box.querySelectorAll(".card-row")) {
      row.classList.toggle("out", removed.has(row.dataset.card));
    }
  }

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
        show(Math.max(0, (players.get(name)[card] || 0) + step));
        // A card the game cannot have (a tenth of a colour) is taken back, with every
        // tap since the last counts the server took (two quick taps at nine): the
        // banner says why, and the totals shown are those of the cards shown.
        if ((await rescore()) === false) { restoreAccepted(); rescore({ keepBanner: true }); }
      };
      row.querySelector(".add").addEventListener("click", () => change(1));
      row.querySelector(".minus").addEventListener("click", () => change(-1));
      if (counts[card]) show(counts[card]);
      shows.set(`${name}\u0000${card}`, show);
    }
    box.appendChild(node);
    markRemoved();
    rescore();
  }

  // The counts the server last scored, to go back to when it refuses newer ones.
  let accepted = new Map();
  const shows = new Map();  // "player\0card" -> how to show that count
  function restoreAccepted() {
    for (const [name, cards] of players) {
      const kept = accepted.get(name) || {};
      for (const card of Object.keys({ ...cards, ...kept })) {
        const show = shows.get(`${name}\u0000${card}`);
        if (show) show(kept[card] || 0);
      }
    }
    keep();
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
    // The colours in this game: a joker may become any of them, held or not.
    const removed = removedColours();
    const colours = JSON.parse(box.dataset.colours).filter((c) => !removed.includes(c));
    // Objects without a prototype: a player named "__proto__" is a key like any other.
    const body = {
      table: document.getElementById("table").value, colours, removed, players: Object.create(null),
    };
    const sent = new Map();
    for (const [name, cards] of players) {
      body.players[name] = Object.create(null);
      for (const [card, count] of Object.entries(cards)) if (count) body.players[name][card] = count;
      sent.set(name, { ...cards });
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
    accepted = sent;
    for (const [name, score] of Object.entries(result.players)) {
      const node = box.querySelector(`[data-player="${CSS.escape(name)}"]`);
      if (!node) continue;
      node.querySelector(".total").textContent = `${score.total} point${score.total === 1 ? "" : "s"}`;
      showAccount(node, score, result.accounts[name]);
    }
    showWinner(result.players);
    return true;
  }

  // One row per colour (cards after the jokers, points, positive or negative), then
  // the "+2" cards; below, where the jokers go and whether other choices tie.
  function showAccount(node, score, account) {
    const rows = node.querySelector(".account tbody");
    rows.replaceChildren();
    const row = (cells, kind) => {
      const tr = document.createElement("tr");
      if (kind) tr.className = kind;
      cells.forEach((text, i) => {
        const td = document.createElement("td");
        td.textContent = text;
        if (i === 2) td.className = "points";
        tr.appendChild(td);
      });
      rows.appendChild(tr);
    };
    const colours = Object.keys(score.by_colour).sort((a, b) =>
      score.by_colour[b] - score.by_colour[a] || a.localeCompare(b));
    for (const colour of colours) {
      const points = score.by_colour[colour];
      const jokers = score.jokers[colour] || 0;
      const cards = account.cards[colour];
      const held = `${cards} card${cards === 1 ? "" : "s"}` + (jokers ? ` (${jokers} joker${jokers === 1 ? "" : "s"})` : "");
      row([colour, held, (points > 0 ? "+" : "") + points], points > 0 ? "positive" : "negative");
    }
    if (account.plus_two) row(['"+2"', `${account.plus_two / 2} card${account.plus_two === 2 ? "" : "s"}`, `+${account.plus_two}`]);
    const notes = [];
    const placed = Object.entries(score.jokers);
    if (placed.length) notes.push("Jokers: " + placed.map(([c, n]) => `${n} on ${c}`).join(", ") + ".");
    if (account.ties) notes.push(`${account.ties} other choice${account.ties === 1 ? "" : "s"} reach the same total.`);
    node.querySelector(".account-note").textContent = notes.join(" ");
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
  for (const tick of inPlay) tick.addEventListener("change", () => { markRemoved(); rescore(); });
  try {
    const kept = JSON.parse(localStorage.getItem(KEPT) || "null");
    if (kept) {
      document.getElementById("table").value = kept.table === "purple" ? "purple" : "brown";
      const removed = new Set(Array.isArray(kept.removed) ? kept.removed : []);
      for (const tick of inPlay) tick.checked = !removed.has(tick.value);
      for (const [name, counts] of Object.entries(kept.players || {}).slice(0, MAX_PLAYERS)) {
        addPlayer(name, counts);
      }
    }
  } catch (e) { localStorage.removeItem(KEPT); }  // unreadable: start afresh
  setupcam.followCamera();
})();
