"""The board's corners through a bending lens (calibration/lens_bend.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.lens_bend import _distort, _undistort, fitted_bend, straightened_corners

SIZE = (1920, 1080)
CENTRE = np.array(SIZE, np.float64) / 2
RADIUS = float(np.linalg.norm(CENTRE))


def _sides(corners: np.ndarray, per_side: int = 40) -> list[np.ndarray]:
    t = np.linspace(0.06, 0.94, per_side)[:, None]
    return [corners[i] + (corners[(i + 1) % 4] - corners[i]) * t for i in range(4)]


SQUARE = np.array([[560.0, 180.0], [1480.0, 260.0], [1400.0, 980.0], [500.0, 900.0]])


def test_division_model_round_trips():
    points = np.random.default_rng(0).uniform([0, 0], SIZE, (50, 2))
    for bend in (-0.3, -0.12, 0.0, 0.1):
        back = _undistort(_distort(points, CENTRE, RADIUS, bend), CENTRE, RADIUS, bend)
        assert np.abs(back - points).max() < 1e-6


def test_straight_sides_need_no_bend():
    sides = _sides(SQUARE)
    assert fitted_bend(sides, SIZE) == pytest.approx(0.0, abs=0.01)
    # Nothing for one lens bend to do: the sides' own fits place the corners.
    assert straightened_corners(sides, SIZE) is None


def test_crookedness_a_lens_does_not_explain_is_left_alone():
    # Straight sides, one with a step in it (half on a tile's edge): a bend that
    # bows all four sides cannot straighten that.
    sides = _sides(SQUARE)
    sides[1] = sides[1] + np.where(np.arange(len(sides[1]))[:, None] < 20, 0.0, 6.0)
    assert straightened_corners(sides, SIZE) is None


@pytest.mark.parametrize("bend", [-0.25, -0.12, 0.08])
def test_bent_sides_give_the_bent_corners(bend):
    sides = [_distort(s, CENTRE, RADIUS, bend) for s in _sides(SQUARE)]
    truth = _distort(SQUARE, CENTRE, RADIUS, bend)
    assert fitted_bend(sides, SIZE) == pytest.approx(bend, abs=0.01)
    assert np.abs(straightened_corners(sides, SIZE) - truth).max() < 0.5


def test_a_real_lens_model_is_close_enough():
    # OpenCV's radial model (k1, k2) is not the division model; one coefficient
    # still puts the corners within half a pixel on a 900-px board.
    f = 1160.0
    matrix = np.array([[f, 0, SIZE[0] / 2], [0, f, SIZE[1] / 2], [0, 0, 1]])
    dist = np.array([-0.2, 0.01, 0, 0, 0])

    def lens(points: np.ndarray) -> np.ndarray:
        rays = np.c_[(points - CENTRE) / f, np.ones(len(points))]
        pixels, _ = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), matrix, dist)
        return pixels.reshape(-1, 2)

    sides = [lens(s) for s in _sides(SQUARE)]
    truth = lens(SQUARE)
    assert np.abs(straightened_corners(sides, SIZE) - truth).max() < 0.5


def test_too_few_points_give_none():
    sides = _sides(SQUARE)
    sides[2] = sides[2][:3]
    assert straightened_corners(sides, SIZE) is None
