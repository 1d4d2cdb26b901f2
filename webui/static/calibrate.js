// The calibration page: drag the four board corners over the camera frame; the
// layout's squares and lines are drawn through the homography they define.
"use strict";

(() => {
  const img = document.getElementById("calib-image");
  const svg = document.getElementById("calib-overlay");
  const message = document.getElementById("calib-message");
  const focus = document.getElementById("calib-focus");
  const NAMES = ["NW", "NE", "SE", "SW"];
  let corners = null;
  let layout = null;
  let dragging = -1;

  // Homography from the unit square to the four corners (projective mapping).
  function homography(c) {
    const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = c;
    const dx1 = x1 - x2, dx2 = x3 - x2, dx3 = x0 - x1 + x2 - x3;
    const dy1 = y1 - y2, dy2 = y3 - y2, dy3 = y0 - y1 + y2 - y3;
    const den = dx1 * dy2 - dx2 * dy1;
    const g = (dx3 * dy2 - dx2 * dy3) / den, h = (dx1 * dy3 - dx3 * dy1) / den;
    const a = x1 - x0 + g * x1, b = x3 - x0 + h * x3, cc = x0;
    const d = y1 - y0 + g * y1, e = y3 - y0 + h * y3, f = y0;
    return (u, v) => {
      const w = g * u + h * v + 1;
      return [(a * u + b * v + cc) / w, (d * u + e * v + f) / w];
    };
  }

  function draw() {
    svg.replaceChildren();
    if (!corners || !img.naturalWidth) return;
    svg.setAttribute("viewBox", `0 0 ${img.naturalWidth} ${img.naturalHeight}`);
    // Handles and labels keep their size on screen, however small the picture is
    // shown (a phone): image pixels per screen pixel.
    const scale = img.naturalWidth / Math.max(1, img.getBoundingClientRect().width);
    const NS = "http://www.w3.org/2000/svg";
    const map = homography(corners);
    const poly = (pts, cls) => {
      const p = document.createElementNS(NS, "polygon");
      p.setAttribute("points", pts.map((q) => q.join(",")).join(" "));
      p.setAttribute("class", cls);
      svg.appendChild(p);
    };
    poly(corners, "calib-outline");
    if (layout) {
      for (const sq of Object.values(layout.squares)) {
        const [x0, y0, x1, y1] = sq.rect;
        poly([map(x0, y0), map(x1, y0), map(x1, y1), map(x0, y1)], "calib-square");
      }
      for (const [a, b] of layout.lines) {
        const ca = layout.squares[a].rect, cb = layout.squares[b].rect;
        const p = map((ca[0] + ca[2]) / 2, (ca[1] + ca[3]) / 2), q = map((cb[0] + cb[2]) / 2, (cb[1] + cb[3]) / 2);
        const line = document.createElementNS(NS, "line");
        Object.entries({ x1: p[0], y1: p[1], x2: q[0], y2: q[1], class: "calib-line" }).forEach(([k, v]) => line.setAttribute(k, v));
        svg.appendChild(line);
      }
    }
    // Edge labels: S on the SE-SW side, W on SW-NW, N on NW-NE, E on NE-SE.
    [["S", 2, 3], ["W", 3, 0], ["N", 0, 1], ["E", 1, 2]].forEach(([name, a, b]) => {
      const [x, y] = map(...[[0.5, 1.06], [-0.06, 0.5], [0.5, -0.06], [1.06, 0.5]][["S", "W", "N", "E"].indexOf(name)]);
      const label = document.createElementNS(NS, "text");
      Object.entries({ x, y, class: "calib-edge", "data-edge": name, "text-anchor": "middle", "font-size": 18 * scale, "stroke-width": 3 * scale }).forEach(([k, v]) => label.setAttribute(k, v));
      label.textContent = name;
      svg.appendChild(label);
    });
    corners.forEach(([x, y], i) => {
      const handle = document.createElementNS(NS, "circle");
      Object.entries({ cx: x, cy: y, r: 11 * scale, class: "calib-handle", "data-corner": NAMES[i] }).forEach(([k, v]) => handle.setAttribute(k, v));
      handle.addEventListener("pointerdown", (e) => { dragging = i; svg.setPointerCapture(e.pointerId); });
      svg.appendChild(handle);
      const label = document.createElementNS(NS, "text");
      Object.entries({ x: x + 13 * scale, y: y - 13 * scale, class: "calib-label", "font-size": 15 * scale, "stroke-width": 3 * scale }).forEach(([k, v]) => label.setAttribute(k, v));
      label.textContent = NAMES[i];
      svg.appendChild(label);
    });
  }

  svg.addEventListener("pointermove", (e) => {
    if (dragging < 0) return;
    const pt = svg.createSVGPoint();
    pt.x = e.clientX; pt.y = e.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    corners[dragging] = [p.x, p.y];
    draw();
  });
  svg.addEventListener("pointerup", () => { dragging = -1; });
  window.addEventListener("resize", draw);

  // What helps, by how blurred the picture of the board is (vision/photo_blur.py).
  const FOCUS_HELP = {
    "sharp": "",
    "a little soft": ": turn the lens's focus (or add light) until it says sharp",
    "blurred": ": tiles will be left unread; turn the lens's focus, add light or hold the camera still",
  };

  function showFocus(f) {
    focus.textContent = f
      ? `Focus: ${f.verdict} (${f.blur_px.toFixed(1)} px)${FOCUS_HELP[f.verdict] || ""}.`
      : "Focus: measured while the board is in view with no hand over it.";
  }

  // Measured again every two seconds, so that a lens can be turned while watching it.
  // Only the focus line changes: the corners being dragged stay as they are.
  async function updateFocus() {
    try {
      const cal = await setupcam.peek("/api/calibration");
      if (cal) showFocus(cal.focus);
    } catch (e) { /* the app is gone: the camera line says so */ }
  }

  async function load() {
    try {
      const cal = await setupcam.api("GET", "/api/calibration");
      showFocus(cal.focus);
      layout = cal.layout;
      corners = cal.corners || [[100, 100], [400, 100], [400, 400], [100, 400]];
      message.textContent = cal.corners ? "" : "The board was not found: drag the corners onto it.";
      draw();
    } catch (e) { /* banner shown */ }
  }

  img.addEventListener("load", draw);
  document.getElementById("calib-refresh").addEventListener("click", () => {
    img.src = "/frame.jpg?raw=1&t=" + Date.now();
    updateFocus();
  });
  document.getElementById("calib-turn").addEventListener("click", () => {
    // South moves one edge clockwise: the corner list rolls by one.
    corners = [corners[1], corners[2], corners[3], corners[0]];
    draw();
  });
  // The last answer's message goes as the next request is sent: "Corners in use." beside
  // the refusal of other corners would no longer be true.
  document.getElementById("calib-apply").addEventListener("click", async () => {
    message.textContent = "";
    try {
      await setupcam.api("POST", "/api/calibration/corners", { corners });
      message.textContent = "Corners in use.";
    } catch (e) { /* banner */ }
  });
  document.getElementById("calib-save").addEventListener("click", async () => {
    message.textContent = "";
    try {
      const r = await setupcam.api("POST", "/api/calibration/save", {});
      message.textContent = "Saved to " + r.saved;
    } catch (e) { /* banner */ }
  });
  load();
  setInterval(updateFocus, 2000);
  setupcam.followCamera();
})();
