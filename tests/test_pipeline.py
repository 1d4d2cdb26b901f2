"""The live pipeline's logic on simulated games with hands.

The recognizer here reads the ground truth (with a little noise), so these tests
check everything after recognition: board tracking, motion, waiting for a steady
view, decoding under the game's constraints, the session and the simulated players.
The real classifier's accuracy is measured by `setupcam eval` and the model card.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from calibration.board_location import manual_board
from calibration.camera_file import Calibration
from engine import Layout
from setupcam.live_app import SessionLink
from setupcam.session import GameSession
from setupcam.simulated_players import SimulatedPlayers
from setupcam.store import GameStore
from vision.decoder import COVERED, EMPTY, LABELS
from vision.pipeline import LivePipeline
from vision.recognizer import Reading, label_of
from vision.runner import PipelineRunner
from vision.sim_source import SimulatedTableSource
from vision.stability import LONGER_LOOK_S, SETTLE_S
from vision.unread import MIN_TILES


class TruthReader:
    """Reads each square from the simulator's truth, like a near-perfect classifier:
    a square a hand covers reads "covered"; readings carry a little noise."""

    threshold = threshold_all_turns = 0.99
    enrollment = None

    def __init__(self, seed: int = 0, confidence: float = 0.995) -> None:
        self.truth = None
        self.rng = np.random.default_rng(seed)
        self.confidence = confidence

    def read_board(
        self,
        image: np.ndarray,
        corners: np.ndarray,
        layout: Layout,
        *,
        all_turns: bool = False,
        second_look: int = 0,
    ) -> dict[str, Reading]:
        assert self.truth is not None
        readings = {}
        for square in layout.squares:
            if self.truth.coverage.get(square, 0.0) >= 0.2:
                index = COVERED
            else:
                tile = self.truth.position[square]
                index = EMPTY if tile is None else LABELS.index(str(tile))
            p = self.rng.dirichlet(np.full(len(LABELS), 0.5)) * (1 - self.confidence)
            p[index] += self.confidence
            readings[square] = Reading(label_of(index), float(p[index]), p)
        return readings

    def read_board_with_crops(
        self, image: np.ndarray, corners: np.ndarray, layout: Layout, *, second_look: int = 0
    ) -> tuple[dict[str, Reading], np.ndarray]:
        # Stand-in crops: this reader reads the truth, not pixels, as last seen; each
        # crop holds its square's number, which averaging and sharpening keep.
        self.seen = image, corners, layout
        numbers = np.arange(len(layout.squares), dtype=np.uint8)
        crops = np.broadcast_to(numbers[:, None, None, None], (len(numbers), 8, 8, 3)).copy()
        return self.read_board(image, corners, layout), crops

    def crop_px_per_px(self, corners: np.ndarray) -> float:
        return 1.0

    def read_crops(self, crops: np.ndarray, *, all_turns: bool = False) -> list[Reading]:
        image, corners, layout = self.seen
        readings = self.read_board(image, corners, layout)
        return [readings[layout.squares[int(crop[0, 0, 0])]] for crop in crops]


def table_with_truth_reader(  # type: ignore[no-untyped-def]
    seed: int,
    max_turns: int,
    reader: TruthReader,
    players: str = "S=red,W=green,N=yellow,E=purple",
    on_status=None,
    follow_the_dashboard: bool = False,
    hands: bool = True,
):
    """A simulated game read by ``reader``, the board registered once from its true
    corners (as `calibrate board` would): the source's frames (the first already
    taken from it), the session, the pipeline and its runner."""
    source = SimulatedTableSource(
        seed, players=players, hands=hands, realtime=False, games=1, max_turns=max_turns
    )
    session = GameSession(GameStore(":memory:"))
    frames = iter(source)
    first = next(frames)
    calibration = Calibration(
        (first.image.shape[1], first.image.shape[0]),
        board_corners=first.truth.board_corners_distorted,
    )
    pipeline = LivePipeline(reader, calibration=calibration, link=SessionLink(session))  # type: ignore[arg-type]
    table = SimulatedPlayers(session, pipeline, source if follow_the_dashboard else None)
    runner = PipelineRunner(source, pipeline, on_status=on_status, on_frame=table.on_frame)
    return source, itertools.chain([first], frames), session, pipeline, runner


def play_through(  # type: ignore[no-untyped-def]
    seed: int, max_turns: int, players: str = "S=red,W=green,N=yellow,E=purple", hands=True
):
    reader = TruthReader(seed)
    source, frames, session, _, runner = table_with_truth_reader(
        seed, max_turns, reader, players, hands=hands
    )
    lost_in_clear_view = 0  # under a hand the tracker may doubt; in a clear view, never
    for frame in frames:
        reader.truth = frame.truth
        report = runner.step(frame)
        clear = max(frame.truth.coverage.values()) == 0
        lost_in_clear_view += report.location is None and clear
    assert source.stream is not None
    return session, source.stream.record, lost_in_clear_view


@pytest.mark.parametrize("seed", [5, 100003, 100005])
def test_tiles_put_down_with_no_hand_seen_are_scored_turn_by_turn(seed: int) -> None:
    # No hand in any frame (a camera too slow to catch one, `eval` without --hands):
    # each tile just appears, the turn's tiles 0.47 s apart. Before, the first steady
    # view lasted for ever (nothing moved), and then turns were cut after one tile.
    session, truth, _ = play_through(seed, max_turns=6, hands=False)
    state = session.state
    assert state is not None
    expected = truth.replay()
    assert [o.turn.player for o in state.outcomes] == [o.turn.player for o in expected.outcomes]
    assert [o.turn.position for o in state.outcomes] == [o.turn.position for o in expected.outcomes]
    assert state.scores == expected.scores


@pytest.mark.parametrize("seed", [11, 12])
def test_every_turn_scored_right_without_asking(seed: int) -> None:
    session, truth, lost = play_through(seed, max_turns=6)
    state = session.state
    assert state is not None
    expected = truth.replay()
    assert lost == 0
    assert [o.turn.player for o in state.outcomes] == [o.turn.player for o in expected.outcomes]
    assert [o.turn.position for o in state.outcomes] == [o.turn.position for o in expected.outcomes]
    assert state.scores == expected.scores
    assert session.pending is None
    sources = dict(
        session.store._db.execute(
            "SELECT number, source FROM turns WHERE game_id = ?", (session.game_id,)
        ).fetchall()
    )
    assert "confirmed" not in sources.values()  # nothing had to be asked


def test_the_demo_plays_on_with_the_game_the_dashboard_holds() -> None:
    # The demo's table plays on with whichever game the dashboard holds. The board in
    # view when the game changes belongs to the game before: reading it as a play of
    # the resumed game recorded illegal turns (and the simulated players confirmed them).
    from engine import GameSetup, Seats

    reader = TruthReader(13)
    _, frames, session, _, runner = table_with_truth_reader(
        13, 60, reader, follow_the_dashboard=True
    )

    def play_until(turns: int) -> None:
        for frame in frames:
            reader.truth = frame.truth
            runner.step(frame)
            if session.record is not None and len(session.record.turns) >= turns:
                return
        raise AssertionError("the table stopped before the turns were played")

    play_until(3)
    # A turn undone on the dashboard: the demo's players take its tiles back and play on.
    undone = session.undo()
    play_until(4)
    assert session.record is not None and session.record.turns[2] != undone
    first = session.game_id
    first_turns = session.record.turns  # type: ignore[union-attr]
    assert session.state is not None
    session.new_game(GameSetup(Seats.parse("S=red,N=yellow"), start=session.state.position))
    second = session.game_id
    play_until(3)
    assert first is not None and second is not None
    session.resume(first)
    play_until(len(first_turns) + 3)

    for game in (first, second):
        state = session.store.load_record(game).replay()
        assert all(o.counted for o in state.outcomes), [o.result for o in state.outcomes]
    assert session.store.load_record(second).setup.seats.players == ("red", "yellow")
    assert [t.player for t in session.store.load_record(second).turns][:3] == [
        "red",
        "yellow",
        "red",
    ]
    assert session.record is not None
    assert session.record.turns[: len(first_turns)] == first_turns
    assert session.pending is None


class ReaderThroughCorners(TruthReader):
    """Reads the truth's tile at the place each named square lies when the board is
    seen through the given corners: with south on the wrong edge, every square gets
    another square's tile, as a real classifier would report."""

    def read_board(
        self,
        image: np.ndarray,
        corners: np.ndarray,
        layout: Layout,
        *,
        all_turns: bool = False,
        second_look: int = 0,
    ) -> dict[str, Reading]:
        from vision.pipeline import turned_position

        assert self.truth is not None
        seen = manual_board(corners)
        truth_board = manual_board(self.truth.board_corners_distorted)
        renamed = turned_position(self.truth.position, truth_board, seen)
        readings = {}
        for square in layout.squares:
            tile = renamed[square]
            index = EMPTY if tile is None else LABELS.index(str(tile))
            p = np.full(len(LABELS), 0.001 / (len(LABELS) - 1))
            p[index] = 0.999
            readings[square] = Reading(label_of(index), 0.999, p)
        return readings


def test_a_new_game_turns_the_board_to_the_seats() -> None:
    # No calibration: the board is found with south taken as the edge nearest the
    # camera. Pick a table where that guess is wrong.
    from calibration.board_finder import find_board
    from engine import Position, Seats

    players = "S=red,W=green,N=yellow,E=purple"
    for seed in range(20, 40):
        source = SimulatedTableSource(seed, players=players, realtime=False, games=1, max_turns=1)
        first = next(iter(source))
        guess = find_board(first.image, Layout.load()).corners
        truth = first.truth.board_corners_distorted
        if np.linalg.norm(guess - truth, axis=1).max() > 20:
            break
    else:
        pytest.fail("no table where the nearest edge is not south")
    source = SimulatedTableSource(seed, players=players, realtime=False, games=1, max_turns=1)
    reader = ReaderThroughCorners(seed)
    pipeline = LivePipeline(reader)  # type: ignore[arg-type]
    runner = PipelineRunner(source, pipeline)
    frames = iter(source)
    for frame in frames:
        reader.truth = frame.truth
        runner.step(frame)
        if pipeline.stability.current_view is not None:
            break
    assert pipeline.board.location is not None
    assert pipeline.board.location.orientation_source == "nearest-edge"
    wrong = Position.from_json(runner.current_reading())
    assert wrong != frame.truth.position  # read with south on the wrong edge
    right = Position.from_json(runner.current_reading(Seats.parse(players)))
    assert right == frame.truth.position
    turned_at = frame.time
    # The board is turned for good: the next frames read it the right way round.
    for frame in frames:
        reader.truth = frame.truth
        runner.step(frame)
        if pipeline.stability.current_view is not None:
            break
    # Seen steady again as soon as a still board is, not after the longer look that
    # a board read otherwise than before waits (what the last view read, under the old
    # names, is forgotten): without a steady view, the first arm to come over the
    # border is not seen, and the first turns run into one.
    assert frame.time - turned_at < SETTLE_S + 0.2
    assert pipeline.motion.has_background
    location = pipeline.board.location
    assert location is not None and location.orientation_source == "seats"
    assert np.linalg.norm(location.corners - frame.truth.board_corners_distorted, axis=1).max() < 5
    assert Position.from_json(runner.current_reading()) == frame.truth.position


def still_table_statuses(  # type: ignore[no-untyped-def]
    reader: TruthReader, frames: int, resolution: tuple[int, int] = (1280, 720)
):
    """The camera lines of the first ``frames`` frames of a table with no hands, its
    board registered from the true corners; and the pipeline."""
    source = SimulatedTableSource(
        3, realtime=False, games=1, max_turns=1, hands=False, resolution=resolution
    )
    statuses: list[dict] = []
    shown = iter(source)
    first = next(shown)
    calibration = Calibration(
        (first.image.shape[1], first.image.shape[0]),
        board_corners=first.truth.board_corners_distorted,
    )
    pipeline = LivePipeline(reader, calibration=calibration)  # type: ignore[arg-type]
    runner = PipelineRunner(source, pipeline, on_status=statuses.append)
    for frame in [first, *itertools.islice(shown, frames - 1)]:
        reader.truth = frame.truth
        runner.step(frame)
    return statuses, pipeline


def test_the_camera_line_does_not_flicker_between_reasons_the_board_is_lost() -> None:
    # With the camera turned away, the board finder gives a different reason from one
    # frame to the next; the camera line flickered between them, too fast to read.
    from types import SimpleNamespace

    from vision.pipeline import FrameReport

    reasons = ["lost: no board in view", "lost: could not re-register", "lost: not square"]
    flickering = [reasons[i % 2] for i in range(20)] + [reasons[2]] * 4

    class LostPipeline(SimpleNamespace):
        def process(self, image, time):  # type: ignore[no-untyped-def]
            return FrameReport(time, None, None, False, 0.0, board_state=flickering[round(time)])

    source = SimulatedTableSource(3, realtime=False, games=1, max_turns=1, hands=False)
    statuses: list[dict] = []
    runner = PipelineRunner(source, LostPipeline(deciding=True), on_status=statuses.append)  # type: ignore[arg-type]
    frame = next(iter(source))
    for second in range(len(flickering)):
        runner.step(type(frame)(frame.image, float(second), frame.truth))
    said = [status["message"] for status in statuses]
    assert all(status["state"] == "lost" for status in statuses)
    changes = [now for before, now in itertools.pairwise(said) if now != before]
    # Steady through the flicker; a new reason given frame after frame is said.
    assert said[0] == "board not found: no board in view"
    assert changes == ["board not found: not square"]


@pytest.mark.parametrize(("resolution", "advised"), [((1920, 1080), False), ((480, 270), True)])
def test_status_says_when_the_board_is_too_small(resolution, advised) -> None:  # type: ignore[no-untyped-def]
    statuses, _ = still_table_statuses(TruthReader(3), 6, resolution)
    watching = [s["message"] for s in statuses if s.get("state") == "tracking"]
    assert watching
    assert all(("move the camera closer" in m) == advised for m in watching)


@pytest.mark.parametrize("corners_off", [False, True])
def test_status_says_when_corners_off_the_board_read_every_square_covered(corners_off) -> None:  # type: ignore[no-untyped-def]
    class OffTheBoard(TruthReader):
        """Reads the table around the board, as corners set off it do: "hands"."""

        def read_board(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            readings = super().read_board(*args, **kwargs)
            p = np.full(len(LABELS), 0.001)
            p[COVERED] = 1 - 0.001 * (len(LABELS) - 1)
            return {s: Reading("covered", float(p[COVERED]), p) for s in readings}

    statuses, pipeline = still_table_statuses(OffTheBoard(3) if corners_off else TruthReader(3), 41)
    assert pipeline.stability.current_view is not None
    said = "the corners miss it" in statuses[-1].get("advice", "")
    assert said == corners_off


@pytest.mark.parametrize(("confidence", "told"), [(0.995, False), (0.9, True)])
def test_status_says_when_many_tiles_stay_unread(confidence, told) -> None:  # type: ignore[no-untyped-def]
    # A reader sure of every square, or one that leaves every square below its
    # threshold (a smeared picture, a set never enrolled): only the second is told.
    statuses: list[dict] = []
    reader = TruthReader(7, confidence=confidence)
    _, frames, _, pipeline, runner = table_with_truth_reader(
        7, 3, reader, on_status=statuses.append
    )
    for frame in frames:  # lazily: the statuses are the running source's
        reader.truth = frame.truth
        runner.step(frame)
    assert pipeline.unread.tiles >= MIN_TILES  # the views had tiles enough to judge
    watching = [s["message"] for s in statuses if s.get("state") == "tracking"]
    assert any("left unread" in m for m in watching) == told
    if told:
        assert any("enrol it (Enrol tiles page, or setupcam enroll" in m for m in watching)
    # The advice is also given apart, for the dashboard to mark the camera line.
    assert any("left unread" in s.get("advice", "") for s in statuses) == told
    # Corners set by hand (the camera was moved): the picture is judged afresh.
    pipeline.set_board_corners(frame.truth.board_corners_distorted)
    assert pipeline.unread.tiles == 0 and pipeline.unread_advice() is None


def test_tiles_left_in_doubt_are_read_again_through_the_frames_together() -> None:
    class Unsure(TruthReader):
        """Reads the truth from each frame and its look unsure, sure of it only through a
        steady view's frames taken together (the only crops read at four turns)."""

        def __init__(self) -> None:
            super().__init__(seed=0, confidence=0.9)
            self.frames: list[np.ndarray] = []

        def read_board_with_crops(self, image, corners, layout, *, second_look=0):  # type: ignore[no-untyped-def]
            readings, crops = super().read_board_with_crops(
                image, corners, layout, second_look=second_look
            )
            crops[:, 1, 1, 1] = 10 * (len(self.frames) % 3)  # each frame's crops its own
            self.frames.append(crops)
            return readings, crops

        def read_crops(self, crops, *, all_turns=False):  # type: ignore[no-untyped-def]
            readings = super().read_crops(crops, all_turns=all_turns)
            return [sure(r) for r in readings] if all_turns else readings

    def sure(reading: Reading) -> Reading:
        p = np.full(len(LABELS), 1e-7)
        p[LABELS.index(str(reading.label))] = 1 - 1e-7 * (len(LABELS) - 1)
        return Reading(reading.label, float(p.max()), p)

    reader = Unsure()
    layout = Layout.load()
    _, frames, _, _, runner = table_with_truth_reader(3, 1, reader)  # type: ignore[arg-type]
    tiles: list[str] = []
    for frame in itertools.islice(frames, 80):
        reader.truth = frame.truth
        report = runner.step(frame)
        tiles = [s for s in layout.squares if frame.truth.position[s] is not None]
        if report.view is not None and tiles:
            break
    view = report.view
    assert view is not None and view.frame_crops is not None and tiles
    kept = reader.frames[-view.frames :]
    assert all(np.array_equal(a, b) for a, b in zip(view.frame_crops, kept, strict=True))
    # Each tile was left in doubt by the frames and the look, and is answered now; the
    # empty squares, as unsure, are left as they were.
    assert all(view.probabilities[s].max() >= reader.threshold for s in tiles)
    empty = [s for s in layout.squares if s not in tiles]
    assert all(view.probabilities[s].max() < reader.threshold for s in empty)


@pytest.mark.parametrize("confidence", [0.995, 0.9])
def test_a_view_left_in_doubt_is_looked_at_longer_once(confidence: float) -> None:
    reader = TruthReader(seed=0, confidence=confidence)
    source, frames, _, _, runner = table_with_truth_reader(3, 1, reader)
    views = []
    for frame in itertools.islice(frames, 120):
        reader.truth = frame.truth
        report = runner.step(frame)
        if report.view is not None:
            views.append(report.view)
    assert views
    fps = source.fps
    settled, longer = SETTLE_S * fps, LONGER_LOOK_S * fps
    if confidence > reader.threshold:
        # A sure view is decided as soon as the board has settled.
        assert all(v.frames <= settled + 2 < longer for v in views)
    else:
        # A doubtful one waits for nearly a second of frames, and then is decided as it is.
        assert all(v.frames >= longer for v in views)


@pytest.mark.parametrize(("scale", "shape_kept"), [(2.0, True), (1.0, False)])
def test_a_calibration_made_at_another_resolution(scale: float, shape_kept: bool) -> None:
    # A camera calibrated at 2560x1440 that now streams 1280x720 keeps its board,
    # scaled; one whose picture changed shape has the board found anew.
    source = SimulatedTableSource(5, realtime=False, games=1, max_turns=1, hands=False)
    reader = TruthReader(5)
    first = next(iter(source))
    width, height = first.image.shape[1], first.image.shape[0]
    truth = first.truth.board_corners_distorted
    size = (int(width * scale), int(height * scale)) if shape_kept else (width, height + 200)
    calibration = Calibration(size, board_corners=truth * scale)
    pipeline = LivePipeline(reader, calibration=calibration)  # type: ignore[arg-type]
    reader.truth = first.truth
    pipeline.process(first.image, 0.0)
    location = pipeline.board.location
    assert location is not None
    assert np.abs(location.corners - truth).max() < (0.01 if shape_kept else 5)
    assert location.method == ("manual" if shape_kept else "auto")


def test_the_dashboards_picture_is_the_one_its_corners_are_in() -> None:
    # With a lens calibrated, the board's corners (drawn, dragged on the Calibrate
    # page, saved) are in the pixels of the picture with the lens's distortion taken
    # out: the dashboard must show that picture, not the camera's own.
    import cv2

    from calibration.camera_file import undistort

    frame = next(iter(SimulatedTableSource(17, hands=False, realtime=False, max_turns=1)))
    truth = frame.truth
    size = (frame.image.shape[1], frame.image.shape[0])
    calibration = Calibration(
        size, truth.camera_matrix, truth.dist_coeffs, board_corners=truth.board_corners
    )
    reader = TruthReader()
    reader.truth = truth
    runner = PipelineRunner(None, LivePipeline(reader, calibration=calibration))  # type: ignore[arg-type]
    runner.step(frame)
    shown = runner.latest_jpeg(annotated=False)
    assert shown is not None
    shown_image = cv2.imdecode(np.frombuffer(shown, np.uint8), cv2.IMREAD_COLOR).astype(float)
    straight = undistort(frame.image, calibration).astype(float)
    off_straight = float(np.abs(shown_image - straight).mean())
    off_camera = float(np.abs(shown_image - frame.image.astype(float)).mean())
    assert off_straight < 3 and off_camera > 2 * off_straight, (off_straight, off_camera)


def _read_through(stream, turns: int):  # type: ignore[no-untyped-def]
    """The session after the live pipeline read ``stream``'s frames (truth reader,
    board registered from its true corners), and the game's own record."""
    from engine import GameSetup

    session = GameSession(GameStore(":memory:"))
    record = stream.record
    session.new_game(GameSetup(record.setup.seats, start=record.setup.start))
    reader = TruthReader()
    pipeline = None
    for number, (frame, _) in enumerate(stream):
        if pipeline is None:
            size = (frame.image.shape[1], frame.image.shape[0])
            calibration = Calibration(size, board_corners=frame.truth.board_corners_distorted)
            pipeline = LivePipeline(reader, calibration=calibration, link=SessionLink(session))  # type: ignore[arg-type]
        reader.truth = frame.truth
        pipeline.process(frame.image, number / stream.fps)
    assert pipeline is not None
    pipeline.finish()
    return session, record.turns[:turns]


@pytest.mark.parametrize(
    ("seed", "first_tile_alone"),
    [
        (4, "in no set: the players are asked, and the rest of the turn answers it"),
        (7, "a legal play: scored, then the rest of the turn joins it"),
    ],
)
def test_a_player_who_stops_to_think_between_two_tiles_plays_one_turn(
    seed: int, first_tile_alone: str
) -> None:
    from engine import analyse_turn
    from vision.synth.sequence import GameStream

    # The second turn puts down two or more tiles; its player takes the hand away for
    # a second after the first, and the next player waits as usual.
    stream = GameStream.random(seed, players="S=red,W=green", max_turns=3, thinking={2: 1.0})
    turns = stream.record.turns
    before, after = turns[0].position, turns[1].position
    changed = [s for s in before.layout.squares if before[s] != after[s]]
    assert len(changed) >= 2
    first = before.place({changed[0]: after[changed[0]]})
    alone = analyse_turn(before, first, stream.record.setup.seats, turns[1].player)
    assert alone.legal == first_tile_alone.startswith("a legal play")
    session, truth = _read_through(stream, 3)
    seen = [(t.player, t.position) for t in session.record.turns]
    assert seen == [(t.player, t.position) for t in truth]
    assert session.pending is None


def test_the_camera_line_names_squares_something_lies_over() -> None:
    from vision.stability import StableView

    pipeline = LivePipeline(TruthReader(), Layout.load())  # type: ignore[arg-type]
    readings = {s: np.eye(len(LABELS))[EMPTY] for s in pipeline.layout.squares}
    readings["b2"] = readings["c2"] = np.eye(len(LABELS))[COVERED]
    pipeline.stability.current_view = StableView(1.0, readings, 6)
    advice = pipeline.covered_advice()
    assert advice is not None and "lies over b2, c2" in advice and "lift it off" in advice
    for square in pipeline.layout.squares:  # most squares: the corners miss the board
        readings[square] = np.eye(len(LABELS))[COVERED]
    assert "the corners miss it" in (pipeline.covered_advice() or "")
    readings.update({s: np.eye(len(LABELS))[EMPTY] for s in pipeline.layout.squares})
    assert pipeline.covered_advice() is None
