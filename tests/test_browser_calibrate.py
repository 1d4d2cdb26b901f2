"""The calibration page in headless Chromium: drag a corner, use it, save."""

from __future__ import annotations

import cv2
import numpy as np
from browser import chromium, serving
from test_webui_api import FakeCamera

from setupcam.session import GameSession
from setupcam.store import GameStore
from webui import create_app


class PictureCamera(FakeCamera):
    """A fake camera whose picture is a real 400x300 JPEG."""

    def latest_jpeg(self, annotated: bool = True) -> bytes | None:
        image = np.full((300, 400, 3), 60, np.uint8)
        cv2.rectangle(image, (50, 40), (350, 260), (40, 120, 40), -1)
        return cv2.imencode(".jpg", image)[1].tobytes()


def test_drag_a_corner_apply_and_save() -> None:
    camera = PictureCamera()
    camera.corners = [[50, 40], [350, 40], [350, 260], [50, 260]]
    with (
        serving(create_app(GameSession(GameStore(":memory:")), camera)) as url,
        chromium() as browser,
    ):
        page = browser.new_page(viewport={"width": 900, "height": 800})
        page.goto(url + "/calibrate")
        handle = page.wait_for_selector("circle[data-corner=NW]")
        assert page.locator("circle.calib-handle").count() == 4
        assert page.locator("polygon.calib-square").count() == 12  # the layout's squares
        assert page.locator("text.calib-edge").count() == 4
        page.wait_for_selector("#calib-focus:has-text('Focus: sharp (0.7 px)')")
        box = handle.bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 20, y + 15, steps=5)
        page.mouse.up()
        page.click("#calib-apply")
        page.wait_for_selector("#calib-message:has-text('Corners in use')")
        nw = camera.corners[0]
        assert nw[0] > 55 and nw[1] > 44  # moved right and down, in image pixels
        assert camera.corners[1] == [350, 40]
        # South was wrong: turn it one edge; the corner list rolls by one.
        page.click("#calib-turn")
        with page.expect_response("**/api/calibration/corners"):
            page.click("#calib-apply")
        assert camera.corners[0] == [350, 40] and camera.corners[3] == nw
        page.click("#calib-save")
        page.wait_for_selector("#calib-message:has-text('Saved to /tmp/calibration.json')")
        assert camera.saved == 1
        camera.blur = 2.4  # the lens turned out of focus: the page sees it by itself
        page.wait_for_selector("#calib-focus:has-text('Focus: blurred (2.4 px): tiles will')")
        assert camera.corners[0] == [350, 40]  # the corners in use stay as they were
