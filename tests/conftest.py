"""Shared test helpers: build positions from short strings; rendered tiles' crops."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Layout, Position, Seats


def pos(text: str = "") -> Position:
    """``pos("b2=4h c3=6h")``: a position on the standard layout."""
    squares = dict(part.split("=") for part in text.split())
    return Position.from_json({"squares": squares})


@pytest.fixture(autouse=True)
def own_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test keeps its files in a home of its own, never the user's: an enrolment
    there would change what ``recognize`` and ``serve`` read and print."""
    monkeypatch.setenv("SETUPCAM_HOME", str(tmp_path_factory.mktemp("home")))


@pytest.fixture
def layout() -> Layout:
    return Layout.load()


@pytest.fixture
def four_seats() -> Seats:
    return Seats.parse("S=red,W=green,N=yellow,E=purple")


@pytest.fixture(scope="session")
def four_tile_crops() -> np.ndarray:
    """Four tiles' crops from a rendered table (bold art), as the recognizer cuts them."""
    from vision.recognizer import TileRecognizer
    from vision.synth import random_scene, render_frame
    from vision.training_data import crop_labels

    layout = Layout.load()
    frame = render_frame(random_scene(np.random.default_rng(3), family="bold"), 0)
    crops = TileRecognizer.load().crops(frame.image, frame.truth.board_corners_distorted, layout)
    tiles = np.flatnonzero(np.array(crop_labels(frame, layout)) < 50)[:4]
    assert len(tiles) == 4
    return crops[tiles]


def outline_error(corners: np.ndarray, truth: np.ndarray) -> float:
    """The largest corner error, in board widths, whichever corner the outline starts at
    (which edge is south is a separate question from where the board is)."""
    from calibration.board_location import corner_error

    width = float(np.linalg.norm(np.asarray(truth)[1] - np.asarray(truth)[0]))
    return min(corner_error(np.roll(corners, k, 0), truth) for k in range(4)) / width
