"""The Coloretto page in headless Chromium: the rulebook example, tapped in."""

from __future__ import annotations

from browser import chromium, serving
from flask.testing import FlaskClient

from setupcam.session import GameSession
from setupcam.store import GameStore
from webui import create_app


def test_rulebook_example_tapped_in() -> None:
    app = create_app(GameSession(GameStore(":memory:")))
    with serving(app) as url, chromium() as browser:
        page = browser.new_page()
        page.goto(url + "/coloretto")
        page.fill("#new-player", "andrzej")
        page.press("#new-player", "Enter")
        player = page.locator("[data-player=andrzej]")
        for card, times in (
            ("green", 6),
            ("yellow", 4),
            ("red", 3),
            ("blue", 2),
            ("joker", 1),
            ("+2", 1),
        ):
            for _ in range(times):
                player.locator(f"[data-card='{card}'] .add").click()
        page.wait_for_selector("[data-player=andrzej] .total:has-text('41 points')")
        assert "joker becomes yellow" in player.locator(".explain").inner_text()
        # A tenth green card is impossible: the page says so, takes it back, and the
        # total shown is that of the nine greens shown.
        for _ in range(3):
            player.locator("[data-card='green'] .add").click()
        page.wait_for_selector("[data-player=andrzej] [data-card=green] .count:text-is('9')")
        page.wait_for_selector("[data-player=andrzej] .total:has-text('41 points')")
        player.locator("[data-card='green'] .add").click()
        banner = page.wait_for_selector("#error-banner:not([hidden])")
        assert "green" in banner.inner_text()
        page.wait_for_selector("[data-player=andrzej] [data-card=green] .count:text-is('9')")
        assert "41 points" in player.locator(".total").inner_text()
        # A joker before any colour: it becomes one of the page's colours.
        page.fill("#new-player", "bea")
        page.press("#new-player", "Enter")
        page.locator("[data-player=bea] [data-card='joker'] .add").click()
        page.wait_for_selector("[data-player=bea] .total:has-text('1 points')")
        # A reload (a phone that locked mid-count) keeps the counts.
        page.reload()
        page.wait_for_selector("[data-player=andrzej] .total:has-text('41 points')")
        assert page.inner_text("[data-player=andrzej] [data-card=green] .count") == "9"
        assert page.locator("[data-player=bea]").count() == 1


def test_score_api_errors() -> None:
    client: FlaskClient = create_app(GameSession(GameStore(":memory:")), testing=True).test_client()
    assert client.post("/api/coloretto/score", json=[1]).status_code == 400
    bad = client.post("/api/coloretto/score", json={"table": "blue", "players": {}})
    assert bad.status_code == 400 and "error" in bad.json
    good = client.post(
        "/api/coloretto/score",
        json={
            "table": "brown",
            "players": {"a": {"green": 6, "yellow": 4, "red": 3, "blue": 2, "joker": 1, "+2": 1}},
        },
    )
    assert good.json["players"]["a"]["total"] == 41


def test_the_calculator_needs_no_token_on_a_shared_dashboard() -> None:
    app = create_app(GameSession(GameStore(":memory:")), token="tok", testing=True)
    client = app.test_client()
    sheet = {"table": "brown", "players": {"a": {"green": 3}}}
    assert client.post("/api/coloretto/score", json=sheet).json["players"]["a"]["total"] == 6
    assert client.post("/api/undo", json={}).status_code == 403  # changes still need it
