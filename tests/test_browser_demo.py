"""`setupcam demo` as a user runs it: a simulated turn is read by the real pipeline
and scores on the dashboard in headless Chromium."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from browser import chromium, free_port

ROOT = Path(__file__).resolve().parents[1]


def wait_for_server(url: str, process: subprocess.Popen[str], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(
                f"demo exited early:\n{process.stdout.read() if process.stdout else ''}"
            )
        try:
            with urllib.request.urlopen(url + "/api/state", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise AssertionError("the demo did not start serving")


def test_demo_scores_a_simulated_turn(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, SETUPCAM_HOME=str(tmp_path))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "setupcam",
            "demo",
            "--port",
            str(port),
            "--seed",
            "3",
            "--db",
            str(tmp_path / "demo.sqlite"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for_server(url, process)
        with chromium() as browser:
            page = browser.new_page()
            page.goto(url + "/")
            # The camera view streams, the simulated players start a game from what the
            # camera reads, and the first turn is scored (or put to the players).
            page.wait_for_function(
                "document.getElementById('live').naturalWidth > 0", timeout=30_000
            )
            page.wait_for_selector("#scoreboard tr[data-player=red]", timeout=30_000)
            page.wait_for_selector("#turn-log li", timeout=60_000)
            assert page.locator("[data-tile]").count() >= 4  # the starting tiles, read
            first = page.locator("#turn-log li").last.inner_text()
            assert first.startswith("red ")
            page.screenshot(path=str(tmp_path / "demo.png"), full_page=True)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            output, _ = process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
    assert "setupcam dashboard: http://localhost:" in output
    assert "Traceback" not in output
