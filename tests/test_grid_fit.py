"""The grid inside an outline tells the board's edge from an inner ring or a line outside."""

from __future__ import annotations

import pytest
from conftest import outline_error

from calibration import board_finder
from calibration.board_finder import find_board
from calibration.grid_fit import cell_boundaries, grid_offset
from calibration.rim_profile import moved_outline
from engine.layout import Layout

LAYOUT = Layout.load()


def _frame(seed: int, family: str, resolution: tuple[int, int]):
    """A frame without hands, as the board finding benchmark renders it."""
    from vision.synth import scene as synth

    return synth.render_frame(
        synth.random_scene(seed, family=family, hands=False, resolution=resolution), seed
    )


def test_cell_boundaries_follow_the_contract():
    # Cells 0.16 wide from 0.18 to 0.82 (INTERFACES.md section 2).
    assert cell_boundaries(LAYOUT) == pytest.approx([0.18, 0.34, 0.50, 0.66, 0.82])


def test_grid_offset_measures_how_far_the_edge_lies_from_an_outline():
    frame = _frame(2000, "classic", (1280, 720))
    truth = frame.truth.board_corners_distorted
    assert grid_offset(frame.image, truth, LAYOUT) == 0.0
    # The score track's ring, 0.03 inside the edge: the edge is 0.03/0.94 of the
    # ring's width outside it.
    ring = moved_outline(truth, -0.03)
    offset = grid_offset(frame.image, ring, LAYOUT)
    assert offset == pytest.approx(0.03 / 0.94, abs=0.007)
    assert outline_error(moved_outline(ring, offset), truth) < 0.01
    # An outline 4.5% outside the edge (on a line in the table beside the board).
    outside = moved_outline(truth, 0.045)
    offset = grid_offset(frame.image, outside, LAYOUT)
    assert offset == pytest.approx(-0.045 / 1.09, abs=0.01)
    assert outline_error(moved_outline(outside, offset), truth) < 0.01


@pytest.mark.parametrize(
    "seed, family, resolution",
    [
        (2000, "classic", (1280, 720)),  # dark outer band on a dark table
        (2020, "pips", (1920, 1080)),  # green band on green cloth
        (1306, "classic", (1920, 1080)),  # a line in the table 4% outside taken for the edge
    ],
)
def test_find_board_needs_no_look_where_the_edge_hides(seed, family, resolution, monkeypatch):
    frame = _frame(seed, family, resolution)
    truth = frame.truth.board_corners_distorted
    assert outline_error(find_board(frame.image, LAYOUT).corners, truth) < 0.01
    # Without the grid's word the finder stops on the wrong ring.
    monkeypatch.setattr(board_finder, "grid_offset", lambda *args: 0.0)
    assert outline_error(find_board(frame.image, LAYOUT).corners, truth) > 0.02


@pytest.mark.parametrize("seed", [1005, 1009, 1011])
def test_grid_offset_keeps_a_right_outline_under_a_hand(seed):
    # Hands over 7-10 of the 12 squares: the median across the grid ignores them.
    from vision.synth import scene as synth

    scene = synth.random_scene(seed, family="bold", hands=True, resolution=(1280, 720))
    frame = synth.render_frame(scene, seed)
    assert len(frame.truth.covered) >= 7
    assert grid_offset(frame.image, frame.truth.board_corners_distorted, LAYOUT) == 0.0


@pytest.mark.parametrize(
    "seed, family, resolution",
    [
        (1372, "classic", (1920, 1080)),  # the search's first outline mixes edge and inner lines
        (2479, "split", (1920, 1080)),  # ... has one side 2% off
        (8178, "neon", (1280, 720)),  # ... lies on a ring 20% inside
    ],
)
def test_find_board_takes_the_outline_the_grid_fits_best(seed, family, resolution, monkeypatch):
    frame = _frame(seed, family, resolution)
    truth = frame.truth.board_corners_distorted
    assert outline_error(find_board(frame.image, LAYOUT).corners, truth) < 0.01
    # The search's first outline alone misses.
    monkeypatch.setattr(board_finder, "GRID_CANDIDATES", 1)
    assert outline_error(find_board(frame.image, LAYOUT).corners, truth) > 0.015
