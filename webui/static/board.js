// The board diagram: squares from the layout, lines between joined squares, the
// bonus frames in the owners' colours, and the top tiles. Scoring sets of the last
// turn are highlighted. Clicking a square asks for a correction.
"use strict";

const boardDiagram = (() => {
  const NS = "http://www.w3.org/2000/svg";

  function el(name, attrs, text) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // `shown` is the turn whose sets are highlighted (default: the last one).
  function draw(svg, state, onSquareClick, shown) {
    svg.replaceChildren();
    if (!state.layout) return;
    const layout = state.layout;
    const owners = {};
    for (const p of state.players) owners[p.edge] = p.colour;
    const squares = (state.position && state.position.squares) || {};
    const last = shown || (state.turns.length ? state.turns[state.turns.length - 1] : null);
    const scoring = new Set(last && last.legal ? last.scoring_tiles : []);
    const placed = new Set(last && last.legal ? Object.keys(last.placed) : []);

    svg.appendChild(el("rect", { x: 0, y: 0, width: 1, height: 1, class: "board-bg" }));
    const centre = (s) => {
      const r = layout.squares[s].rect;
      return [(r[0] + r[2]) / 2, (r[1] + r[3]) / 2];
    };
    for (const [a, b] of layout.lines) {
      const [x1, y1] = centre(a), [x2, y2] = centre(b);
      svg.appendChild(el("line", { x1, y1, x2, y2, class: "board-line" }));
    }
    for (const [name, sq] of Object.entries(layout.squares)) {
      const [x0, y0, x1, y1] = sq.rect;
      const owner = sq.owner ? owners[sq.owner] : null;
      const tile = squares[name];
      const group = el("g", { class: "square", "data-square": name, tabindex: 0 });
      const rect = el("rect", {
        x: x0, y: y0, width: x1 - x0, height: y1 - y0, rx: 0.01,
        class: "square-bg" + (tile && scoring.has(tile) ? " scoring" : "") + (placed.has(name) ? " placed" : ""),
      });
      if (owner) {
        rect.setAttribute("stroke", setupcam.playerColour(owner));
        rect.setAttribute("stroke-width", 0.012);
      }
      group.appendChild(rect);
      group.appendChild(el("text", { x: x0 + 0.008, y: y0 + 0.022, class: "square-name" }, name));
      if (tile) {
        const suit = tile.slice(-1);
        group.appendChild(el("text", {
          x: (x0 + x1) / 2, y: (y0 + y1) / 2 + 0.02, class: "tile-text",
          fill: setupcam.SUIT_COLOURS[suit] || "#222", "data-tile": tile,
        }, tile));
      }
      group.addEventListener("click", () => onSquareClick(name, tile));
      group.addEventListener("keydown", (e) => { if (e.key === "Enter") onSquareClick(name, tile); });
      svg.appendChild(group);
    }
  }

  return { draw };
})();
