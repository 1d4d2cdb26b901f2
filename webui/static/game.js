// The game page: follows the state over server-sent events and renders the
// scoreboard, the turn log, the chart, the bonus alert and the dialogs.
"use strict";

(() => {
  let state = null;
  let shownTurn = null;  // a turn picked in the log, whose sets the diagram highlights
  let lastTurnCount = null;
  let bonusTimer = null;

  const $ = (id) => document.getElementById(id);

  function describeTurn(t) {
    if (t.action === "swap") return `${t.player} swapped tiles.`;
    const placed = Object.entries(t.placed).map(([s, tile]) => `${tile} on ${s}`).join(", ");
    if (!t.legal) return `${t.player} placed ${placed || "nothing"}: not a legal play (${t.errors.join("; ")}); taken back, no points.` +
      (t.warnings || []).map((w) => ` Check: ${w}.`).join("");
    const sets = t.sets.map((s) => s.join(" ")).join(" | ");
    const bonus = Object.entries(t.bonus).map(([p, b]) => `${p} +${b}`).join(", ");
    const warnings = (t.warnings || []).map((w) => ` Check: ${w}.`).join("");
    return `${t.player} placed ${placed}: ${t.points} point${t.points === 1 ? "" : "s"}` +
      (sets ? ` (sets: ${sets})` : "") + (bonus ? `; bonus: ${bonus}` : "") + "." + warnings;
  }

  function renderScoreboard() {
    const body = $("scoreboard").querySelector("tbody");
    body.replaceChildren();
    for (const p of state.players) {
      const row = document.createElement("tr");
      row.dataset.player = p.colour;
      if (p.colour === state.next_player) row.classList.add("to-play");
      row.innerHTML = `<td><span class="pawn"></span></td><td class="name"></td>` +
        `<td class="score"></td><td class="to-finish"></td>`;
      row.querySelector(".pawn").style.background = setupcam.playerColour(p.colour);
      row.querySelector(".name").textContent = p.colour + (p.team ? ` (team ${p.team.join("+")})` : "");
      row.querySelector(".score").textContent = p.score;
      row.querySelector(".to-finish").textContent = p.to_finish ? `${p.to_finish} to go` : "finish!";
      body.appendChild(row);
    }
    const info = $("turn-info");
    if (state.status === "no game") info.textContent = "No game yet: press New game.";
    else if (state.ending) info.textContent = "The game is over.";
    else info.textContent = `${state.next_player} to play. Finish line: ${state.finish_line}. ` +
      `Tiles in the bag: ${state.in_bag}; buried under stacks: ${state.buried.length}.`;
  }

  function renderLog() {
    const log = $("turn-log");
    log.replaceChildren();
    for (const t of [...state.turns].reverse()) {
      const item = document.createElement("li");
      item.value = t.turn;
      item.className = t.action === "swap" ? "swap" : t.legal ? "play" : "illegal";
      item.style.borderLeftColor = setupcam.playerColour(t.player);
      item.textContent = describeTurn(t);
      item.title = "Show this turn's sets on the board";
      if (shownTurn && shownTurn.turn === t.turn) item.classList.add("shown");
      item.addEventListener("click", () => {
        shownTurn = shownTurn && shownTurn.turn === t.turn ? null : t;
        render();
      });
      log.appendChild(item);
    }
  }

  function renderChart() {
    const svg = $("chart");
    svg.replaceChildren();
    const NS = "http://www.w3.org/2000/svg";
    const turns = state.turns;
    const W = 300, H = 120, pad = 14, left = 24;
    const top = Math.max(state.finish_line || 10, ...state.players.map((p) => p.score));
    const x = (i) => left + (W - left - pad) * (turns.length ? i / turns.length : 0);
    const y = (v) => H - pad - (H - 2 * pad) * (v / top);
    const line = document.createElementNS(NS, "line");
    Object.entries({ x1: left, x2: W - pad, y1: y(state.finish_line || top), y2: y(state.finish_line || top), class: "finish" })
      .forEach(([k, v]) => line.setAttribute(k, v));
    svg.appendChild(line);
    // Scale: points up the side (0 and the finish line), turns along the bottom.
    const label = (text, lx, ly, anchor) => {
      const t = document.createElementNS(NS, "text");
      Object.entries({ x: lx, y: ly, class: "chart-label", "text-anchor": anchor }).forEach(([k, v]) => t.setAttribute(k, v));
      t.textContent = text;
      svg.appendChild(t);
    };
    label("0", left - 4, y(0) + 3, "end");
    label(String(state.finish_line || top), left - 4, y(state.finish_line || top) + 3, "end");
    label(turns.length ? `turn ${turns.length}` : "no turn yet", W - pad, H - 2, "end");
    for (const p of state.players) {
      const points = [[x(0), y(0)], ...turns.map((t, i) => [x(i + 1), y(t.scores[p.colour])])];
      const path = document.createElementNS(NS, "polyline");
      path.setAttribute("points", points.map((pt) => pt.join(",")).join(" "));
      path.setAttribute("stroke", setupcam.playerColour(p.colour));
      path.setAttribute("class", "score-line");
      path.dataset.player = p.colour;
      svg.appendChild(path);
    }
  }

  function renderBonus() {
    const count = state.turns.length;
    const fresh = lastTurnCount !== null && count > lastTurnCount;
    lastTurnCount = count;
    if (!fresh) return;
    const t = state.turns[count - 1];
    const alert = $("bonus-alert");
    const entries = Object.entries(t.bonus || {});
    if (!t.legal || !entries.length) { alert.hidden = true; return; }
    alert.replaceChildren();
    for (const [player, bonus] of entries) {
      const line = document.createElement("div");
      line.textContent = `${player[0].toUpperCase() + player.slice(1)} +${bonus}: move your pawn!`;
      line.style.color = setupcam.playerColour(player);
      alert.appendChild(line);
    }
    alert.hidden = false;
    clearTimeout(bonusTimer);
    bonusTimer = setTimeout(() => { alert.hidden = true; }, 12000);
  }

  function renderPending() {
    const box = $("pending");
    const p = state.pending;
    if (!p) { box.hidden = true; return; }
    $("pending-text").textContent = `${p.player}'s play: ${p.reasons.join("; ")}.`;
    const holder = $("pending-squares");
    holder.replaceChildren();
    for (const square of p.uncertain_squares) {
      const label = document.createElement("label");
      label.textContent = `${square}: `;
      const select = document.createElement("select");
      select.dataset.square = square;
      const options = p.alternatives[square] || [];
      for (const option of options) {
        const o = document.createElement("option");
        o.value = option.tile === null ? "" : option.tile;
        o.textContent = `${option.tile === null ? "empty" : option.tile} (${Math.round(option.p * 100)}%)`;
        select.appendChild(o);
      }
      // The camera's guesses may all be wrong: the players can say what is there.
      if (!options.some((o) => o.tile === null)) select.appendChild(new Option("empty", ""));
      select.appendChild(new Option("another tile…", "other"));
      const other = document.createElement("input");
      other.size = 4;
      other.placeholder = "7H";
      other.hidden = true;
      select.addEventListener("change", () => { other.hidden = select.value !== "other"; if (!other.hidden) other.focus(); });
      const current = p.position.squares[square];
      select.value = current === null ? "" : current;
      label.append(select, other);
      holder.appendChild(label);
    }
    box.hidden = false;
  }

  function renderEnding() {
    const box = $("game-over");
    // No swap once the game is over (or before it starts); undo stays, to reopen it.
    $("swap-button").disabled = Boolean(state.ending) || state.status === "no game";
    if (!state.ending) { box.hidden = true; return; }
    $("game-over-title").textContent = `${state.ending.winner} wins!`;
    $("game-over-reason").textContent = `${state.ending.reason}. Game over after turn ${state.ending.after_turn}.`;
    box.hidden = false;
  }

  function render() {
    setupcam.showCamera(state.camera);
    renderScoreboard();
    if (shownTurn && !state.turns.some((t) => t.turn === shownTurn.turn)) shownTurn = null;
    boardDiagram.draw($("board"), state, openCorrection, shownTurn);
    renderLog();
    renderChart();
    renderBonus();
    renderPending();
    renderEnding();
    document.body.dataset.version = state.version;
    document.body.dataset.turns = state.turns.length;
  }

  // The dialog shows the square as recorded after the chosen turn (an illegal play's
  // tiles are on its recorded board, though the game took them back).
  function showRecorded(square, turn) {
    const form = $("correct-form");
    const board = (state.recorded_boards || [])[turn];
    const tile = board ? board.squares[square] : null;
    form.value.value = tile ? tile.slice(0, -1) : "";
    form.suit.value = tile ? { "★": "X", "♥": "H", "♦": "D", "♣": "C", "♠": "S" }[tile.slice(-1)] : "X";
  }

  function openCorrection(square) {
    if (!state || state.status === "no game") return;
    const dialog = $("correct-dialog");
    $("correct-square").textContent = square;
    dialog.dataset.square = square;
    const form = $("correct-form");
    // Which board the fix is for: by default the turn that put this tile there (the
    // server's own choice), so a later turn's score is not changed by mistake.
    const boards = [["0", "the starting board"]].concat(
      state.turns.filter((t) => t.action === "play").map((t) => [String(t.turn), `turn ${t.turn} (${t.player})`]));
    form.turn.replaceChildren(...boards.map(([value, text]) => new Option(text, value)));
    form.turn.value = String((state.correction_turns || {})[square] ?? 0);
    showRecorded(square, Number(form.turn.value));
    $("correct-preview").textContent = "";
    dialog.showModal();
  }
  $("correct-turn").addEventListener("change", () => {
    showRecorded($("correct-dialog").dataset.square, Number($("correct-turn").value));
    previewCorrection();
  });
  for (const name of ["value", "suit"]) $("correct-form")[name].addEventListener("change", previewCorrection);

  function correctionBody() {
    const form = $("correct-form");
    const tile = form.value.value ? form.value.value + form.suit.value : null;
    return { square: $("correct-dialog").dataset.square, tile, turn: Number(form.turn.value) };
  }

  // Before saving, the players see what the correction does to the scores: one fix to
  // an early turn can take back several plays.
  async function previewCorrection() {
    const line = $("correct-preview");
    let data = null, ok = false;
    try {
      const answer = await setupcam.ask("POST", "/api/correct/preview", correctionBody());
      ok = answer.response.ok;
      data = answer.data;
    } catch (e) { /* the line stays empty */ }
    if (!data) { line.textContent = ""; return; }
    if (!ok) { line.textContent = `Cannot be saved: ${data.error}`; return; }
    const changes = state.players.map((p) => p.colour).filter((p) => data.scores[p] !== data.scores_now[p])
      .map((p) => `${p} ${data.scores_now[p]} → ${data.scores[p]}`);
    const illegal = data.turns_made_illegal;
    line.textContent = (changes.length ? `Saving changes the scores: ${changes.join(", ")}.` : "Saving leaves the scores as they are.") +
      (illegal.length ? ` Turn${illegal.length > 1 ? "s" : ""} ${illegal.join(", ")} would become illegal (taken back).` : "");
  }

  $("correct-form").addEventListener("submit", async (e) => {
    if (e.submitter && e.submitter.value === "cancel") return;
    try { await setupcam.api("POST", "/api/correct", correctionBody()); } catch (err) { /* banner shown */ }
  });

  $("new-game-button").addEventListener("click", async () => {
    $("new-game-dialog").showModal();
    // Games set aside by a new game stay in the database: offer them back.
    let games = [];
    try { games = (await setupcam.api("GET", "/api/games")).games; } catch (e) { /* banner */ }
    const current = state && state.game_id;
    const unfinished = games.filter((g) => g.status !== "finished" && g.id !== current).reverse();
    $("resume-games").hidden = unfinished.length === 0;
    $("resume-list").replaceChildren(...unfinished.map((g) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      const started = new Date(g.created_at).toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
      button.textContent = `Game ${g.id} (${started}): ${g.players.join(", ")}, ${g.turns} turn${g.turns === 1 ? "" : "s"}`;
      button.addEventListener("click", async () => {
        try { await setupcam.api("POST", `/api/games/${g.id}/resume`, {}); } catch (e) { /* banner */ }
        $("new-game-dialog").close();
      });
      item.appendChild(button);
      return item;
    }));
  });
  $("new-game-form").addEventListener("submit", async (e) => {
    if (e.submitter && e.submitter.value === "cancel") return;
    const f = e.target;
    const seats = {};
    // Colours as the dashboard draws them ("Red" would be a grey pawn).
    for (const edge of ["S", "W", "N", "E"]) if (f[edge].value.trim()) seats[edge] = f[edge].value.trim().toLowerCase();
    // A mistake in the form is said in the dialog, which stays open to fix it.
    const refuse = (message) => { e.preventDefault(); $("new-game-error").textContent = message; $("new-game-error").hidden = false; };
    $("new-game-error").hidden = true;
    if (Object.keys(seats).length < 2) return refuse("A game needs 2 to 4 players: give the colour of each player's edge.");
    let teams = null;
    if (f.teams.checked) {
      const a = f.team_a.value.split("+").map((s) => s.trim().toLowerCase()).filter(Boolean);
      const b = Object.values(seats).filter((c) => !a.includes(c));
      if (a.length !== 2 || b.length !== 2 || !a.every((c) => Object.values(seats).includes(c))) {
        return refuse("Teams: name two of the four players as partners, e.g. red+yellow; the other two are the second team.");
      }
      teams = [a, b];
    }
    // The dialog closes once the game has started; a refusal (the board not steady
    // yet) is said in it, for the player to press Start again.
    e.preventDefault();
    try {
      await setupcam.api("POST", "/api/games", { seats, teams, options: { equal_turns: f.equal_turns.checked } });
      $("new-game-dialog").close();
    } catch (err) {
      refuse(err.message);
      setupcam.hideError();
    }
  });

  // A play the camera missed (a recording that ended mid-turn, two turns run into one):
  // the players type the board after it, starting from the board as the game has it.
  $("play-button").addEventListener("click", () => {
    if (!state || state.status !== "playing") return setupcam.showError("No game is being played: start one with New game.");
    $("play-player").textContent = state.next_player;
    const holder = $("play-squares");
    holder.replaceChildren(...Object.entries(state.layout.squares).map(([square, info]) => {
      const label = document.createElement("label");
      // Laid out as on the board, north up, from each square's place in board units.
      const [x0, y0] = info.rect;
      label.style.gridColumn = String(1 + Math.max(0, Math.round((x0 - 0.19) / 0.16)));
      label.style.gridRow = String(1 + Math.max(0, Math.round((y0 - 0.19) / 0.16)));
      const input = document.createElement("input");
      input.name = square;
      input.size = 3;
      input.value = state.position.squares[square] || "";
      label.append(`${square} `, input);
      return label;
    }));
    $("play-error").hidden = true;
    $("play-dialog").showModal();
  });
  $("play-form").addEventListener("submit", async (e) => {
    if (e.submitter && e.submitter.value === "cancel") return;
    e.preventDefault();  // open until the server takes the play, to fix what it refuses
    const squares = {};
    for (const input of $("play-squares").querySelectorAll("input")) squares[input.name] = input.value.trim() || null;
    await setupcam.busy($("play-submit"), async () => {
      try {
        await setupcam.api("POST", "/api/play", { position: { squares } });
        $("play-dialog").close();
      } catch (err) {
        $("play-error").textContent = err.message;
        $("play-error").hidden = false;
        setupcam.hideError();
      }
    });
  });

  async function swap() { try { await setupcam.api("POST", "/api/swap", {}); } catch (e) { /* banner */ } }
  async function undo() { try { await setupcam.api("POST", "/api/undo", {}); } catch (e) { /* banner */ } }
  $("swap-button").addEventListener("click", swap);
  $("undo-button").addEventListener("click", undo);
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input, select, textarea, dialog")) return;
    // A key held down repeats: one press is one swap or one undo, not a turn a repeat.
    if (e.repeat || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "s" || e.key === "S") swap();
    if (e.key === "u" || e.key === "U") undo();
  });

  $("pending-confirm").addEventListener("click", async () => {
    const position = JSON.parse(JSON.stringify(state.pending.position));
    for (const select of $("pending-squares").querySelectorAll("select")) {
      const typed = select.parentElement.querySelector("input").value.trim();
      position.squares[select.dataset.square] = select.value === "other" ? typed || null : select.value || null;
    }
    await setupcam.busy($("pending-confirm"), () => setupcam.api("POST", "/api/pending/confirm", { position }));
  });
  $("pending-dismiss").addEventListener("click", () =>
    setupcam.busy($("pending-dismiss"), () => setupcam.api("POST", "/api/pending/dismiss", {})));

  // The camera stream never finishes loading; attach it after the page has loaded so
  // the browser does not show the page as loading forever.
  window.addEventListener("load", () => {
    const live = $("live");
    if (live) live.src = live.dataset.src;  // absent without a camera
  });

  function connect() {
    const source = new EventSource("/api/events");
    source.addEventListener("state", (e) => { state = JSON.parse(e.data); render(); });
    source.onerror = () => {
      setupcam.showCamera({ state: "offline", message: "dashboard lost the server; retrying" });
    };
  }
  connect();
})();
