"""How blurred a photo of the board is (vision.photo_blur), on the simulator's photos
and the live camera's picture."""

from __future__ import annotations

import itertools
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.photo_blur import BLURRED_PX, focus_verdict, photo_blur_px
from vision.pipeline import LivePipeline
from vision.recognizer import TileRecognizer
from vision.runner import PipelineRunner
from vision.sim_source import SimulatedTableSource
from vision.training_data import tile_set_frames


@pytest.fixture(scope="module")
def photos():
    """Five enrolment photos of a held-out set, each with its own camera."""
    return tile_set_frames(93_100, "split", photos=5, tests=0).enrol


def test_the_simulators_photos_are_sharp_and_more_blur_is_measured(photos) -> None:
    for frame, corners in photos:
        blurs = [
            photo_blur_px(
                frame.image if s == 0 else cv2.GaussianBlur(frame.image, (0, 0), s), corners
            )
            for s in (0, 1.5, 3, 4.5)
        ]
        assert blurs[0] < BLURRED_PX < blurs[2]
        assert blurs == sorted(blurs)


def test_blur_is_measured_whatever_the_contrast(photos) -> None:
    frame, corners = photos[0]
    for image in (frame.image, cv2.GaussianBlur(frame.image, (0, 0), 2.5)):
        faint = (image.astype(np.float32) * 0.4 + 100).astype(np.uint8)
        assert photo_blur_px(faint, corners) == pytest.approx(
            photo_blur_px(image, corners), rel=0.1
        )


def test_blur_is_measured_at_the_readers_scale(photos) -> None:
    # The same photo twice the size, blurred twice as much in pixels, looks the same to
    # the reader: its crops are the board at one size.
    frame, corners = photos[0]
    large = cv2.resize(frame.image, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    small_blurred = photo_blur_px(cv2.GaussianBlur(frame.image, (0, 0), 1.5), corners)
    large_blurred = photo_blur_px(cv2.GaussianBlur(large, (0, 0), 3.0), corners * 2)
    assert large_blurred == pytest.approx(small_blurred, rel=0.15)


def test_the_live_camera_says_how_sharp_its_picture_of_the_board_is() -> None:
    # What the Calibrate page shows while the user focuses the lens.
    source = SimulatedTableSource(3, realtime=False, games=1, max_turns=1, hands=False)
    pipeline = LivePipeline(TileRecognizer.load())
    runner = PipelineRunner(source, pipeline)
    assert runner.picture_blur() is None  # no picture yet
    frames = iter(source)
    for frame in itertools.islice(frames, 4):
        runner.step(frame)
    sharp = runner.picture_blur()
    assert sharp is not None and focus_verdict(sharp) == "sharp"
    # Each steady view's picture is measured too: the camera line names a blurred one.
    for frame in itertools.islice(frames, 30):
        runner.step(frame)
        if pipeline.stability.current_view is not None:
            break
    assert pipeline.unread.blur_px == pytest.approx(sharp, abs=0.2)
    frame = next(frames)
    runner.step(replace(frame, image=cv2.GaussianBlur(frame.image, (0, 0), 4)))
    blurred = runner.picture_blur()
    assert blurred is not None and focus_verdict(blurred) == "blurred"
