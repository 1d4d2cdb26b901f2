// Shared helpers: API calls (with the access token when the dashboard is shared),
// the error banner and the camera status in the top bar.
"use strict";

const setupcam = (() => {
  const params = new URLSearchParams(window.location.search);
  if (params.get("token")) localStorage.setItem("setupcam-token", params.get("token"));
  const token = () => localStorage.getItem("setupcam-token");

  // A request and its JSON answer, leaving the error banner alone.
  async function ask(method, path, body) {
    const headers = { "Content-Type": "application/json" };
    if (token()) headers["X-Setupcam-Token"] = token();
    const response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    return { response, data };
  }

  async function api(method, path, body) {
    const { response, data } = await ask(method, path, body);
    if (!response.ok) {
      const message = (data && data.error) || `${response.status} ${response.statusText}`;
      showError(message);
      throw new Error(message);
    }
    hideError();
    return data;
  }

  // Runs a button's request once: a double click would otherwise send it twice, and
  // the second answer ("no play waiting") would replace the first's.
  async function busy(button, work) {
    if (button.disabled) return;
    button.disabled = true;
    try { await work(); } catch (e) { /* the banner says it */ } finally { button.disabled = false; }
  }

  function showError(message) {
    const banner = document.getElementById("error-banner");
    if (!banner) return;
    banner.textContent = message;
    banner.hidden = false;
  }

  function hideError() {
    const banner = document.getElementById("error-banner");
    if (banner) banner.hidden = true;
  }

  function showCamera(camera) {
    const el = document.getElementById("camera-status");
    if (!el || !camera) return;
    el.dataset.state = camera.state || "unknown";
    el.dataset.advice = camera.advice ? "yes" : "no";
    el.textContent = "camera: " + (camera.message || camera.state);
  }

  const SUIT_COLOURS = { "♥": "#c62828", "♦": "#c62828", "★": "#b8860b", "♣": "#222", "♠": "#222" };
  const PLAYER_COLOURS = {
    red: "#d32f2f", green: "#2e7d32", yellow: "#f9a825", purple: "#7b1fa2",
    blue: "#1565c0", orange: "#ef6c00", black: "#212121", white: "#9e9e9e",
  };
  const playerColour = (name) => PLAYER_COLOURS[name] || "#555";

  // Reading without touching the error banner: a page that refreshes itself must not
  // hide the reason the user's last action was refused.
  async function peek(path) {
    const response = await fetch(path);
    return response.ok ? response.json() : null;
  }

  // Pages with no game feed of their own keep the camera line current this way.
  function followCamera(everyMs = 3000) {
    const refresh = async () => {
      try {
        const state = await peek("/api/state");
        if (state) showCamera(state.camera);
      } catch (e) {
        showCamera({ state: "offline", message: "dashboard lost the server; retrying" });
      }
    };
    refresh();
    setInterval(refresh, everyMs);
  }

  return { api, ask, busy, peek, token, showError, hideError, showCamera, followCamera, SUIT_COLOURS, playerColour };
})();
