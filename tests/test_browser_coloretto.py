"""The Coloretto page in headless Chromium: the rulebook example, tapped in."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from browser import chromium, serving
from flask import Flask, request
from flask.testing import FlaskClient
from playwright.sync_api import Page

from setupcam.session import GameSession
from setupcam.store import GameStore
from webui import create_app


@contextmanager
def coloretto_page(app: Flask | None = None) -> Iterator[Page]:
    """The Coloretto page in headless Chromium, served by ``app`` (a fresh one)."""
    app = app or create_app(GameSession(GameStore(":memory:")))
    with serving(app) as url, chromium() as browser:
        page = browser.new_page()
        page.goto(url + "/coloretto")
        yield page


def add_player(page: Page, name: str) -> None:
    page.fill("#new-player", name)
    page.press("#new-player", "Enter")


def test_rulebook_example_tapped_in() -> None:
    with coloretto_page() as page:
        add_player(page, "andrzej")
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
        assert "Jokers: 1 on yellow." in player.locator(".account-note").inner_text()
        rows = player.locator(".account tr").all_inner_texts()
        assert [r.split("\t") for r in rows[:2]] == [
            ["green", "6 cards", "+21"],
            ["yellow", "5 cards (1 joker)", "+15"],
        ]
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
        add_player(page, "bea")
        page.locator("[data-player=bea] [data-card='joker'] .add").click()
        page.wait_for_selector("[data-player=bea] .total:text-is('1 point')")
        page.wait_for_selector("#winner:text-is('Winner: andrzej with 41')")
        # A reload (a phone that locked mid-count) keeps the counts.
        page.reload()
        page.wait_for_selector("[data-player=andrzej] .total:has-text('41 points')")
        assert page.inner_text("[data-player=andrzej] [data-card=green] .count") == "9"
        assert page.locator("[data-player=bea]").count() == 1


def test_players_late_answers_and_a_new_count() -> None:
    app = create_app(GameSession(GameStore(":memory:")))
    slow_first = threading.Event()

    @app.before_request
    def answer_the_first_tap_late() -> None:
        # The server answers in threads: held here, the first answer comes after the rest.
        if slow_first.is_set() and request.path == "/api/coloretto/score":
            slow_first.clear()
            time.sleep(1.0)

    with coloretto_page(app) as page:
        for name in ("constructor", "b", "c", "d", "e"):  # any name, even an object's own
            add_player(page, name)
        page.wait_for_selector("[data-player=constructor]")
        add_player(page, "f")
        banner = page.wait_for_selector("#error-banner:not([hidden])")
        assert "2 to 5 players" in banner.inner_text()
        assert page.locator(".coloretto-player").count() == 5
        page.wait_for_selector("#winner:text-is('Tie between constructor, b, c, d, e with 0')")
        # The first tap's answer comes last: the page must show the third tap's total.
        slow_first.set()
        green = page.locator("[data-player=b] [data-card='green'] .add")
        for _ in range(3):
            green.click()
        page.wait_for_selector("[data-player=b] .total:text-is('6 points')")
        page.wait_for_timeout(1500)  # the late first answer (1 point) has come by now
        assert page.inner_text("[data-player=b] .total") == "6 points"
        assert page.inner_text("#winner") == "Winner: b with 6"
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#clear-players")
        page.wait_for_function("document.querySelectorAll('.coloretto-player').length === 0")
        page.reload()
        assert page.locator(".coloretto-player").count() == 0


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
    assert good.json["notes"] == []
    doubtful = client.post(
        "/api/coloretto/score", json={"table": "brown", "players": {"a": {"golden": 1}}}
    )
    assert doubtful.status_code == 200
    assert doubtful.json["players"]["a"]["by_colour"] == {"golden": 1}
    assert doubtful.json["notes"] == [
        "'golden' is scored as a colour: did you mean the special card 'golden_joker'?"
    ]
    # A key given twice would lose cards: refused, as the command line refuses it.
    twice = client.post(
        "/api/coloretto/score",
        data='{"table": "brown", "players": {"a": {"red": 1, "red": 9}}}',
        content_type="application/json",
    )
    assert twice.status_code == 400 and "'red' is given twice" in twice.json["error"]


def test_the_calculator_needs_no_token_on_a_shared_dashboard() -> None:
    app = create_app(GameSession(GameStore(":memory:")), token="tok", testing=True)
    client = app.test_client()
    sheet = {"table": "brown", "players": {"a": {"green": 3}}}
    assert client.post("/api/coloretto/score", json=sheet).json["players"]["a"]["total"] == 6
    assert client.post("/api/undo", json={}).status_code == 403  # changes still need it


def test_quick_taps_past_nine_are_all_taken_back_and_any_name_is_a_player() -> None:
    with coloretto_page() as page:
        for name in ("__proto__", "b"):
            add_player(page, name)
        red = page.locator("[data-player=b] [data-card='red'] .add")
        for _ in range(9):
            red.click()
        page.wait_for_selector("[data-player=b] .total:text-is('21 points')")
        # Two taps before the first is answered: 10 and 11 red, both impossible.
        page.evaluate(
            "document.querySelector(\"[data-player=b] [data-card='red'] .add\").click();"
            "document.querySelector(\"[data-player=b] [data-card='red'] .add\").click();"
        )
        page.wait_for_selector("#error-banner:not([hidden])")
        page.wait_for_selector("[data-player=b] [data-card=red] .count:text-is('9')")
        page.locator("[data-player=b] [data-card='blue'] .add").click()  # still scored
        page.wait_for_selector("[data-player=b] .total:text-is('22 points')")
        page.locator("[data-player='__proto__'] [data-card='green'] .add").click()
        page.wait_for_selector("[data-player='__proto__'] .total:text-is('1 point')")
        assert page.inner_text("#winner") == "Winner: b with 22"


def test_colours_taken_out_of_the_game_are_never_a_jokers_colour() -> None:
    with coloretto_page() as page:
        add_player(page, "a")
        for colour in ("blue", "brown"):  # two players: two colours taken out
            page.uncheck(f"#in-play input[value={colour}]")
        player = page.locator("[data-player=a]")
        for card, times in (("green", 6), ("red", 6), ("joker", 1)):
            for _ in range(times):
                player.locator(f"[data-card='{card}'] .add").click()
        page.wait_for_selector("[data-player=a] .total:text-is('43 points')")
        # A third colour of one card: the first still in the game, not blue.
        assert player.locator(".account-note").inner_text() == "Jokers: 1 on orange. " + (
            "2 other choices reach the same total."
        )
        assert "out" in (player.locator("[data-card=blue]").get_attribute("class") or "")
        page.reload()  # the colours taken out are kept with the counts
        page.wait_for_selector("[data-player=a] .total:text-is('43 points')")
        assert not page.is_checked("#in-play input[value=blue]")
        assert page.is_checked("#in-play input[value=red]")
