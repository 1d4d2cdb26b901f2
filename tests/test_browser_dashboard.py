"""The dashboard in real headless Chromium: start a game, see turns score, the bonus
alert, a correction, a swap by keyboard, and the game resumed after a restart."""

from __future__ import annotations

from pathlib import Path

from browser import chromium, serving
from conftest import pos
from test_webui_api import FakeCamera

from setupcam.session import GameSession
from setupcam.store import GameStore
from webui import create_app


def scores(page) -> dict[str, str]:  # type: ignore[no-untyped-def]
    rows = page.locator("#scoreboard tr")
    return {
        rows.nth(i).get_attribute("data-player"): rows.nth(i).locator(".score").inner_text()
        for i in range(rows.count())
    }


def test_game_flow_in_the_browser(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite"
    session = GameSession(GameStore(db))
    camera = FakeCamera()
    with serving(create_app(session, camera)) as url, chromium() as browser:
        page = browser.new_page()
        page.goto(url + "/")
        page.wait_for_selector("#turn-info:has-text('No game yet')")

        # New game through the dialog: two players; the start is read from the camera.
        page.click("#new-game-button")
        page.fill("input[name=N]", "")
        page.fill("input[name=E]", "")
        # A mistake is said in the dialog, which stays open to fix it.
        page.check("input[name=teams]")
        page.click("#new-game-submit")
        assert "name two of the four players" in page.inner_text("#new-game-error")
        assert page.locator("#new-game-dialog[open]").count() == 1
        page.uncheck("input[name=teams]")
        page.fill("input[name=W]", "Green")  # written as the dashboard draws it: green
        page.click("#new-game-submit")
        page.wait_for_selector("#scoreboard tr[data-player=green]")
        assert page.locator("[data-tile='5♥']").count() == 1

        # The camera sees red's play: 4♥ next to 5♥ (b2); it scores on the dashboard.
        session.play(pos("b2=5h c2=9c b3=4h"))
        page.wait_for_selector("#turn-log li.play")
        assert scores(page) == {"red": "2", "green": "0"}

        # Green extends the run with 6♥; red then plays 9♥ on b1, red's own bonus square.
        session.play(pos("b2=5h c2=9c b3=4h c3=6h"))
        page.wait_for_selector("#scoreboard tr[data-player=green] .score:has-text('3')")
        session.play(pos("b2=5h c2=9c b3=4h c3=6h b1=9h"))  # red: 9♥ joins 9♣ (c2)
        page.wait_for_selector("#scoreboard tr[data-player=red] .score:has-text('4')")
        # Green plays 9♦ on a2 (own bonus square): 9♦ 9♣ 9♥ -- b1 is red's: red +1.
        session.play(pos("b2=5h c2=9c b3=4h c3=6h b1=9h a2=9d"))
        alert = page.wait_for_selector("#bonus-alert:not([hidden])")
        assert "Red +1: move your pawn!" in alert.inner_text()
        assert scores(page) == {"red": "5", "green": "6"}
        # The diagram highlights the last turn's sets; clicking turn 1 shows its set.
        assert page.locator("rect.scoring").count() == 3  # 9♥ 9♣ 9♦
        page.click("#turn-log li[value='1']")
        page.wait_for_selector("#turn-log li.shown")
        assert page.locator("rect.scoring").count() == 2  # 4♥ 5♥

        # Swap by keyboard: red's turn passes to green.
        page.keyboard.press("s")
        page.wait_for_selector("#turn-log li.swap")
        assert "green to play" in page.inner_text("#turn-info")

        # Correct a square: the camera misread a2; it was 8♦, which joins nothing ->
        # green's turn becomes illegal and loses its points; red loses the bonus.
        page.click("g.square[data-square=a2]")
        # The fix is for the turn that put 9♦ there (green's turn 4), not the last turn.
        assert page.input_value("#correct-turn") == "4"
        assert page.locator("#correct-turn option").count() == 5  # the start and 4 plays
        assert page.input_value("#correct-form select[name=value]") == "9"  # as recorded
        page.select_option("#correct-turn", "3")  # before green's 9♦: a2 was empty
        assert page.input_value("#correct-form select[name=value]") == ""
        page.select_option("#correct-turn", "4")
        page.select_option("#correct-form select[name=value]", "8")
        page.select_option("#correct-form select[name=suit]", "D")
        # What saving would do is shown first.
        preview = page.wait_for_selector("#correct-preview:has-text('Saving changes')")
        assert "red 5 → 4, green 6 → 3" in preview.inner_text()
        assert "Turn 4 would become illegal" in preview.inner_text()
        assert scores(page) == {"red": "5", "green": "6"}  # nothing saved yet
        page.click("#correct-submit")
        page.wait_for_selector("#turn-log li.illegal")
        assert scores(page) == {"red": "4", "green": "3"}

        # Undo by keyboard removes the swap.
        page.keyboard.press("u")
        page.wait_for_function("document.body.dataset.turns === '4'")
        page.screenshot(path=str(tmp_path / "dashboard.png"), full_page=True)

    # Restart: a new server on the same database finds the game as it was.
    again = GameSession(GameStore(db))
    assert again.resume_latest()
    with serving(create_app(again, camera)) as url, chromium() as browser:
        page = browser.new_page()
        page.goto(url + "/")
        page.wait_for_selector("#scoreboard tr[data-player=red]")
        assert scores(page) == {"red": "4", "green": "3"}
        assert page.locator("#turn-log li").count() == 4
        assert "red to play" in page.inner_text("#turn-info")


def test_network_dashboard_needs_the_token(tmp_path: Path) -> None:
    session = GameSession(GameStore(tmp_path / "g.sqlite"))
    app = create_app(session, FakeCamera(), token="tok123")
    with serving(app) as url, chromium() as browser:
        page = browser.new_page()
        page.goto(url + "/")  # no token: reading works, changing does not
        page.click("#new-game-button")
        page.click("#new-game-submit")
        said = page.wait_for_selector("#new-game-error:not([hidden])")  # in the dialog
        assert "access token" in said.inner_text()
        page.goto(url + "/?token=tok123")
        page.click("#new-game-button")
        page.click("#new-game-submit")
        page.wait_for_selector("#scoreboard tr[data-player=red]")


def test_camera_line_marks_advice(tmp_path: Path) -> None:
    session = GameSession(GameStore(tmp_path / "g.sqlite"))
    with serving(create_app(session, FakeCamera())) as url, chromium() as browser:
        page = browser.new_page()
        page.goto(url + "/")
        advice = '12 of the last 24 tiles were left unread ("?"): ...'
        session.set_camera_status(
            {"state": "tracking", "message": f"watching the board; {advice}", "advice": advice}
        )
        line = page.wait_for_selector("#camera-status[data-advice=yes]")
        assert "left unread" in line.inner_text()
        amber = line.evaluate("e => getComputedStyle(e).backgroundColor")
        session.set_camera_status({"state": "tracking", "message": "watching the board"})
        line = page.wait_for_selector("#camera-status[data-advice=no]")
        assert line.evaluate("e => getComputedStyle(e).backgroundColor") != amber
        assert line.inner_text() == "camera: watching the board"


def test_a_play_the_camera_missed_or_misread_is_told_by_hand(tmp_path: Path) -> None:
    from engine import GameSetup, Seats
    from setupcam.session import PendingPlay

    session = GameSession(GameStore(tmp_path / "games.sqlite"))
    session.new_game(GameSetup(Seats.parse("S=red,W=green"), start=pos("b2=5h")))
    with serving(create_app(session, FakeCamera())) as url, chromium() as browser:
        page = browser.new_page()
        page.goto(url + "/")
        page.wait_for_selector("#scoreboard tr[data-player=green]")

        # Red's play was never seen: the players type the board after it.
        page.click("#play-button")
        assert page.inner_text("#play-player") == "red"
        assert page.input_value("#play-squares input[name=b2]") == "5♥"  # as the game has it
        page.fill("#play-squares input[name=c2]", "zz")
        page.click("#play-submit")
        error = page.wait_for_selector("#play-error:not([hidden])")
        assert "zz" in error.inner_text()  # said in the dialog, which stays open
        assert page.locator("#play-dialog[open]").count() == 1
        page.fill("#play-squares input[name=c2]", "6h")
        page.click("#play-submit")
        page.wait_for_selector("#turn-log li.play")
        assert scores(page) == {"red": "2", "green": "0"}

        # Green's play, asked about: none of the camera's guesses for b3 is right.
        seen = pos("b2=5h c2=6h b3=9c")
        session.propose(
            PendingPlay(
                "green", seen, ("not sure of b3",), ("b3",), {"b3": [("9♣", 0.6), ("9♠", 0.3)]}
            )
        )
        page.wait_for_selector("#pending:not([hidden])")
        page.select_option("#pending-squares select", "other")
        page.fill("#pending-squares input", "7h")
        # Double-clicked: one confirmation, and no "no play waiting" left on the page
        # from the second click.
        page.dblclick("#pending-confirm")
        page.wait_for_selector("#pending", state="hidden")
        page.wait_for_timeout(300)
        assert page.locator("#error-banner").is_hidden()
        assert session.record is not None and len(session.record.turns) == 2
        assert str(session.record.turns[-1].position["b3"]) == "7♥"
        assert scores(page) == {"red": "2", "green": "3"}  # 5♥ 6♥ 7♥
