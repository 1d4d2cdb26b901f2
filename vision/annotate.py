"""Draw what the pipeline saw over the camera image: the board, squares, readings."""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np

from engine import Tile

OUTLINE = (255, 229, 0)  # BGR cyan-ish
SURE = (80, 200, 60)
UNSURE = (0, 200, 255)
BLOCKED = (60, 60, 230)


def annotate(
    image: np.ndarray,
    corners: np.ndarray | None,
    square_quads: Mapping[str, np.ndarray] | None,
    readings: Mapping[str, tuple[str, str]] | None,
    status: str,
) -> np.ndarray:
    """A copy of ``image`` with the board outline, square outlines and readings.

    ``readings`` maps a square to (text, kind) where kind is ``sure``, ``unsure``
    or ``blocked``; text is ASCII (OpenCV's fonts have no suit symbols).
    """
    out = image.copy()
    if corners is not None:
        cv2.polylines(out, [np.round(corners).astype(np.int32)], True, OUTLINE, 2, cv2.LINE_AA)
    if square_quads is not None and readings is not None:
        for square, quad in square_quads.items():
            text, kind = readings.get(square, ("", "unsure"))
            colour = {"sure": SURE, "unsure": UNSURE, "blocked": BLOCKED}[kind]
            cv2.polylines(out, [np.round(quad).astype(np.int32)], True, colour, 2, cv2.LINE_AA)
            if text:
                x, y = quad.mean(axis=0)
                scale = max(0.4, min(1.0, float(np.linalg.norm(quad[1] - quad[0])) / 70))
                size, _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
                org = (int(x - size[0] / 2), int(y + size[1] / 2))
                cv2.putText(
                    out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 4, cv2.LINE_AA
                )
                cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 2, cv2.LINE_AA)
    cv2.rectangle(out, (0, 0), (min(out.shape[1], 12 + 11 * len(status)), 30), (0, 0, 0), -1)
    cv2.putText(
        out, status, (6, 21), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 1, cv2.LINE_AA
    )
    return out


def reading_text(label: Tile | str | None) -> str:
    """ASCII text of a reading: ``7H``, ``-`` for empty, ``?``, ``hand``."""
    if label is None:
        return "-"
    if isinstance(label, Tile):
        return label.ascii
    return "hand" if label == "covered" else str(label)
