"""Which edge of a found board is south: the board's own art tells.

The square pattern is symmetric under quarter turns, so which side is south can only
come from the board's art. A :class:`BoardLook` stores the colour of each edge's
bonus-square frames, captured once at registration; later frames take the rotation
whose frame colours match it best (:func:`orient`). Without a look the south edge is
taken to be the one nearest the bottom of the image (closest to the camera).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.board_location import BoardLocation
from calibration.colour_names import named_bgr
from calibration.rim_profile import RIM_SAMPLES, rim_profile
from engine.layout import Edge, Layout


def _frame_ring_points(layout: Layout, edge: Edge, step: float = 0.004) -> np.ndarray:
    """Board points on the ring just outside each bonus square of ``edge`` (its frame)."""
    points = []
    for square in layout.bonus_squares(edge):
        r = layout.rects[square]
        for d in (0.004, 0.008):
            x0, y0, x1, y1 = r.x0 - d, r.y0 - d, r.x1 + d, r.y1 + d
            xs = np.arange(x0, x1, step)
            ys = np.arange(y0, y1, step)
            points += [(x, y0) for x in xs] + [(x, y1) for x in xs]
            points += [(x0, y) for y in ys] + [(x1, y) for y in ys]
    return np.array(points, np.float64)


def _sample_bgr(image: np.ndarray, pixels: np.ndarray) -> np.ndarray:
    """Bilinear colour samples at N pixel positions (N×3 float)."""
    bgr = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    mx = pixels[:, 0].astype(np.float32).reshape(1, -1)
    my = pixels[:, 1].astype(np.float32).reshape(1, -1)
    out = cv2.remap(bgr, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(-1, 3).astype(np.float64)


def _edge_signature(image: np.ndarray, location: BoardLocation, layout: Layout) -> np.ndarray:
    """Mean Lab colour of each edge's bonus frames, rows in order S, W, N, E (4×3)."""
    rows = []
    for edge in Edge:
        ring = _frame_ring_points(layout, edge)
        if len(ring) == 0:
            rows.append(np.full(3, np.nan))
            continue
        bgr = _sample_bgr(image, location.to_image(ring))
        # Median, not mean: a tile overhanging the frame should not shift the colour.
        med = np.median(bgr, axis=0).astype(np.uint8).reshape(1, 1, 3)
        rows.append(cv2.cvtColor(med, cv2.COLOR_BGR2LAB).reshape(3).astype(np.float64))
    return np.array(rows)


@dataclass(frozen=True, eq=False)
class BoardLook:
    """The board's own art, remembered at registration, to tell the edges apart later.

    ``edge_lab`` holds the Lab colour (OpenCV 8-bit scale) of each edge's bonus
    frames, rows S, W, N, E. ``rim`` (captured looks only) is the lightness across
    the board's rim (:mod:`calibration.rim_profile`): it tells the board's outer
    edge from an inner ring when the board's outer band has the table's colour.

        >>> look = BoardLook.capture(frame, location, layout)  # doctest: +SKIP
        >>> find_board(next_frame, layout, look=look).orientation_source  # doctest: +SKIP
        'signature'
    """

    edge_lab: np.ndarray
    source: str = "signature"
    """``"signature"``: captured from the board; ``"seats"``: the players' colour names."""
    rim: np.ndarray | None = None

    @property
    def lightness_weight(self) -> float:
        """How much lightness counts against hue: a captured look knows the frames'
        real lightness, colour names do not."""
        return 0.25 if self.source == "signature" else 0.0

    @classmethod
    def capture(cls, image: np.ndarray, location: BoardLocation, layout: Layout) -> BoardLook:
        return cls(
            _edge_signature(image, location, layout), rim=rim_profile(image, location.corners)
        )

    @classmethod
    def from_seats(cls, colours: Mapping[Edge, str]) -> BoardLook | None:
        """The look the seats promise: each edge framed in its player's colour.

        ``None`` when fewer than two of the colour names are known (see
        :mod:`calibration.colour_names`)::

            >>> look = BoardLook.from_seats({Edge.SOUTH: "red", Edge.NORTH: "yellow"})
            >>> look.distinct(), look.source
            (True, 'seats')
        """
        rows = []
        for edge in Edge:
            bgr = named_bgr(colours[edge]) if edge in colours else None
            if bgr is None:
                rows.append(np.full(3, np.nan))
                continue
            pixel = np.array(bgr, np.uint8).reshape(1, 1, 3)
            rows.append(cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB).reshape(3).astype(np.float64))
        if sum(not np.isnan(row).any() for row in rows) < 2:
            return None
        return cls(np.array(rows), source="seats")

    def distinct(self) -> bool:
        """Whether the four edges look different enough to decide orientation."""
        sig = self.edge_lab[~np.isnan(self.edge_lab).any(axis=1)]
        if len(sig) < 2:
            return False
        dists = [
            _lab_distance(a, b, self.lightness_weight) for a, b in itertools.combinations(sig, 2)
        ]
        return min(dists) > 12.0

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "edge_lab": {
                e.value: [round(float(v), 2) for v in row]
                for e, row in zip(Edge, self.edge_lab, strict=True)
            },
            "source": self.source,
        }
        if self.rim is not None:
            data["rim"] = [round(float(v), 1) for v in self.rim]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BoardLook:
        try:
            rows = [data["edge_lab"][e.value] for e in Edge]
            arr = np.array(rows, np.float64).reshape(4, 3)
        except (KeyError, TypeError, ValueError):
            raise ValueError("board look: 'edge_lab' must map S, W, N, E to [L, a, b]") from None
        source = data.get("source", "signature")
        if source not in ("signature", "seats"):
            raise ValueError("board look: 'source' must be 'signature' or 'seats'")
        rim = data.get("rim")
        if rim is not None:
            try:
                rim = np.array(rim, np.float64).reshape(RIM_SAMPLES)
            except (TypeError, ValueError):
                raise ValueError(f"board look: 'rim' must be {RIM_SAMPLES} numbers") from None
        return cls(arr, source=source, rim=rim)


def _lab_distance(a: np.ndarray, b: np.ndarray, lightness_weight: float = 0.25) -> float:
    # Lightness varies with the lamp; the hue of the frames does not: weigh chroma more.
    d = a - b
    return float(math.sqrt(lightness_weight * d[0] ** 2 + d[1] ** 2 + d[2] ** 2))


def orient(
    image: np.ndarray, location: BoardLocation, layout: Layout, look: BoardLook | None
) -> BoardLocation:
    """Rotate the corner order so that south is south (see the module docstring)."""
    if look is not None and look.distinct():
        best, costs = 0, []
        for k in range(4):
            sig = _edge_signature(image, location.rotated(k, "signature"), layout)
            ok = ~(np.isnan(sig).any(axis=1) | np.isnan(look.edge_lab).any(axis=1))
            costs.append(
                sum(
                    _lab_distance(a, b, look.lightness_weight)
                    for a, b in zip(sig[ok], look.edge_lab[ok], strict=True)
                )
            )
        best = int(np.argmin(costs))
        ranked = sorted(costs)
        margin = (ranked[1] - ranked[0]) / max(ranked[1], 1e-6)
        out = location.rotated(best, look.source)
        conf = location.confidence * min(1.0, 0.5 + margin)
        return BoardLocation.from_corners(out.corners, out.method, conf, look.source)
    # South = the side whose midpoint is lowest in the image (nearest the camera).
    mids = (location.corners + np.roll(location.corners, -1, axis=0)) / 2
    south_side = int(np.argmax(mids[:, 1]))  # side i joins corner i and i+1
    # In NW, NE, SE, SW order the south side is side 2 (SE -> SW).
    return location.rotated((south_side - 2) % 4, "nearest-edge")
