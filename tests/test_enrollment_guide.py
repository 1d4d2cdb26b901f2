"""The Enrol page's guide, on the simulated table read by the real pipeline: the plan,
the photos checked as they are taken, the set learnt and read from the next frame."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine import ALL_TILES, Layout
from setupcam.enrollment_guide import EnrollmentGuide, GuideError, GuideInputError
from setupcam.guide_photos import GuidePhotos
from setupcam.session import GameSession
from setupcam.store import GameStore
from vision.enrollment import EnrollmentSample
from vision.enrollment_plan import enrolment_plan, quarter_turns
from vision.pipeline import LivePipeline
from vision.recognizer import TileRecognizer
from vision.runner import PipelineRunner
from vision.sim_source import SimulatedTableSource
from webui import create_app

LAYOUT = Layout.load()


def test_the_plan_shows_every_tile_once_ten_to_a_photo() -> None:
    plan = enrolment_plan(LAYOUT)
    shown = Counter(tile for photo in plan for tile in photo.tiles())
    assert set(shown) == set(ALL_TILES) and set(shown.values()) == {1}
    assert [len(photo.tiles()) for photo in plan] == [10] * 5
    # Each photo one suit, its values in the board's square order.
    for photo in plan:
        tiles = [tile for tile in photo.squares.values() if tile is not None]
        assert len({tile.suit for tile in tiles}) == 1
        assert [tile.value for tile in tiles] == list(range(1, 11))
    empty = Counter(s for photo in plan for s, tile in photo.squares.items() if tile is None)
    assert len(empty) == 10 and set(empty.values()) == {1}


def test_the_plans_empty_squares_tell_the_photos_apart_whichever_way_round() -> None:
    # A photo is checked by its empty squares, in any quarter turn of the board: no
    # photo may pass for another, nor for itself turned.
    plan = enrolment_plan(LAYOUT)
    turns = quarter_turns(LAYOUT)
    assert len(turns) == 4
    empties = [frozenset(s for s, tile in p.squares.items() if tile is None) for p in plan]
    seen = [frozenset(turn[s] for s in pair) for pair in empties for turn in turns]
    assert len(set(seen)) == len(seen) == 20


def test_enroll_plan_writes_the_position_files_to_photograph(tmp_path: Path, capsys) -> None:
    from setupcam.cli import main
    from setupcam.inputs import read_position_file

    assert main(["enroll", "--plan", str(tmp_path / "plan")]) == 0
    out = capsys.readouterr().out
    assert "photo 1 (" in out and "leave b1, c1 empty" in out
    files = sorted((tmp_path / "plan").glob("photo*.json"))
    assert [read_position_file(f, LAYOUT) for f in files] == list(enrolment_plan(LAYOUT))
    assert "photo5.jpg=" in out.splitlines()[-1]
    assert main(["enroll", "--plan", str(tmp_path), "a.jpg=a.json"]) == 2
    assert "--plan writes the files to photograph" in capsys.readouterr().err


class Table:
    """The demo's table, stepped by hand: a source of simulated frames, the pipeline
    reading them with the shipped reader, and the guide on its runner."""

    def __init__(self, out: Path) -> None:
        self.source = SimulatedTableSource(2, realtime=False, hands=False, games=3)
        reader = TileRecognizer.load()
        self.pipeline = LivePipeline(reader, LAYOUT)
        self.statuses: list[dict] = []
        self.runner = PipelineRunner(self.source, self.pipeline, on_status=self.statuses.append)
        self.guide = EnrollmentGuide(self.runner, reader, out)
        self.frames: Iterator = iter(self.source)

    def run(self, frames: int) -> None:
        for frame in itertools.islice(self.frames, frames):
            self.runner.step(frame)


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Table:
    table = Table(tmp_path_factory.mktemp("guide") / "enrollment.npz")
    table.run(5)  # the board found and tracked
    return table


def test_a_photo_is_taken_only_once_the_guide_is_open(table: Table) -> None:
    with pytest.raises(GuideError, match="open the guide first"):
        table.guide.take(0)
    with pytest.raises(
        GuideInputError, match=r"'photo' counts from 0 \(photo 1\) to 4 \(photo 5\), not 5"
    ):
        table.guide.show(5)


def test_the_guide_learns_the_set_and_the_table_is_read_with_it(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    guide = table.guide
    state = guide.start()
    assert state["active"] and state["simulated"] and not table.pipeline.deciding
    table.run(3)
    # The table shows photo 1's tiles: photo 2's plan leaves other squares empty.
    with pytest.raises(GuideError, match="photo 2 is not laid out as planned: the table shows"):
        guide.take(1)
    with pytest.raises(GuideError, match="take photo 1, 2, 3, 4, 5 first"):
        guide.finish()
    assert table.statuses[-1]["message"].startswith("enrolling tiles: no play is scored")
    for photo in range(5):
        assert guide.state()["showing"] == photo  # the next photo is laid out
        table.run(3)
        if photo < 4:  # the next photo's plan never passes for this one's layout
            shows = f"photo {photo + 2} is not .*: the table shows photo {photo + 1}'s layout"
            with pytest.raises(GuideError, match=shows):
                guide.take(photo + 1)
        state = guide.take(photo)
        assert state["taken"][photo]
    # Each photo is on disk once taken: the app started again finds every one.
    restarted = EnrollmentGuide(table.runner, guide.reader, guide.out)
    assert restarted.state()["taken"] == [True] * 5 and restarted._turn == guide._turn
    for i, photo in guide._photos.items():
        assert np.array_equal(restarted._photos[i].image, photo.image)
        assert np.allclose(restarted._photos[i].corners, photo.corners)
        assert restarted._photos[i].position == photo.position
    # Photos taken of the wrong layouts (as if the tiles were mixed up) are not
    # learnt: nothing is written or used, and the worst are to be taken again.
    right = dict(guide._photos)
    guide._photos[3], guide._photos[4] = (
        replace(right[3], position=right[4].position),
        replace(right[4], position=right[3].position),
    )
    with pytest.raises(GuideError, match=r"the set was not learnt: take photo 4, 5 again"):
        guide.finish()
    assert table.pipeline.recognizer.enrollment is None and not guide.out.exists()
    assert guide.state()["taken"] == [True, True, True, False, False]
    assert sorted(p.name for p in guide.kept.folder.iterdir()) == [
        f"photo{n}.{kind}" for n in (1, 2, 3) for kind in ("json", "png")
    ]
    guide._photos.update(right)
    state = guide.finish()
    result = state["result"]
    assert result["read_back"] == "60/60" and result["soft"] is None
    with pytest.raises(GuideError, match=r"open the guide first \(Start\)"):
        guide.finish()  # learnt already: the next enrolment starts anew
    assert Path(result["saved"]).is_file()
    assert table.pipeline.recognizer.enrollment is not None
    assert table.pipeline.deciding and not state["active"]
    assert state["taken"] == [False] * 5  # ready for the next enrolment
    assert not guide.kept.folder.exists()  # the enrolment keeps what it needs
    # The game's frames again, read with the enrolled set.
    table.run(3)
    report = table.runner.snapshot()
    assert report is not None and report[1].location is not None
    # At a real table the last photo's tiles are still there once the set is learnt:
    # read at once, they were asked about as a play. The game waits for them to be put
    # back and Back to the game pressed.
    guide.start()
    guide._photos.update(right)
    monkeypatch.setattr(guide, "_table", lambda: None)  # a camera's table: no layouts
    state = guide.finish()
    assert state["active"] and state["learnt"] and not table.pipeline.deciding
    assert not state["simulated"] and state["result"]["read_back"] == "60/60"
    state = guide.close()
    assert not state["active"] and not state["learnt"] and table.pipeline.deciding


def test_a_blurred_photo_is_not_taken(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    # A camera out of focus: the photo shows the plan's tiles, and a set learnt from it
    # would read the game's sharp frames doubtfully. It is not taken, and says why.
    guide = table.guide
    guide.start()
    table.run(3)
    snapshot = table.runner.snapshot()
    assert snapshot is not None
    image, report = snapshot
    showing = guide.state()["showing"]
    taken = guide.state()["taken"]
    blurred = cv2.GaussianBlur(image, (0, 0), 3)
    monkeypatch.setattr(table.runner, "snapshot", lambda: (blurred, report))
    with pytest.raises(GuideError, match=rf"photo {showing + 1} \(.* px\) looks blurred"):
        guide.take(showing)
    assert guide.state()["taken"] == taken
    monkeypatch.setattr(table.runner, "snapshot", lambda: (image, report))
    assert guide.take(showing)["taken"][showing]  # the sharp picture of the same layout
    guide.close()


def test_the_enrol_page_answers_in_json(table: Table) -> None:
    table.guide.close()
    session = GameSession(GameStore(":memory:"))
    client = create_app(session, table.runner, enrollment=table.guide).test_client()
    assert client.get("/enroll").status_code == 200
    state = client.get("/api/enrollment").get_json()
    assert len(state["plan"]) == 5 and "b1" in state["layout"]["squares"]
    assert state["plan"][0]["text"].startswith("a2 1★, b2 2★")
    answer = client.post("/api/enrollment/take", json={"photo": 0})
    assert answer.status_code == 409 and "open the guide first" in answer.get_json()["error"]
    for body in ({"photo": "1"}, {"photo": True}, {}, {"photo": -1}):
        assert client.post("/api/enrollment/show", json=body).status_code == 400
    no_camera = create_app(session).test_client()
    answer = no_camera.get("/api/enrollment")
    assert answer.status_code == 409 and "needs the live camera" in answer.get_json()["error"]


def test_the_enrol_steps_take_json_objects_only(table: Table) -> None:
    session = GameSession(GameStore(":memory:"))
    client = create_app(session, table.runner, enrollment=table.guide).test_client()
    for step in ("start", "finish", "close"):
        for body in ("xx", "[1]"):
            answer = client.post(
                f"/api/enrollment/{step}", data=body, content_type="application/json"
            )
            assert answer.status_code == 400, (step, body)
    assert not table.guide.active


def test_kept_photos_that_cannot_be_read_or_show_another_plan_are_passed_over(
    tmp_path: Path,
) -> None:
    plan = enrolment_plan(LAYOUT)
    photos = GuidePhotos(tmp_path / "enrollment.npz")
    image = np.full((80, 120, 3), 90, np.uint8)
    corners = np.array([[10, 10], [100, 10], [100, 70], [10, 70]], np.float64)
    for index in range(3):
        photos.keep(index, EnrollmentSample(image, corners, plan[index]), turn=2)
    assert photos.folder == tmp_path / "enrollment-photos"
    (photos.folder / "photo2.png").write_bytes(b"not a picture")
    about = json.loads((photos.folder / "photo3.json").read_text("utf-8"))
    about["position"] = plan[0].to_json()
    (photos.folder / "photo3.json").write_text(json.dumps(about), "utf-8")
    taken = photos.taken(plan, LAYOUT)
    assert list(taken) == [0] and taken[0].turn == 2
    assert np.array_equal(taken[0].sample.image, image)
    photos.clear(len(plan))
    assert not photos.folder.exists()


def test_the_enrol_page_says_to_put_the_games_tiles_back_once_learnt(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    # At a real table the set is learnt with the last photo's tiles still down: the
    # page shows the result, no more photo steps, and Back to the game.
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from browser import chromium, serving

    guide = table.guide
    monkeypatch.setattr(guide, "_table", lambda: None)  # a camera's table
    monkeypatch.setattr(guide, "active", True)
    monkeypatch.setattr(guide, "learnt", True)
    result = {"saved": "enrollment.npz", "previous": None, "read_back": "60/60"}
    monkeypatch.setattr(guide, "last_result", result | {"misread": [], "six_nine": ""})
    session = GameSession(GameStore(":memory:"))
    with serving(create_app(session, table.runner, enrollment=guide)) as url, chromium() as browser:
        page = browser.new_page()
        page.goto(url + "/enroll")
        text = page.wait_for_selector("#enrol-result:not([hidden])").inner_text()
        assert "put the game's tiles back as they were, then press Back to the game" in text
        assert page.locator("#enrol-steps").is_hidden()
        assert page.locator("#enrol-close").is_visible()
        page.click("#enrol-close")
        page.wait_for_selector("#enrol-close", state="hidden")
    assert not guide.active and table.pipeline.deciding
