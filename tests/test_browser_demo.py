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


class Demo:
    """``setupcam demo`` in a process of its own, as a user starts it: ``url`` while it
    runs, and ``output`` (its stdout and stderr) once it has been stopped."""

    def __init__(self, home: Path, *args: str) -> None:
        self.home = home
        self.args = args
        self.output = ""

    def __enter__(self) -> Demo:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "setupcam", "demo", "--port", str(port), *self.args],
            cwd=ROOT,
            env=dict(os.environ, SETUPCAM_HOME=str(self.home)),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        wait_for_server(self.url, self.process)
        return self

    def __exit__(self, *exc: object) -> None:
        self.process.send_signal(signal.SIGINT)
        try:
            self.output, _ = self.process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.output, _ = self.process.communicate()


def test_demo_scores_a_simulated_turn(tmp_path: Path) -> None:
    demo = Demo(tmp_path, "--seed", "3", "--db", str(tmp_path / "demo.sqlite"))
    with demo, chromium() as browser:
        page = browser.new_page()
        page.goto(demo.url + "/")
        # The camera view streams, the simulated players start a game from what the
        # camera reads, and the first turn is scored (or put to the players).
        page.wait_for_function("document.getElementById('live').naturalWidth > 0", timeout=30_000)
        page.wait_for_selector("#scoreboard tr[data-player=red]", timeout=30_000)
        page.wait_for_selector("#turn-log li", timeout=60_000)
        assert page.locator("[data-tile]").count() >= 4  # the starting tiles, read
        first = page.locator("#turn-log li").last.inner_text()
        assert first.startswith("red ")
        page.screenshot(path=str(tmp_path / "demo.png"), full_page=True)
    assert "setupcam dashboard: http://localhost:" in demo.output
    assert "Traceback" not in demo.output


def test_enrol_page_on_the_demo_learns_the_simulated_set(tmp_path: Path) -> None:
    """The Enrol page as a user runs it: start, take the five photos the simulated
    players lay out, learn the set; the demo's enrolment stays in its own folder."""
    home = tmp_path / "home"
    with Demo(home, "--no-hands") as demo, chromium() as browser:
        page = browser.new_page()
        page.goto(demo.url + "/enroll")
        page.click("#enrol-start")
        page.wait_for_selector("#enrol-steps:not([hidden])")
        # Leaving the page gives the table back to the game.
        page.goto(demo.url + "/")
        page.wait_for_function(
            "fetch('/api/enrollment').then(r => r.json()).then(s => !s.active)", timeout=10_000
        )
        page.goto(demo.url + "/enroll")
        page.click("#enrol-start")
        page.wait_for_selector("#enrol-steps:not([hidden])")
        assert page.locator("#enrol-board [data-tile]").count() == 10
        for photo in range(1, 6):
            # A new layout moves under the camera for a moment: a user tries again.
            for _ in range(20):
                page.click("#enrol-take")
                page.wait_for_timeout(700)
                if f"{photo} of 5 photos taken" in page.inner_text("#enrol-message"):
                    break
            else:
                raise AssertionError(page.inner_text("#error-banner"))
        page.click("#enrol-learn")
        page.wait_for_selector("#enrol-result:not([hidden])", timeout=60_000)
        assert not page.is_visible("#enrol-steps")  # back to the game
        result = page.inner_text("#enrol-result-text")
        assert "show 60/60 squares as planned" in result
        assert "setupcam-demo-" in result
        assert page.inner_text("#enrol-start") == "Enrol again"
        page.screenshot(path=str(tmp_path / "enrol.png"), full_page=True)
    assert "Traceback" not in demo.output
    assert not (home / "enrollment.npz").exists()  # the user's own place is left alone
