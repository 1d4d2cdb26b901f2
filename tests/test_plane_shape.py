"""Only the picture of a square can be the board, and curved (lens) edges are fitted."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import outline_error

from calibration.board_finder import find_board
from calibration.board_location import BoardNotFound
from calibration.plane_shape import MAX_SQUARENESS, squareness
from engine.layout import Layout

SEEDS = range(7100, 7120)


def _found_error(image: np.ndarray, truth: np.ndarray) -> float:
    """How far (fraction of the board's width) the found corners are from the truth,
    any rotation; ``inf`` when the board is not found."""
    try:
        found = find_board(image, Layout.load()).corners
    except BoardNotFound:
        return float("inf")
    return outline_error(found, truth)


def _scene(seed: int):  # type: ignore[no-untyped-def]
    from vision.synth import scene as synth

    return synth.random_scene(seed, resolution=(1280, 720) if seed % 2 else (1920, 1080))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_board_seen_by_any_camera_is_square(seed: int) -> None:
    camera = _scene(seed).camera
    corners = camera.project_board(np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float))
    assert squareness(corners, camera.image_size) < MAX_SQUARENESS


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("height", [0.7, 0.82])
def test_three_board_edges_and_a_row_of_squares_are_not_square(seed: int, height: float) -> None:
    # The outline the finder used to take for the board when an arm hid one side:
    # three board edges and the line along a row of squares.
    camera = _scene(seed).camera
    corners = camera.project_board(np.array([[0, 0], [1, 0], [1, height], [0, height]], float))
    assert squareness(corners, camera.image_size) > MAX_SQUARENESS


def test_a_rectangle_reaching_past_the_board_is_mostly_not_square() -> None:
    # With the focal length unknown, some tilted views of a 1.25 rectangle can pass
    # for a square; most cannot.
    rejected = 0
    for seed in SEEDS:
        camera = _scene(seed).camera
        corners = camera.project_board(np.array([[0, 0], [1, 0], [1, 1.25], [0, 1.25]], float))
        rejected += squareness(corners, camera.image_size) > MAX_SQUARENESS
    assert rejected >= 0.8 * len(SEEDS)


def test_squareness_does_not_depend_on_where_the_corners_start() -> None:
    quad = np.array([[412.0, 103.0], [951.0, 150.0], [903.0, 640.0], [371.0, 598.0]])
    values = [squareness(np.roll(quad, k, axis=0), (1280, 720)) for k in range(4)]
    assert max(values) - min(values) < 1e-9


@pytest.mark.parametrize("seed", [7201, 7202, 7203])
def test_corners_are_found_on_a_strongly_curved_lens(seed: int) -> None:
    # A wide-angle webcam bends the board's edges by more than half a percent; a
    # straight-line fit then puts every corner outside the board.
    from vision.synth import scene as synth
    from vision.synth.photo import CLEAN

    scene = synth.random_scene(seed, resolution=(1920, 1080))
    lens = np.array([-0.25, 0.01, 0.0, 0.0, 0.0])
    scene = dataclasses.replace(
        scene, photo=CLEAN, camera=dataclasses.replace(scene.camera, dist_coeffs=lens)
    )
    frame = synth.render_frame(scene, seed)
    assert _found_error(frame.image, frame.truth.board_corners_distorted) < 0.006


def _found_after(seeds: range, draw) -> int:  # type: ignore[no-untyped-def]
    """How many simulator frames (no hands) still have their board found within 1%
    after ``draw(image, truth_corners, rng)`` has put something on them."""
    from vision.synth import scene as synth

    right = 0
    for seed in seeds:
        frame = synth.render_frame(synth.random_scene(seed, hands=False), seed)
        image = frame.image.copy()
        truth = frame.truth.board_corners_distorted
        draw(image, truth, np.random.default_rng(seed))
        right += _found_error(image, truth) < 0.01
    return right


def test_a_box_lying_along_one_edge_is_not_taken_for_the_board() -> None:
    # A dark box along the north edge, 5% to 25% of the board outside it: its near
    # edge is a sharp straight line parallel to the board's, right where the search
    # for the board's outer rim looks.
    import cv2

    from calibration.side_agreement import move_side

    def box(image: np.ndarray, truth: np.ndarray, rng: np.random.Generator) -> None:
        near, far = move_side(truth, 0, -0.05), move_side(truth, 0, -0.25)
        overhang = (truth[1] - truth[0]) * 0.15
        corners = [near[0] - overhang, near[1] + overhang, far[1] + overhang, far[0] - overhang]
        cv2.fillPoly(image, [np.array(corners).astype(np.int32)], (30, 30, 30), cv2.LINE_AA)

    assert _found_after(range(7300, 7312), box) >= 11


def test_a_board_whose_squares_are_hidden_is_found_by_its_edges() -> None:
    # Forty coloured cards over the grid hide the squares' outlines among their own
    # edges (as a hand does), while the board's four sides show in full.
    import cv2

    def cards(image: np.ndarray, truth: np.ndarray, rng: np.random.Generator) -> None:
        unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
        to_image = cv2.getPerspectiveTransform(unit, truth.astype(np.float32))
        for _ in range(40):
            centre, half = rng.uniform(0.25, 0.75, 2), rng.uniform(0.03, 0.08, 2)
            card = centre + half * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
            pixels = cv2.perspectiveTransform(card.reshape(1, -1, 2), to_image).reshape(-1, 2)
            colour = tuple(int(v) for v in rng.integers(0, 255, 3))
            cv2.fillPoly(image, [pixels.astype(np.int32)], colour)

    assert _found_after(range(7400, 7412), cards) >= 11
