"""A board outline side that snapped to the wrong edge is put back by the other three."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.side_agreement import agree_sides, move_side


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
