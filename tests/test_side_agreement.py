"""A board outline side that snapped to the wrong edge is put back by the other three."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.side_agreement import agree_sides, move_side, outer_rim


def _frame(seed: int):  # type: ignore[no-untyped-def]
    from vision.synth import scene as synth

    return synth.render_frame(synth.random_scene(seed, hands=False), seed)


def _error(quad: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner error as a fraction of the board's width."""
    width = float(np.linalg.norm(truth[1] - truth[0]))
    return float(np.linalg.norm(quad - truth, axis=1).max()) / width


@pytest.mark.parametrize("seed", [7001, 7002, 7003])
@pytest.mark.parametrize(("side", "inward"), [(0, -0.08), (1, 0.06), (3, -0.15)])
def test_a_side_off_the_board_is_moved_back(seed: int, side: int, inward: float) -> None:
    frame = _frame(seed)
    truth = frame.truth.board_corners_distorted
    wrong = move_side(truth, side, inward)
    assert _error(wrong, truth) > 0.05
    assert _error(agree_sides(frame.image, wrong), truth) < 0.012


@pytest.mark.parametrize("seed", [7001, 7002, 7003, 7004])
def test_a_right_outline_is_left_alone(seed: int) -> None:
    frame = _frame(seed)
    truth = frame.truth.board_corners_distorted
    assert _error(agree_sides(frame.image, truth), truth) < 0.005


def _drawn_board(rim: bool) -> tuple[np.ndarray, np.ndarray]:
    """A board drawn head-on on a plain table: (image, its true corners). With ``rim``
    it has a thin dark rim outside a light score track, as some boards do."""
    import cv2

    image = np.full((700, 900, 3), (95, 120, 135), np.uint8)
    corners = np.array([[250, 150], [650, 150], [650, 550], [250, 550]], float)

    def square(inset: float, colour: tuple[int, int, int]) -> None:
        a = (corners[0] + inset * 400).astype(int)
        b = (corners[2] - inset * 400).astype(int)
        cv2.rectangle(image, tuple(a), tuple(b), colour, -1)

    square(0.0, (30, 30, 35) if rim else (225, 230, 235))
    square(0.03 if rim else 0.0, (225, 230, 235))  # the score track
    square(0.13, (70, 60, 50))  # the panel inside it
    return image, corners


def test_a_dark_rim_outside_the_outline_is_the_board_edge() -> None:
    image, truth = _drawn_board(rim=True)
    on_the_track = move_side(truth, 0, 0.03)
    for side in (1, 2, 3):
        on_the_track = move_side(on_the_track, side, 0.03 / 1.03)
    assert _error(on_the_track, truth) > 0.025
    assert _error(outer_rim(image, on_the_track), truth) < 0.006


def test_no_rim_no_growth() -> None:
    image, truth = _drawn_board(rim=False)
    assert _error(outer_rim(image, truth), truth) < 0.001
    for seed in (7001, 7002, 7003, 7004):
        frame = _frame(seed)
        corners = frame.truth.board_corners_distorted
        assert _error(outer_rim(frame.image, corners), corners) < 0.005


@pytest.mark.parametrize("seed", [7001, 7003])
def test_a_side_wrong_at_one_end_is_turned_back(seed: int) -> None:
    frame = _frame(seed)
    truth = frame.truth.board_corners_distorted
    wrong = move_side(truth, 1, -0.07, 0.0)  # the east side, off at its north end only
    assert _error(wrong, truth) > 0.05
    assert _error(agree_sides(frame.image, wrong), truth) < 0.012


@pytest.mark.parametrize("seed", [7001, 7002])
def test_a_side_partly_under_an_arm_is_still_put_right(seed: int) -> None:
    import cv2

    frame = _frame(seed)
    truth = frame.truth.board_corners_distorted
    image = frame.image.copy()
    # A flat "sleeve" over the first half of the north side, from the table to the grid.
    h = cv2.getPerspectiveTransform(
        np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]), truth.astype(np.float32)
    )
    arm = np.float32([[[-0.05, -0.2]], [[0.5, -0.2]], [[0.5, 0.3]], [[-0.05, 0.3]]])
    cv2.fillConvexPoly(image, cv2.perspectiveTransform(arm, h).astype(np.int32), (60, 90, 160))
    wrong = move_side(truth, 0, -0.06)
    assert _error(agree_sides(image, wrong), truth) < 0.015
