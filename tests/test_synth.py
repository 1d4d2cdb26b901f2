"""The simulated table: determinism, geometry of the ground truth, tiles, hands, CLI."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import cv2
import numpy as np
import pytest

from engine import Layout, Position
from setupcam.cli import main
from vision.synth import (
    CLEAN,
    COVERED_FRACTION,
    FAMILIES,
    HELDOUT_FAMILIES,
    TRAINING_FAMILIES,
    marker_style,
    random_camera,
    random_hand,
    random_scene,
    render_frame,
)
from vision.synth.scene import Scene, square_coverage
from vision.synth.styles import sample_style

SMALL = (640, 360)


def test_same_seed_same_image() -> None:
    first = render_frame(random_scene(np.random.default_rng(11), hands=True, resolution=SMALL), 5)
    again = render_frame(random_scene(np.random.default_rng(11), hands=True, resolution=SMALL), 5)
    other = render_frame(random_scene(np.random.default_rng(12), hands=True, resolution=SMALL), 5)
    assert np.array_equal(first.image, again.image)
    assert first.truth.to_json() == again.truth.to_json()
    assert not np.array_equal(first.image, other.image)


def _bilinear(image: np.ndarray, x: float, y: float) -> float:
    patch = cv2.getRectSubPix(image, (1, 1), (float(x), float(y)))
    return float(patch.reshape(-1)[0])


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_projected_square_outlines_land_on_rendered_squares(seed: int) -> None:
    """A flat marker board (black, white squares) drawn with the real pipeline, lens
    distortion included: 1 px inside every projected square edge is white, 1 px
    outside is black, so the truth is within 1 px of what is drawn."""
    rng = np.random.default_rng(seed)
    camera = random_camera(rng, SMALL)
    if not np.any(camera.dist_coeffs):
        camera = replace(camera, dist_coeffs=np.array([-0.18, 0.05, 0.0005, -0.0005, 0.0]))
    layout = Layout.load()
    scene = Scene(
        position=Position.empty(layout),
        stacks={},
        camera=camera,
        style=marker_style(),
        resolution=SMALL,
        photo=CLEAN,
    )
    frame = render_frame(scene, 0)
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    # The truth's own square corners agree with OpenCV's projection of the board points.
    for square in layout.squares:
        rect = layout.rects[square]
        world = camera.board_to_world(np.array(rect.corners))
        expected, _ = cv2.projectPoints(
            world, camera.rvec, camera.tvec, camera.camera_matrix, camera.dist_coeffs
        )
        assert np.allclose(frame.truth.square_corners[square], expected.reshape(-1, 2), atol=1e-6)
        # Sample along each edge (away from the corners), 1 px either side of the outline.
        for (ax, ay), (bx, by) in zip(
            rect.corners, rect.corners[1:] + rect.corners[:1], strict=True
        ):
            for t in np.linspace(0.15, 0.85, 6):
                point = np.array([[ax + t * (bx - ax), ay + t * (by - ay)]])
                centre = np.array([rect.center])
                on, toward = camera.project_board(np.vstack([point, centre]))
                inward = (toward - on) / np.linalg.norm(toward - on)
                # The true outward normal is close to the direction away from the centre.
                inside = _bilinear(gray, *(on + inward))
                outside = _bilinear(gray, *(on - inward))
                assert inside > 127, (square, t, inside)
                assert outside < 128, (square, t, outside)


def test_board_corners_truth_matches_projection() -> None:
    scene = random_scene(np.random.default_rng(4), resolution=SMALL)
    truth = render_frame(scene, 0).truth
    camera = scene.camera
    nw_ne_se_sw = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    ideal, _ = cv2.projectPoints(
        camera.board_to_world(nw_ne_se_sw), camera.rvec, camera.tvec, camera.camera_matrix, None
    )
    assert np.allclose(truth.board_corners, ideal.reshape(-1, 2), atol=1e-6)
    homography = camera.homography()
    mapped = cv2.perspectiveTransform(nw_ne_se_sw.reshape(-1, 1, 2), homography).reshape(-1, 2)
    assert np.allclose(mapped, truth.board_corners, atol=1e-6)
    data = truth.to_json()
    for key in ("image_size", "camera_matrix", "dist_coeffs", "board_corners", "position"):
        assert key in data
    assert data["image_size"] == list(SMALL)
    assert len(data["dist_coeffs"]) == 5
    assert set(data["position"]["squares"]) == set(Layout.load().squares)
    json.dumps(data)


def test_every_tile_at_most_once() -> None:
    for seed in range(40):
        scene = random_scene(np.random.default_rng(seed), resolution=SMALL)
        counts = Counter(scene.tiles())
        assert max(counts.values()) == 1
        assert all(scene.position[s] is not None for s in scene.stacks)


def test_common_squares_usually_filled() -> None:
    filled = [
        random_scene(np.random.default_rng(seed), resolution=SMALL).position[square] is not None
        for seed in range(30)
        for square in ("b2", "b3", "c2", "c3")
    ]
    assert sum(filled) / len(filled) > 0.8


def test_hand_mask_matches_covered_list() -> None:
    seen_covered = 0
    for seed in range(6):
        rng = np.random.default_rng(100 + seed)
        scene = random_scene(rng, hands=True, resolution=SMALL)
        # Aim the hand at a square so that something is covered.
        target = scene.position.layout.rects["b2"].center
        scene = replace(scene, hand=random_hand(rng, target=target))
        frame = render_frame(scene, seed)
        truth = frame.truth
        assert frame.hand_mask is not None and frame.hand_mask.any()
        assert truth.covered == {s for s, v in truth.coverage.items() if v >= COVERED_FRACTION}
        recomputed = square_coverage(frame.hand_mask, truth.square_corners)
        for square, value in recomputed.items():
            if value >= COVERED_FRACTION + 0.05:
                assert square in truth.covered, (seed, square, value)
            if value <= COVERED_FRACTION - 0.05:
                assert square not in truth.covered, (seed, square, value)
        seen_covered += len(truth.covered)
    assert seen_covered > 0


def test_no_hand_covers_nothing() -> None:
    frame = render_frame(random_scene(np.random.default_rng(5), resolution=SMALL), 0)
    assert frame.hand_mask is None
    assert frame.truth.covered == frozenset()


def test_families_and_held_out() -> None:
    assert len(FAMILIES) >= 5
    assert HELDOUT_FAMILIES
    assert set(HELDOUT_FAMILIES).isdisjoint(TRAINING_FAMILIES)
    assert set(TRAINING_FAMILIES) | set(HELDOUT_FAMILIES) == set(FAMILIES)
    drawn = {
        random_scene(np.random.default_rng(s), resolution=SMALL).style.family for s in range(40)
    }
    assert drawn <= set(TRAINING_FAMILIES)
    with pytest.raises(ValueError, match="families"):
        random_scene(0, family="nope")


@pytest.mark.parametrize("family", FAMILIES)
def test_every_style_gives_each_suit_its_own_colour(family: str) -> None:
    """The rulebook's five suits are five colours, so no style may print two
    suits in (nearly) one colour: some channel must differ by 10 or more."""
    for seed in range(300):
        suits = np.array(sample_style(family, np.random.default_rng(seed)).suit_bgr, int)
        gaps = [np.abs(suits[i] - suits[j]).max() for i in range(5) for j in range(i + 1, 5)]
        assert min(gaps) >= 10, (family, seed, suits.tolist())


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_renders(family: str) -> None:
    frame = render_frame(random_scene(np.random.default_rng(7), family=family, resolution=SMALL), 0)
    assert frame.image.shape == (SMALL[1], SMALL[0], 3)
    assert frame.image.dtype == np.uint8
    assert frame.truth.family == family


def test_full_hd_resolution() -> None:
    frame = render_frame(random_scene(np.random.default_rng(8), resolution=(1920, 1080)), 0)
    assert frame.image.shape == (1080, 1920, 3)
    corners = frame.truth.board_corners_distorted
    assert (corners >= 0).all() and (corners[:, 0] < 1920).all() and (corners[:, 1] < 1080).all()


def test_camera_ranges() -> None:
    for seed in range(30):
        camera = random_camera(np.random.default_rng(seed), (1280, 720))
        assert 0 <= camera.tilt_deg <= 35
        assert 0.5 <= camera.height_m <= 0.9
        corners = camera.project_board(np.array([[0, 0], [1, 0], [1, 1], [0, 1]]), distorted=False)
        width = np.linalg.norm(corners[1] - corners[0])
        assert 0.2 * 720 < width < 0.95 * 720


def test_cli_writes_scenes(tmp_path, capsys) -> None:
    out = tmp_path / "synth"
    code = main(
        [
            "synth",
            "--out",
            str(out),
            "--scenes",
            "2",
            "--seed",
            "3",
            "--hands",
            "--resolution",
            "640x360",
        ]
    )
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "scene_0000.jpg",
        "scene_0000.json",
        "scene_0001.jpg",
        "scene_0001.json",
    ]
    truth = json.loads((out / "scene_0001.json").read_text(encoding="utf-8"))
    assert truth["image_size"] == [640, 360]
    assert len(truth["board_corners"]) == 4
    assert isinstance(truth["covered"], list)
    image = cv2.imread(str(out / "scene_0000.jpg"))
    assert image.shape == (360, 640, 3)


def test_cli_unknown_style_is_a_one_line_error(tmp_path, capsys) -> None:
    code = main(["synth", "--out", str(tmp_path), "--scenes", "1", "--style", "rococo"])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert "classic" in err and "rococo" in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--game", "--scenes", "2"], "--scenes is for still scenes"),
        (["--video", "x.mp4"], "--video goes with --game"),
        (["--max-turns", "3"], "--max-turns goes with --game"),
        (["--game", "--video", "not-there/x.mp4"], "no such folder not-there"),
    ],
)
def test_cli_options_of_the_other_mode_are_refused(tmp_path, capsys, extra, message) -> None:
    out = tmp_path / "out"
    assert main(["synth", "--out", str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()  # nothing left behind


@pytest.mark.parametrize("corner", [(40, 50), (700, 640), (1380, 1390)])
def test_a_shadow_darkens_only_its_window_as_the_whole_table_would(corner) -> None:
    from vision.synth.table_art import _soft_shadow

    rng = np.random.default_rng(3)
    table = rng.integers(0, 256, (1400, 1400, 3), dtype=np.uint8)
    points = (np.array(corner) + rng.uniform(-60, 60, (5, 2))) * 16
    points = points.astype(np.int32)
    # The shadow as drawn before it was windowed: mask, blur and darken the whole table.
    mask = np.zeros(table.shape[:2], np.uint8)
    cv2.fillPoly(mask, [points + np.array((3, 4), np.int32) * 16], 255, cv2.LINE_AA, 4)
    mask = cv2.GaussianBlur(mask, (0, 0), 4)
    expected = (table * (1 - 0.45 * mask[..., None].astype(np.float32) / 255)).astype(np.uint8)
    shadowed = table.copy()
    _soft_shadow(shadowed, points, (3, 4), 4)
    assert np.array_equal(shadowed, expected)
    assert (shadowed != table).any()
