"""Enrolment: teach the recognizer a physical tile set from a few photos (numpy only).

The shipped classifier was trained on simulated art; a real set looks different.
From photos of known positions (e.g. all 50 tiles over 5 photos) every square's
crop is embedded with the shipped model (the penultimate layer), in its four
quarter turns and with small corner shifts, and each class gets a *prototype*:
the normalised mean of its embeddings. Reading then scores a crop by its cosine
similarity to the prototypes (nearest class mean, as in few-shot learning), so
no training and no torch are needed and it takes about a second::

    >>> from vision.recognizer import TileRecognizer
    >>> from vision.training_data import tile_set_frames
    >>> photos = tile_set_frames(5, "classic", photos=5, tests=0).enrol
    >>> samples = [EnrollmentSample(f.image, c, f.truth.position) for f, c in photos]
    >>> enrol = build_enrollment(TileRecognizer.load(), samples)
    >>> int(enrol.enrolled[:50].sum())
    50

Classes missing from the photos fall back to the model's own head: its weight
row for that class, as a prototype with a penalty (``MISSING_PENALTY``), so a
tile that was never shown can still be read, but loses to any enrolled
look-alike. ``covered`` (hands) always comes from the base model, since
enrolment photos have no hands.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibration.board_finder import board_width_px
from engine import Layout, Position
from vision.board_view import square_crops
from vision.recognizer import COVERED, EMPTY, LABELS, softmax

SCALE = 40.0
"""Cosine-similarity logit scale (a temperature), chosen by likelihood on enrolled
sets of the held-out family (seeds 60000-60007, not the benchmark's); 40 for the
session-6 model's embedding (24 before)."""
THRESHOLD = 0.995
"""Confidence below which an enrolled reading is "?": the lowest of 0.9, 0.95, 0.98,
0.99, 0.995 at which at most 0.05% of the same sets' squares are answered wrongly
(session-6 model: 0.00% at 0.995, 0.06% at 0.99)."""
MISSING_PENALTY = 0.15
"""Cosine similarity taken off the stand-in prototypes of classes not enrolled."""
CORNER_SHIFTS = 3
"""Extra crops per square with the board's corners moved by ~0.5% of its width."""
FORMAT = 1


@dataclass(frozen=True)
class EnrollmentSample:
    """One enrolment photo: the image (undistorted), the board's corners (NW, NE, SE,
    SW) and the position shown."""

    image: np.ndarray
    corners: np.ndarray
    position: Position
    name: str = "photo"


@dataclass(frozen=True, eq=False)
class Enrollment:
    """Class prototypes in the model's embedding space (unit vectors, one per class
    of :data:`LABELS` except ``covered``), which classes were really enrolled, and
    the reading's scale and threshold."""

    prototypes: np.ndarray  # (len(LABELS), D); the covered row is unused
    enrolled: np.ndarray  # bool per class
    counts: np.ndarray  # squares seen per class
    scale: float = SCALE
    threshold: float = THRESHOLD

    @property
    def embedding_dim(self) -> int:
        return int(self.prototypes.shape[1])

    def probabilities(
        self, base_logits: np.ndarray, embedding: np.ndarray, temperature: float
    ) -> np.ndarray:
        """Class probabilities over :data:`LABELS` for a batch: cosine scores against
        the prototypes, with the base model's ``covered`` probability mixed in.

        >>> e = Enrollment(np.eye(52, 4), np.ones(52, bool), np.ones(52, int))
        >>> p = e.probabilities(np.zeros((1, 52)), np.array([[1.0, 0, 0, 0]]), 1.0)
        >>> int(p.argmax()), round(float(p.sum()), 6)
        (0, 1.0)
        """
        emb = np.asarray(embedding, np.float64)
        emb = emb / (np.linalg.norm(emb, axis=1, keepdims=True) + 1e-9)
        cos = emb @ self.prototypes.T
        cos[:, ~self.enrolled] -= MISSING_PENALTY
        cos[:, COVERED] = -np.inf
        p_tiles = softmax(self.scale * cos)
        p_covered = softmax(base_logits, temperature)[:, COVERED]
        out = p_tiles * (1.0 - p_covered)[:, None]
        out[:, COVERED] = p_covered
        return out

    def save(self, path: str | Path) -> None:
        """Write the enrolment as a small ``.npz`` (a few tens of kB)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": FORMAT,
            "labels": list(LABELS),
            "scale": self.scale,
            "threshold": self.threshold,
        }
        with open(path, "wb") as handle:  # np.savez would append .npz to other names
            np.savez_compressed(
                handle,
                prototypes=self.prototypes.astype(np.float32),
                enrolled=self.enrolled,
                counts=self.counts.astype(np.int32),
                meta=np.array(json.dumps(meta, ensure_ascii=False)),
            )

    @classmethod
    def load(cls, path: str | Path) -> Enrollment:
        """Read an enrolment file; ``ValueError`` naming the file if it is not one."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                prototypes = data["prototypes"].astype(np.float64)
                enrolled = data["enrolled"].astype(bool)
                counts = data["counts"]
        except FileNotFoundError:
            raise
        except (OSError, KeyError, ValueError) as err:
            raise ValueError(f"{path}: not a setupcam enrolment file ({err})") from None
        if meta.get("format") != FORMAT or tuple(meta.get("labels", ())) != LABELS:
            raise ValueError(f"{path}: enrolment file of another setupcam version; enrol again")
        return cls(prototypes, enrolled, counts, float(meta["scale"]), float(meta["threshold"]))


def position_labels(position: Position, layout: Layout) -> np.ndarray:
    """The class index of each square of ``position`` (layout order)."""
    out = []
    for square in layout.squares:
        tile = position.squares.get(square)
        out.append(EMPTY if tile is None else LABELS.index(str(tile)))
    return np.array(out)


def enrollment_views(
    sample: EnrollmentSample, layout: Layout, crop_px: int, crop_span: float, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Crops of every square of one photo in 4 quarter turns x (1 + CORNER_SHIFTS)
    corner placements, and the class of each crop."""
    rng = np.random.default_rng(seed)
    corners = np.asarray(sample.corners, np.float64)
    width = board_width_px(corners)
    placements = [corners] + [
        corners + rng.normal(0, 0.005 * width, (4, 2)) for _ in range(CORNER_SHIFTS)
    ]
    labels = position_labels(sample.position, layout)
    crops, ys = [], []
    for quad in placements:
        base = square_crops(sample.image, quad, layout, crop_px, crop_span)
        for k in range(4):
            crops.append(np.rot90(base, k, axes=(1, 2)))
            ys.append(labels)
    return np.concatenate(crops), np.concatenate(ys)


def build_enrollment(
    recognizer, samples: Sequence[EnrollmentSample], layout: Layout | None = None
) -> Enrollment:
    """Prototypes from ``samples`` with the recognizer's model (see module docs)."""
    layout = layout or Layout.load()
    if not samples:
        raise ValueError("enrolment needs at least one photo")
    head_w = _head_rows(recognizer)
    dim = recognizer.info.embedding_dim
    sums = np.zeros((len(LABELS), dim))
    counts = np.zeros(len(LABELS), np.int64)
    for i, sample in enumerate(samples):
        crops, ys = enrollment_views(
            sample, layout, recognizer.crop_px, recognizer.info.crop_span, seed=i
        )
        emb = np.asarray(recognizer.embed(crops), np.float64)
        emb /= np.linalg.norm(emb, axis=1, keepdims=True) + 1e-9
        np.add.at(sums, ys, emb)
        np.add.at(counts, position_labels(sample.position, layout), 1)
    enrolled = counts > 0
    enrolled[COVERED] = False
    prototypes = np.where(enrolled[:, None], sums, head_w)
    prototypes /= np.linalg.norm(prototypes, axis=1, keepdims=True) + 1e-9
    return Enrollment(prototypes, enrolled, counts)


def _head_rows(recognizer) -> np.ndarray:
    """The base model's class directions in embedding space, unit length: the
    weight rows of its linear head, read from the ONNX file (no torch needed)."""
    rows = recognizer.head_weights()
    return rows / (np.linalg.norm(rows, axis=1, keepdims=True) + 1e-9)
