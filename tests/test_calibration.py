"""Calibration: the file, the lens, the markers, board finding and tracking, the CLI."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from conftest import outline_error

from calibration.board_finder import find_board, track_board
from calibration.board_location import BoardNotFound, corner_error, manual_board
from calibration.board_tracker import PATIENCE_FRAMES, BoardTracker
from calibration.camera_file import (
    Calibration,
    CalibrationError,
    board_look_path,
    load_board_look,
    load_calibration,
    save_board_look,
    save_calibration,
    undistort,
)
from calibration.lens import calibrate_lens, write_charuco_target
from calibration.markers import find_board_by_markers, missing_markers, write_marker_sheet
from calibration.orientation import BoardLook
from calibration.synthetic import (
    camera_matrix,
    charuco_view,
    render_board_scene,
    render_marker_scene,
)
from engine.layout import Layout
from setupcam.cli import main

LAYOUT = Layout.load()


def _rel_error(corners: np.ndarray, truth: np.ndarray) -> float:
    return corner_error(corners, truth) / float(np.linalg.norm(truth[1] - truth[0]))


# --- calibration file -------------------------------------------------------------------


def test_calibration_round_trip(tmp_path):
    cal = Calibration(
        (1280, 720),
        [[900.0, 0, 640], [0, 905.0, 360], [0, 0, 1]],
        [-0.1, 0.02, 0, 0, 0],
        [(100, 100), (600, 110), (610, 600), (90, 590)],
    )
    path = tmp_path / "cal.json"
    save_calibration(cal, path)
    data = json.loads(path.read_text())
    assert set(data) == {"image_size", "camera_matrix", "dist_coeffs", "board_corners"}
    assert data["image_size"] == [1280, 720]
    assert load_calibration(path) == cal
    assert not list(tmp_path.glob(".cal.json.*"))  # the temporary file is gone
    # Saved again as it is: nothing to keep. Saved otherwise: the old one is kept.
    assert save_calibration(cal, path) is None
    assert not (tmp_path / "cal.previous.json").exists()
    lens_only = Calibration((1280, 720), cal.camera_matrix, cal.dist_coeffs)
    assert save_calibration(lens_only, path) == tmp_path / "cal.previous.json"
    assert load_calibration(tmp_path / "cal.previous.json") == cal
    assert load_calibration(path) == lens_only


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"image_size": [1280]}, "image_size"),
        ({"camera_matrix": [[1, 0, 0], [0, 1, 0]]}, "camera_matrix"),
        ({"dist_coeffs": [0.1]}, "dist_coeffs"),
        ({"board_corners": [[0, 0], [1, 0], [1, 1]]}, "board_corners"),
        # Counter-clockwise (NW, SW, SE, NE) is a mirrored board: refused.
        ({"board_corners": [[0, 0], [0, 100], [100, 100], [100, 0]]}, "board_corners"),
    ],
)
def test_calibration_errors_name_the_field(tmp_path, patch, field):
    data = {"image_size": [640, 480], "camera_matrix": None, "dist_coeffs": None}
    data["board_corners"] = [[0, 0], [100, 0], [100, 100], [0, 100]]
    data.update(patch)
    if field == "camera_matrix":
        data["dist_coeffs"] = [0, 0, 0, 0, 0]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match=field) as info:
        load_calibration(path)
    assert "\n" not in str(info.value)


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(CalibrationError, match="not found"):
        load_calibration(tmp_path / "nope.json")
    (tmp_path / "x.json").write_text("{")
    with pytest.raises(CalibrationError, match="not valid JSON"):
        load_calibration(tmp_path / "x.json")


def test_undistort_straightens_and_is_identity_without_lens():
    image = np.random.default_rng(0).integers(0, 255, (120, 160, 3), np.uint8)
    assert undistort(image, Calibration((160, 120))) is image
    k = camera_matrix(160, 120, 150.0)
    cal = Calibration((160, 120), k, [-0.3, 0.1, 0, 0, 0])
    out = undistort(image, cal)
    assert out.shape == image.shape
    assert not np.array_equal(out, image)
    # The optical centre does not move.
    assert np.abs(out[58:62, 78:82].astype(int) - image[58:62, 78:82].astype(int)).mean() < 40


# --- lens --------------------------------------------------------------------------------


def test_lens_calibration_recovers_focal_length_and_says_good():
    rng = np.random.default_rng(3)
    size = (800, 600)
    k = camera_matrix(*size, 700.0)
    dist = np.array([-0.2, 0.06, 0, 0, 0])
    images = [charuco_view(rng, k, dist, size) for _ in range(8)]
    result = calibrate_lens(images)
    assert all(result.used)
    assert result.level == "good" and result.verdict.startswith("good")
    assert result.rms < 0.5
    assert result.camera_matrix[0, 0] == pytest.approx(700.0, rel=0.03)
    assert result.camera_matrix[1, 1] == pytest.approx(700.0, rel=0.03)
    assert result.dist_coeffs[0] == pytest.approx(-0.2, abs=0.05)
    cal = result.to_calibration()
    assert cal.image_size == size and cal.has_lens


def test_lens_calibration_face_on_photos_say_tilt():
    rng = np.random.default_rng(4)
    size = (800, 600)
    k = camera_matrix(*size, 700.0)
    images = [charuco_view(rng, k, None, size, tilt_range=(0, 4)) for _ in range(5)]
    result = calibrate_lens(images)
    assert result.level == "retake"
    assert "retake with the board tilted" in result.verdict


def test_lens_calibration_too_few_views():
    blank = np.full((480, 640, 3), 200, np.uint8)
    result = calibrate_lens([blank, blank])
    assert result.level == "retake" and "only 0 of 2 photos" in result.verdict
    assert result.used == (False, False)
    with pytest.raises(ValueError):
        result.to_calibration()


def test_printable_targets(tmp_path):
    from PIL import Image

    write_charuco_target(tmp_path / "t.png")
    write_charuco_target(tmp_path / "t.pdf")
    with Image.open(tmp_path / "t.png") as img:
        assert img.size == (3508, 2480)  # A4 landscape at 300 dpi
    assert (tmp_path / "t.pdf").read_bytes().startswith(b"%PDF")
    write_marker_sheet(tmp_path / "m.png")
    sheet = cv2.imread(str(tmp_path / "m.png"))
    assert sheet.shape[:2] == (3508, 2480)  # A4 portrait
    # The printed markers are readable: all four ids are on the sheet.
    assert missing_markers(cv2.resize(sheet, None, fx=0.4, fy=0.4)) == []
    with pytest.raises(ValueError, match=r"\.png or \.pdf"):
        write_marker_sheet(tmp_path / "m.jpg")


# --- markers -----------------------------------------------------------------------------


def test_markers_locate_board_with_orientation():
    for seed in range(4):
        scene = render_marker_scene(np.random.default_rng(seed))
        location = find_board_by_markers(scene.image)
        assert location is not None
        assert location.method == "markers"
        # Orientation from the ids: corners match the truth in order, not just as a set.
        assert _rel_error(location.corners, scene.corners) < 0.01


def test_markers_missing_returns_none():
    scene = render_board_scene(np.random.default_rng(0))
    assert find_board_by_markers(scene.image) is None
    assert missing_markers(scene.image) == ["NW", "NE", "SE", "SW"]


# --- automatic finding -------------------------------------------------------------------


def test_find_board_on_synthetic_tables():
    errors = []
    for seed in range(12):
        scene = render_board_scene(np.random.default_rng(seed))
        location = find_board(scene.image, LAYOUT)
        assert location.method == "auto"
        errors.append(outline_error(location.corners, scene.corners))
    assert max(errors) < 0.01, errors


def test_orientation_from_board_look():
    reference = render_board_scene(np.random.default_rng(100))
    look = BoardLook.capture(reference.image, manual_board(reference.corners), LAYOUT)
    assert look.distinct()
    assert BoardLook.from_dict(look.to_dict()).edge_lab == pytest.approx(look.edge_lab, abs=0.01)
    for seed in range(8):
        scene = render_board_scene(np.random.default_rng(seed))  # any yaw
        location = find_board(scene.image, LAYOUT, look=look)
        assert location.orientation_source == "signature"
        assert _rel_error(location.corners, scene.corners) < 0.01


def test_orientation_default_is_nearest_edge():
    scene = render_board_scene(np.random.default_rng(1), yaw=0.0, max_tilt=5.0)
    location = find_board(scene.image, LAYOUT)
    assert location.orientation_source == "nearest-edge"
    assert _rel_error(location.corners, scene.corners) < 0.01
    south_mid = location.corners[2:].mean(axis=0)
    assert south_mid[1] == max(((location.corners + np.roll(location.corners, -1, 0)) / 2)[:, 1])


@pytest.mark.parametrize(
    ("image", "reason"),
    [
        (np.full((720, 1280, 3), 8, np.uint8), "too dark: mean brightness 8/255"),
        (np.full((720, 1280, 3), 120, np.uint8), "no contrast"),
    ],
)
def test_board_not_found_reasons(image, reason):
    with pytest.raises(BoardNotFound, match=reason):
        find_board(image, LAYOUT)


def test_board_not_found_on_empty_table():
    from calibration.synthetic import table_texture

    table = table_texture(np.random.default_rng(2), (1280, 720))
    with pytest.raises(BoardNotFound, match="no board-sized quadrilateral"):
        find_board(table, LAYOUT)


def test_printed_marker_sheet_is_not_a_board(tmp_path):
    write_marker_sheet(tmp_path / "m.png")
    sheet = cv2.resize(cv2.imread(str(tmp_path / "m.png")), None, fx=0.25, fy=0.25)
    with pytest.raises(BoardNotFound):
        find_board(sheet, LAYOUT)


def test_manual_board_checks_order():
    loc = manual_board([(100, 100), (500, 120), (480, 500), (90, 480)])
    assert loc.to_board([(100, 100)]) == pytest.approx(np.array([[0.0, 0.0]]), abs=1e-9)
    quads = loc.square_quads(LAYOUT)
    assert set(quads) == set(LAYOUT.squares)
    with pytest.raises(ValueError, match="clockwise"):
        manual_board([(100, 100), (90, 480), (480, 500), (500, 120)])


# --- tracking and drift ------------------------------------------------------------------


def _warp(image: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    return cv2.warpAffine(
        image, matrix, (image.shape[1], image.shape[0]), borderMode=cv2.BORDER_REFLECT
    )


def _move(corners: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    return cv2.transform(corners.reshape(-1, 1, 2), matrix).reshape(4, 2)


def _update_until_located(tracker: BoardTracker, image: np.ndarray):  # type: ignore[no-untyped-def]
    """Feed the same (moved) view until the tracker has re-registered: a knock lasts,
    so the tracker may first doubt for a few frames (it could have been a hand)."""
    for _ in range(PATIENCE_FRAMES + 1):
        located = tracker.update(image)
        if located is not None:
            return located
    raise AssertionError(f"not re-registered: {tracker.state}")


def test_tracker_notices_bumps_and_keeps_orientation():
    scene = render_board_scene(np.random.default_rng(6))
    tracker = BoardTracker(LAYOUT)
    first = tracker.update(scene.image)
    assert tracker.state == "tracking" and first is not None
    registered = first.corners.copy()
    assert tracker.update(scene.image) is first  # unchanged frame: same location

    bump = cv2.getRotationMatrix2D((640, 360), 2, 1.0)
    bump[:, 2] += (6, 3)
    moved = _warp(scene.image, bump)
    located = _update_until_located(tracker, moved)
    assert tracker.state == "tracking" and tracker.reregistrations == 1
    assert _rel_error(located.corners, _move(registered, bump)) < 0.01

    turn = cv2.getRotationMatrix2D((640, 360), 30, 1.0)
    located = _update_until_located(tracker, _warp(moved, turn))
    assert tracker.state == "tracking"
    # Same corner order after a 30° camera turn: south stayed south.
    assert _rel_error(located.corners, _move(_move(registered, bump), turn)) < 0.01


def test_tracker_reports_lost_instead_of_stale_location():
    scene = render_board_scene(np.random.default_rng(7))
    tracker = BoardTracker(LAYOUT)
    assert tracker.update(scene.image) is not None
    dark = np.full_like(scene.image, 4)
    # For a moment it only doubts (a hand?); then, looking again, it says why it is lost.
    assert tracker.update(dark) is None
    assert tracker.state.startswith("checking")
    for _ in range(PATIENCE_FRAMES):
        assert tracker.update(dark) is None
    assert tracker.state.startswith("lost: too dark")
    assert tracker.location is None
    assert tracker.update(scene.image) is not None  # back in view
    assert tracker.state == "tracking"


def test_tracked_finding_is_consistent():
    # Its speed is the board benchmark's (docs/benchmarks.md, "Board finding").
    scene = render_board_scene(np.random.default_rng(8))
    first = find_board(scene.image, LAYOUT)
    for _ in range(10):
        again = find_board(scene.image, LAYOUT, previous=first)
        assert corner_error(again.corners, first.corners) < 0.5


def _cover_side(image: np.ndarray, corners: np.ndarray, side: int) -> np.ndarray:
    """A hand-coloured blob over most of one side of the board (and a bit of the table)."""
    out = image.copy()
    a, b = corners[side], corners[(side + 1) % 4]
    centre = (a + b) / 2
    length = float(np.linalg.norm(b - a))
    angle = float(np.degrees(np.arctan2(b[1] - a[1], b[0] - a[0])))
    box = cv2.boxPoints(((float(centre[0]), float(centre[1])), (0.8 * length, 40.0), angle))
    cv2.fillConvexPoly(out, np.round(box).astype(np.int32), (120, 155, 205), cv2.LINE_AA)
    return out


def test_tracking_keeps_the_board_when_a_hand_hides_one_side():
    scene = render_board_scene(np.random.default_rng(9))
    first = find_board(scene.image, LAYOUT)
    for side in range(4):
        covered = _cover_side(scene.image, first.corners, side)
        # The three visible sides are where they were: the registration holds as is,
        # without a search from scratch.
        again = track_board(covered, first)
        assert again is not None, side
        assert corner_error(again.corners, first.corners) < 0.5
    # A moved board with a side hidden is not kept where it was.
    shift = np.float64([[1, 0, 8], [0, 1, 5]])
    moved = _cover_side(_warp(scene.image, shift), _move(first.corners, shift), 1)
    located = find_board(moved, LAYOUT, previous=first)
    assert corner_error(located.corners, first.corners) > 4


# --- simulator frames --------------------------------------------------------------------


def _sim_frame(seed: int, **kw):
    from vision.synth import scene as synth

    return synth.render_frame(synth.random_scene(seed, **kw), seed)


def test_find_board_on_simulator_frames():
    good = 0
    for seed in range(20):
        frame = _sim_frame(seed)
        truth = frame.truth
        cal = Calibration(truth.image_size, truth.camera_matrix, truth.dist_coeffs)
        try:
            location = find_board(undistort(frame.image, cal), LAYOUT)
        except BoardNotFound:
            continue
        good += outline_error(location.corners, truth.board_corners) < 0.01
    # The target is 99% of frames within 1% (docs/benchmarks.md, "Board finding"
    # measures it on many more): so none of these twenty may miss.
    assert good == 20


@pytest.mark.parametrize(
    "seed, family, resolution",
    [(1325, "bold", (1920, 1080)), (1403, "classic", (1920, 1080)), (1420, "classic", (1280, 720))],
)
def test_board_covered_with_tiles_is_found_by_its_symmetry(seed, family, resolution):
    # Tiles over every square hide the square outlines: these boards were once
    # mistaken for a smaller outline anchored at one of their corners.
    from calibration import board_finder

    frame = _sim_frame(seed, family=family, hands=False, resolution=resolution)
    truth = frame.truth.board_corners_distorted
    grey = board_finder._grey(frame.image)
    strict, _ = board_finder._structure(grey, truth)
    assert 0 < strict < 0.5  # passed on symmetry alone, without the outline bonus
    location = find_board(frame.image, LAYOUT)
    assert outline_error(location.corners, truth) < 0.01


def _board_and_its_reference(seed: int, family: str, resolution: tuple[int, int]):
    """A frame without hands and another frame of the same board style (new camera,
    position, light), as the board finding benchmark pairs them."""
    import dataclasses

    from vision.synth import scene as synth

    scene = synth.random_scene(seed, family=family, hands=False, resolution=resolution)
    other = synth.random_scene(seed + 100_000, family=family, resolution=resolution)
    reference = dataclasses.replace(other, style=scene.style)
    return synth.render_frame(scene, seed), synth.render_frame(reference, seed + 100_000)


def test_rim_profile_tells_the_board_edge_from_the_track_ring():
    from calibration.rim_profile import moved_outline, rim_offset, rim_profile

    frame, reference = _board_and_its_reference(2000, "classic", (1280, 720))
    profile = rim_profile(reference.image, reference.truth.board_corners_distorted)
    truth = frame.truth.board_corners_distorted
    assert rim_offset(profile, frame.image, truth) == 0.0
    # The score track's ring starts 0.03 board widths inside the edge.
    ring = moved_outline(truth, -0.03)
    assert rim_offset(profile, frame.image, ring) == pytest.approx(0.03 / 0.94, abs=0.004)
    assert outline_error(moved_outline(ring, 0.03 / 0.94), truth) < 0.002


@pytest.mark.parametrize(
    "seed, family, resolution",
    [(2000, "classic", (1280, 720)), (2089, "split", (1920, 1080))],
)
def test_a_registered_look_finds_a_board_whose_rim_matches_the_table(seed, family, resolution):
    # Dark outer band on a dark table: the finder's first outline is the track's ring
    # (4.7% off); the look registered on another frame moves it out (without a look,
    # the grid's place does: tests/test_grid_fit.py).
    frame, reference = _board_and_its_reference(seed, family, resolution)
    look = BoardLook.capture(
        reference.image, manual_board(reference.truth.board_corners_distorted), LAYOUT
    )
    location = find_board(frame.image, LAYOUT, look=look)
    assert outline_error(location.corners, frame.truth.board_corners_distorted) < 0.01
    assert location.orientation_source == "signature"


def test_orientation_with_a_registered_look_on_simulator_frames():
    import dataclasses

    from vision.synth import scene as synth

    # The user registers the board once (true corners = south confirmed) ...
    setup = synth.random_scene(12)
    first = synth.render_frame(setup, 12)
    look = BoardLook.capture(first.image, manual_board(first.truth.board_corners_distorted), LAYOUT)
    assert look.distinct()
    # ... then the camera moves anywhere (any yaw) and the tiles change.
    frames = [
        synth.render_frame(dataclasses.replace(synth.random_scene(seed), style=setup.style), seed)
        for seed in range(301, 309)
    ]
    assert _oriented_right(frames, look, "signature") >= 6


def _oriented_right(frames, look, source):  # type: ignore[no-untyped-def]
    """How many frames, among those whose corners are found, get south right with
    ``look`` (any wrong one fails the test)."""
    checked = 0
    for frame in frames:
        truth = frame.truth.board_corners_distorted
        try:
            location = find_board(frame.image, LAYOUT, look=look)
        except BoardNotFound:
            continue
        if outline_error(location.corners, truth) >= 0.01:
            continue  # a corner miss is counted by the other tests, not here
        checked += 1
        assert location.orientation_source == source
        assert _rel_error(location.corners, truth) < 0.01
    return checked


def test_orientation_from_the_seats_colours_on_simulator_frames():
    from engine import Seats
    from vision.synth import scene as synth

    # No registration at all: the simulator's players sit S=red, W=green, N=yellow,
    # E=purple, and each edge's bonus frames have its player's colour.
    look = BoardLook.from_seats(Seats.parse("S=red,W=green,N=yellow,E=purple").by_edge)
    assert look is not None and look.distinct()
    frames = [
        synth.render_frame(synth.random_scene(seed, hands=seed % 2 == 0), seed)
        for seed in range(311, 321)
    ]
    assert _oriented_right(frames, look, "seats") >= 7


def test_a_look_from_seats_needs_two_known_colours_and_round_trips():
    from engine import Edge

    assert BoardLook.from_seats({Edge.SOUTH: "red", Edge.NORTH: "tartan"}) is None
    look = BoardLook.from_seats({Edge.SOUTH: "red", Edge.NORTH: "#20c0f0"})
    assert look is not None and look.source == "seats"
    again = BoardLook.from_dict(look.to_dict())
    assert again.source == "seats"
    assert np.isnan(again.edge_lab[1]).all()  # nobody sits west
    with pytest.raises(ValueError, match="source"):
        BoardLook.from_dict({**look.to_dict(), "source": "guess"})


def test_board_look_sidecar(tmp_path):
    scene = render_board_scene(np.random.default_rng(100))
    look = BoardLook.capture(scene.image, manual_board(scene.corners), LAYOUT)
    cal_path = tmp_path / "calibration.json"
    assert load_board_look(cal_path) is None  # no look yet: nearest-edge default
    written = save_board_look(look, cal_path)
    assert written == board_look_path(cal_path) == tmp_path / "calibration.look.json"
    loaded = load_board_look(cal_path)
    assert loaded.edge_lab == pytest.approx(look.edge_lab, abs=0.01)
    assert loaded.rim == pytest.approx(look.rim, abs=0.06)  # the rim profile, to 0.1
    broken = dict(look.to_dict(), rim=[1.0, 2.0])
    written.write_text(json.dumps({"board_look": broken}))
    with pytest.raises(CalibrationError, match="rim"):
        load_board_look(cal_path)
    written.write_text("{}")
    with pytest.raises(CalibrationError, match=r"calibration\.look\.json"):
        load_board_look(cal_path)


def test_not_in_view_and_too_oblique_messages():
    from calibration.synthetic import (
        board_picture,
        plane_homography,
        pose,
        render_plane,
        table_texture,
    )

    # A simulator frame's table without the board (its top-left corner, enlarged).
    frame = _sim_frame(11)
    corners = frame.truth.board_corners_distorted
    x1, y1 = int(corners[:, 0].min()) - 5, int(corners[:, 1].min()) - 5
    assert x1 > 100 and y1 > 60
    table = cv2.resize(frame.image[:y1, :x1], (1280, 720))
    with pytest.raises(BoardNotFound, match="not in view"):
        find_board(table, LAYOUT)
    # The board seen 72 degrees off vertical.
    rng = np.random.default_rng(1)
    size = (1280, 720)
    k = camera_matrix(*size, 1280.0)
    rotation = pose(72, 90, 20)
    t = rotation @ np.array([-0.5, -0.5, 0]) + np.array([0, 0, 1280.0 / (720 * 0.6)])
    image = render_plane(
        board_picture(LAYOUT, 512, rng),
        np.diag([512.0, 512.0, 1.0]),
        plane_homography(k, rotation, t),
        size,
        background=table_texture(rng, size),
    )
    with pytest.raises(BoardNotFound, match="too oblique"):
        find_board(image, LAYOUT)


def test_tracker_re_registers_after_a_simulated_bump():
    import dataclasses

    from vision.synth import scene as synth

    scene = synth.random_scene(12)
    first = synth.render_frame(scene, 12)
    tracker = BoardTracker(LAYOUT)
    registered = tracker.update(first.image)
    assert tracker.state == "tracking"
    assert outline_error(registered.corners, first.truth.board_corners_distorted) < 0.01
    # The camera is knocked: the board moves about 13 px, 2.5% of its width (a slide of
    # under 1%, like camera shake, is within reading accuracy and is kept on purpose).
    bumped = dataclasses.replace(scene, camera=scene.camera.shaken(np.random.default_rng(1), 24))
    frame = synth.render_frame(bumped, 13)
    truth = frame.truth.board_corners_distorted
    assert corner_error(truth, first.truth.board_corners_distorted) > 4  # it really moved
    # A knock lasts (unlike a passing hand): within a moment it is registered anew.
    for _ in range(PATIENCE_FRAMES + 1):
        located = tracker.update(frame.image)
        if located is not None:
            break
    assert tracker.state == "tracking" and tracker.reregistrations == 1
    # Re-registered, and south stayed the registered south.
    turns = min(
        range(4),
        key=lambda k: corner_error(
            np.roll(registered.corners, k, 0), first.truth.board_corners_distorted
        ),
    )
    assert _rel_error(np.roll(located.corners, turns, 0), truth) < 0.01


def test_board_slide_is_measured_on_the_border_not_on_new_tiles():
    from calibration.board_tracker import _thumb_shift, board_thumbnail

    scene = render_board_scene(np.random.default_rng(10))
    location = find_board(scene.image, LAYOUT)
    reference = board_thumbnail(scene.image, location).astype(np.float32)

    def with_new_tiles(thumb: np.ndarray) -> np.ndarray:
        thumb = thumb.copy()
        for y, x in ((46, 40), (46, 66)):  # two light cards with a dark stroke
            thumb[y : y + 22, x : x + 22] = 235.0
            thumb[y + 5 : y + 17, x + 9 : x + 13] = 30.0
        return thumb

    # Measured over the whole board, these tiles alone made the board seem to slide
    # half a pixel; the border band has not moved at all.
    assert _thumb_shift(reference, with_new_tiles(reference)) < 0.1
    slid = cv2.warpAffine(reference, np.float32([[1, 0, 2.0], [0, 1, -1.0]]), (128, 128))
    assert abs(_thumb_shift(reference, with_new_tiles(slid)) - np.hypot(2.0, 1.0)) < 0.4


def test_moved_board_under_hands_is_not_tracked_with_stale_corners():
    import dataclasses

    from vision.synth import scene as synth

    scene = synth.random_scene(14)
    tracker = BoardTracker(LAYOUT)
    old = tracker.update(synth.render_frame(scene, 14).image)
    assert old is not None
    for seed in (15, 16, 17):
        # A different camera pose (the board moved a lot) with a hand over the board.
        moved = dataclasses.replace(
            synth.random_scene(seed, hands=True),
            style=scene.style,
            position=scene.position,
            stacks=scene.stacks,
        )
        frame = synth.render_frame(moved, seed)
        located = tracker.update(frame.image)
        truth = frame.truth.board_corners_distorted
        if located is None:
            assert tracker.state.startswith(("lost", "checking")) and tracker.location is None
        else:
            # Whatever it returns is the new place, never the old corners.
            assert tracker.state == "tracking"
            assert corner_error(located.corners, old.corners) > 10
            assert outline_error(located.corners, truth) < 0.05


# --- command line ------------------------------------------------------------------------


def test_cli_board_auto_manual_and_errors(tmp_path, capsys):
    scene = render_board_scene(np.random.default_rng(0))
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), scene.image)
    out = tmp_path / "cal.json"
    debug = tmp_path / "debug.png"
    assert main(["calibrate", "board", str(image), "--out", str(out), "--debug", str(debug)]) == 0
    printed = capsys.readouterr().out
    assert "board found automatically" in printed and "cal.look.json" in printed
    assert load_board_look(out).distinct()
    corners = np.array(load_calibration(out).board_corners)
    assert outline_error(corners, scene.corners) < 0.01
    assert cv2.imread(str(debug)).shape == scene.image.shape

    corner_text = "10,10 600,20 590,600 15,590"
    assert (
        main(["calibrate", "board", str(image), "--corners", corner_text, "--out", str(out)]) == 0
    )
    assert load_calibration(out).board_corners[1] == (600.0, 20.0)
    assert "move the camera closer" not in capsys.readouterr().out
    small = "10,10 200,10 200,200 10,200"  # a board 190 px wide: too small to read suits
    assert main(["calibrate", "board", str(image), "--corners", small, "--out", str(out)]) == 0
    assert "note: the board is only 190 px wide" in capsys.readouterr().out

    assert main(["calibrate", "board", str(tmp_path / "no.png"), "--out", str(out)]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "x.png").write_text("hello")
    assert main(["calibrate", "board", str(tmp_path / "x.png"), "--out", str(out)]) == 2
    assert "not an image" in capsys.readouterr().err
    assert main(["calibrate", "board", str(image), "--markers", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "corner markers missing: NW, NE, SE, SW" in err and err.count("\n") == 1
    dark = tmp_path / "dark.png"
    cv2.imwrite(str(dark), np.full((720, 1280, 3), 5, np.uint8))
    assert main(["calibrate", "board", str(dark), "--out", str(out)]) == 2
    assert "board not found: too dark" in capsys.readouterr().err


def _registered_by_hand(tmp_path):
    """A board whose outer band has the table's colour, registered by hand on a set-up
    photo (``setup.png`` -> ``cal.json``), and a game photo from another camera
    position (``game.png``); returns the game frame."""
    game, setup = _board_and_its_reference(2000, "classic", (1280, 720))
    cv2.imwrite(str(tmp_path / "setup.png"), setup.image)
    cv2.imwrite(str(tmp_path / "game.png"), game.image)
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in setup.truth.board_corners_distorted)
    argv = ["calibrate", "board", str(tmp_path / "setup.png"), "--corners", corners]
    assert main([*argv, "--out", str(tmp_path / "cal.json")]) == 0
    return game


def test_cli_board_registered_by_hand_then_found_with_its_look(tmp_path, capsys):
    # Registered once by hand; later photos, from another camera position, are found
    # with that look (from nothing, the finder stops at the score track's ring).
    game = _registered_by_hand(tmp_path)
    registered = tmp_path / "cal.json"
    assert load_board_look(registered).rim is not None
    out = tmp_path / "again.json"
    argv = ["calibrate", "board", str(tmp_path / "game.png"), "--calibration", str(registered)]
    assert main([*argv, "--out", str(out)]) == 0
    assert "south and the board's rim from the look" in capsys.readouterr().out
    found = np.array(load_calibration(out).board_corners)
    truth = game.truth.board_corners_distorted
    width = np.linalg.norm(truth[1] - truth[0])
    assert np.max(np.linalg.norm(found - truth, axis=1)) < 0.01 * width  # and south is south


def test_recognize_notices_the_board_left_its_calibrated_corners(tmp_path, capsys):
    # A calibration made at set-up, then a photo from a moved camera: reading through
    # the old corners would print nonsense; the look says so and the board is found.
    game = _registered_by_hand(tmp_path)
    cal = tmp_path / "cal.json"
    capsys.readouterr()

    assert main(["recognize", str(tmp_path / "setup.png"), "--calibration", str(cal)]) == 0
    same = capsys.readouterr()
    assert "the board is not where" not in same.err
    assert json.loads(same.out)["board"]["corners"][1] == [1018.3, 197.8]  # the file's

    assert main(["recognize", str(tmp_path / "game.png"), "--calibration", str(cal)]) == 0
    moved = capsys.readouterr()
    assert "the board is not where this calibration puts it" in moved.err
    assert moved.err.count("\n") == 2 and "note: no enrolled tile set" in moved.err
    found = np.array(json.loads(moved.out)["board"]["corners"])
    truth = game.truth.board_corners_distorted
    assert np.max(np.linalg.norm(found - truth, axis=1)) < 0.01 * np.linalg.norm(
        truth[1] - truth[0]
    )


def test_tracker_does_not_start_from_a_registration_the_board_has_left():
    # `serve --calibration` starts from the file's corners; if the camera moved since,
    # the saved look shows it and the board is found anew instead.
    game, setup = _board_and_its_reference(2000, "classic", (1280, 720))
    registered = manual_board(setup.truth.board_corners_distorted)
    look = BoardLook.capture(setup.image, registered, LAYOUT)

    tracker = BoardTracker(LAYOUT, look=look, initial=registered)
    location = tracker.update(game.image)
    truth = game.truth.board_corners_distorted
    assert location is not None and tracker.state == "tracking"
    assert np.max(np.linalg.norm(location.corners - truth, axis=1)) < 0.01 * np.linalg.norm(
        truth[1] - truth[0]
    )

    same_place = BoardTracker(LAYOUT, look=look, initial=registered)
    assert same_place.update(setup.image) is not None
    assert same_place.location.corners == pytest.approx(registered.corners)


def test_cli_lens_and_targets(tmp_path, capsys):
    rng = np.random.default_rng(5)
    size = (800, 600)
    k = camera_matrix(*size, 700.0)
    paths = []
    for i in range(6):
        path = tmp_path / f"v{i}.png"
        cv2.imwrite(str(path), charuco_view(rng, k, np.array([-0.1, 0, 0, 0, 0]), size))
        paths.append(str(path))
    out = tmp_path / "camera.json"
    assert main(["calibrate", "lens", *paths, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "good" in printed and "rms" in printed
    assert load_calibration(out).camera_matrix[0][0] == pytest.approx(700, rel=0.03)
    # Face-on photos cannot vouch for a lens model: nothing is written without
    # --keep-anyway, and the file already there is kept.
    flat = []
    for i in range(5):
        path = tmp_path / f"flat{i}.png"
        cv2.imwrite(str(path), charuco_view(rng, k, None, size, tilt_range=(0, 4)))
        flat.append(str(path))
    before = out.read_bytes()
    assert main(["calibrate", "lens", *flat, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert "nothing written" in captured.err and captured.err.count("\n") == 1
    assert "flat0.png" in captured.out  # the photos' report, to see which to retake
    assert out.read_bytes() == before
    assert main(["calibrate", "lens", *flat, "--out", str(out), "--keep-anyway"]) == 0
    assert "wrote" in capsys.readouterr().out and out.read_bytes() != before
    assert main(["calibrate", "target", "--out", str(tmp_path / "t.pdf")]) == 0
    assert main(["calibrate", "markers", "--out", str(tmp_path / "m.png")]) == 0
    assert main(["calibrate", "target", "--out", str(tmp_path / "t.gif")]) == 2
