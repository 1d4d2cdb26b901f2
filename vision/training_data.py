"""Labelled square crops from the simulator, for training and measuring the tile classifier.

No torch here: the benchmark and the tests use the same crops. A *table* is one
random scene (one art style, table, clutter); each table is photographed
``views`` times with a fresh position, camera, light and (sometimes) a hand,
because drawing a new table costs ~0.3 s and a new view of it ~0.05 s. Every
frame gives 12 crops, cut with :func:`vision.board_view.square_crops` from the
delivered (lens-distorted) image at the truth corners jittered by up to ~1% of
the board's width, as a board finder would leave them::

    >>> spec = DataSpec(name="demo", seed=7, tables=1, views=2, resolutions=((640, 360),))
    >>> data = generate(spec, progress=False)
    >>> data.x.shape, data.y.shape
    ((24, 84, 84, 3), (24,))
    >>> from vision.recognizer import LABELS
    >>> LABELS[int(data.y[0])] in LABELS
    True

Labels index :data:`LABELS`: the 50 tiles (``ALL_TILES`` order), ``empty``, then
``covered`` for a square a hand hides at least 20% of (``truth.covered``).
Seeds: table ``i`` of a spec uses ``np.random.default_rng([spec.seed, i])``, so
every crop is reproducible from the spec alone.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import multiprocessing.pool
import os
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from calibration.board_location import board_width_px
from engine import Layout
from vision.board_view import square_crops
from vision.enrollment import position_labels
from vision.enrollment_plan import enrolment_plan
from vision.recognizer import COVERED
from vision.synth import (
    FAMILIES,
    TRAINING_FAMILIES,
    random_camera,
    random_hand,
    random_position,
    random_scene,
    render_frame,
    sample_photo_effects,
)

CROP_PX = 84
"""Side of the classifier's input crop in pixels. 84, not 56 (session 6): a 1080p
frame's crop spans ~98 source pixels and a 720p frame's ~65, and the classic art's
corner digits lose their shape when squeezed to 56 (a pilot on classic and pips
crops: best class 88.5% at 84 against 78.7% at 56 and 82.8% at 72, same epochs)."""
CORNER_JITTER = 0.01
"""Largest corner error simulated, as a fraction of the board's width."""

REPO = Path(__file__).resolve().parent.parent
CACHE_DIR = REPO / "runs" / "data"  # /runs/ is git-ignored
RENDERING_SOURCES = (
    "vision/synth/*.py",
    "vision/training_data.py",
    "vision/board_view.py",
    "engine/layout.py",
    "engine/layouts/*",
)
"""The code and data that decide what a crop looks like: a cache file rendered by
other versions of them is never reused (a model must be reproducible from scratch)."""


def rendering_fingerprint() -> str:
    """A hash of :data:`RENDERING_SOURCES` (file names and contents)."""
    digest = hashlib.sha1()
    for pattern in RENDERING_SOURCES:
        for path in sorted(REPO.glob(pattern)):
            digest.update(path.relative_to(REPO).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class DataSpec:
    """What to render: ``tables`` tables x ``views`` frames, each of one family
    drawn from ``families`` in turn, at one of ``resolutions``; ``hand_rate`` of the
    frames have a hand over the board."""

    name: str
    seed: int
    tables: int
    views: int = 4
    families: tuple[str, ...] = TRAINING_FAMILIES
    resolutions: tuple[tuple[int, int], ...] = ((1280, 720), (1920, 1080))
    hand_rate: float = 0.35
    crop_px: int = CROP_PX
    corner_jitter: float = CORNER_JITTER

    def key(self) -> str:
        """A short hash naming the cache file: any change of the recipe, or of the
        code that renders it, re-renders."""
        text = json.dumps(asdict(self), sort_keys=True) + rendering_fingerprint()
        return hashlib.sha1(text.encode()).hexdigest()[:10]


@dataclass(frozen=True, eq=False)
class CropSet:
    """Crops (N x px x px x 3 BGR uint8) with labels and where each came from.

    ``family`` indexes :data:`vision.synth.FAMILIES`; ``frame`` numbers the frame
    within the set (12 consecutive crops per frame); ``coverage`` is the fraction
    of the square a hand hides; ``top`` is the label the square has without the
    hand (its top tile, or empty), so that a square under a hand read as the tile
    that really lies there is not counted as a wrong tile; ``board_px`` (the board's
    width in the frame) and ``motion_blur`` (the frame's motion blur in pixels, 0
    for a still camera) say how hard the frame was to read.
    """

    x: np.ndarray
    y: np.ndarray
    family: np.ndarray
    frame: np.ndarray
    coverage: np.ndarray
    top: np.ndarray
    board_px: np.ndarray
    motion_blur: np.ndarray

    def __len__(self) -> int:
        return len(self.y)

    @staticmethod
    def concat(sets: list[CropSet]) -> CropSet:
        offsets = np.cumsum([0] + [int(s.frame.max()) + 1 if len(s) else 0 for s in sets])
        joined = {
            name: np.concatenate([getattr(s, name) for s in sets]) for name in CropSet._fields()
        }
        joined["frame"] = np.concatenate([s.frame + o for s, o in zip(sets, offsets, strict=False)])
        return CropSet(**joined)

    @staticmethod
    def _fields() -> tuple[str, ...]:
        return tuple(f.name for f in fields(CropSet))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        # Not compressed: the crops shrink by only a third, and compressing the
        # training set took a core most of a minute while the other waited.
        np.savez(tmp, **{name: getattr(self, name) for name in self._fields()})
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> CropSet:
        with np.load(path) as data:
            return cls(**{name: data[name] for name in cls._fields()})


def crop_labels(frame, layout: Layout) -> list[int]:
    """The label index of every square of a rendered frame, in layout order:
    ``covered`` where a hand hides the square, else its :func:`top_labels` label."""
    covered = frame.truth.covered
    tops = top_labels(frame, layout)
    return [COVERED if s in covered else top for s, top in zip(layout.squares, tops, strict=True)]


def top_labels(frame, layout: Layout) -> list[int]:
    """The label of every square as if no hand were there: its top tile, or empty."""
    return position_labels(frame.truth.position, layout).tolist()


def jitter_corners(corners: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """Corners moved independently by up to ``amount`` x board width (sigma amount/2.5)."""
    width = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, 0), axis=1)))
    noise = np.clip(rng.normal(0, amount / 2.5, (4, 2)), -amount, amount) * width
    return corners + noise


def render_table(spec: DataSpec, index: int, layout: Layout):
    """Yield the ``spec.views`` frames of table ``index``, each with its scene and
    crop rng."""
    rng = np.random.default_rng([spec.seed, index])
    family = spec.families[index % len(spec.families)]
    resolution = spec.resolutions[int(rng.integers(len(spec.resolutions)))]
    scene = random_scene(rng, family=family, hands=False, resolution=resolution, layout=layout)
    for view in range(spec.views):
        if view:
            position, stacks = random_position(rng, layout)
            scene = replace(
                scene,
                position=position,
                stacks=stacks,
                camera=random_camera(rng, resolution),
                photo=sample_photo_effects(rng, strength=float(rng.uniform(0.3, 1.0))),
                jitter_seed=int(rng.integers(1 << 30)),
            )
        hand = random_hand(rng) if rng.random() < spec.hand_rate else None
        shot = replace(scene, hand=hand)
        yield render_frame(shot, rng), shot, rng


def default_workers() -> int:
    """Render processes used when none are asked for: ``min(2, os.cpu_count())``."""
    return max(1, min(2, os.cpu_count() or 1))


def render_table_crops(spec: DataSpec, index: int, layout: Layout | None = None) -> CropSet:
    """The crops of table ``index``'s ``spec.views`` frames (12 rows per frame, in
    frame order; frames numbered from 0)."""
    layout = layout or Layout.load()
    squares = len(layout.squares)
    x = np.empty((spec.views * squares, spec.crop_px, spec.crop_px, 3), np.uint8)
    columns: dict[str, list] = {name: [] for name in ("y", "top", "coverage")}
    conditions: dict[str, list] = {name: [] for name in ("family", "board_px", "motion_blur")}
    for k, (frame, scene, rng) in enumerate(render_table(spec, index, layout)):
        corners = jitter_corners(frame.truth.board_corners_distorted, rng, spec.corner_jitter)
        x[k * squares : (k + 1) * squares] = square_crops(
            frame.image, corners, layout, spec.crop_px
        )
        columns["y"] += crop_labels(frame, layout)
        columns["top"] += top_labels(frame, layout)
        columns["coverage"] += [frame.truth.coverage[s] for s in layout.squares]
        conditions["family"].append(FAMILIES.index(frame.truth.family))
        conditions["board_px"].append(board_width_px(frame.truth.board_corners_distorted))
        conditions["motion_blur"].append(scene.photo.motion_blur_px)
    per_crop = {name: np.repeat(values, squares) for name, values in conditions.items()}
    return CropSet(
        x=x,
        y=np.array(columns["y"], np.int16),
        family=per_crop["family"].astype(np.int8),
        frame=np.repeat(np.arange(spec.views, dtype=np.int32), squares),
        coverage=np.array(columns["coverage"], np.float32),
        top=np.array(columns["top"], np.int16),
        board_px=per_crop["board_px"].astype(np.float32),
        motion_blur=per_crop["motion_blur"].astype(np.uint8),
    )


_WORKER_LAYOUT: Layout | None = None


def _init_worker() -> None:
    global _WORKER_LAYOUT
    _WORKER_LAYOUT = Layout.load()


def _render_in_worker(job: tuple[DataSpec, int]) -> CropSet:
    spec, index = job
    return render_table_crops(spec, index, _WORKER_LAYOUT)


def worker_pool(
    workers: int, initializer: Callable[..., None], *args: Any
) -> multiprocessing.pool.Pool:
    """``workers`` processes that each run ``initializer(*args)`` first, with one
    OpenCV thread (the processes share the cores). Use it as a context manager.
    Spawned, not forked: the parent may hold torch's or OpenCV's threads."""
    return multiprocessing.get_context("spawn").Pool(
        workers, initializer=_start_worker, initargs=(initializer, *args)
    )


def _start_worker(initializer: Callable[..., None], *args: Any) -> None:
    import cv2

    cv2.setNumThreads(1)
    initializer(*args)


def render_pool(workers: int) -> multiprocessing.pool.Pool:
    """``workers`` render processes, for :func:`generate` to share between crop sets
    (each new pool pays its processes' start and their noise images again)."""
    return worker_pool(workers, _init_worker)


def generate(
    spec: DataSpec,
    progress: bool = True,
    workers: int | None = None,
    pool: multiprocessing.pool.Pool | None = None,
) -> CropSet:
    """Render ``spec`` (no cache); ``progress`` prints a bar on stderr.

    ``workers`` processes render tables in parallel (default
    :func:`default_workers`; 1 renders in this process), or those of ``pool``
    (:func:`render_pool`). Every table has its own rng, so the crops are the same,
    byte for byte, whatever the number of workers. The workers are spawned (fresh
    interpreters, not forked), so a script that renders with more than one must keep
    its top-level code under ``if __name__ == "__main__":``.
    """
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    layout = Layout.load()
    bar = ProgressBar(f"render {spec.name}", spec.tables * spec.views, enabled=progress)
    workers = min(workers, spec.tables)
    done: list[CropSet] = []
    with ExitStack() as stack:
        if pool is None and workers > 1:
            pool = stack.enter_context(render_pool(workers))
        if pool is None:
            tables = (render_table_crops(spec, t, layout) for t in range(spec.tables))
        else:
            jobs = ((spec, t) for t in range(spec.tables))
            tables = pool.imap(_render_in_worker, jobs)  # results in table order
        for table in tables:
            done.append(table)
            bar.update(len(done) * spec.views)
    bar.close()
    return CropSet.concat(done)


def cache_path(spec: DataSpec, cache_dir: Path = CACHE_DIR) -> Path:
    """Where :func:`load_or_generate` keeps ``spec``'s crops."""
    return cache_dir / f"{spec.name}-{spec.key()}.npz"


def load_or_generate(
    spec: DataSpec,
    cache_dir: Path = CACHE_DIR,
    progress: bool = True,
    workers: int | None = None,
    pool: multiprocessing.pool.Pool | None = None,
) -> CropSet:
    """The crops of ``spec``, from ``cache_dir`` if rendered before (same recipe);
    otherwise rendered by ``workers`` processes or ``pool``'s (see :func:`generate`)."""
    path = cache_path(spec, cache_dir)
    if path.exists():
        return CropSet.load(path)
    data = generate(spec, progress=progress, workers=workers, pool=pool)
    data.save(path)
    return data


class ProgressBar:
    """A plain-text progress bar on stderr (one line, redrawn), with rate and ETA.

    >>> bar = ProgressBar("demo", 3, enabled=False)
    >>> bar.update(3); bar.close()
    """

    def __init__(self, label: str, total: int, enabled: bool = True, suffix: str = "") -> None:
        self.label, self.total, self.enabled, self.suffix = label, max(1, total), enabled, suffix
        self.start = time.perf_counter()
        self._last = 0.0

    def update(self, done: int, suffix: str | None = None) -> None:
        if suffix is not None:
            self.suffix = suffix
        now = time.perf_counter()
        if not self.enabled or (now - self._last < 0.5 and done < self.total):
            return
        self._last = now
        frac = min(1.0, done / self.total)
        elapsed = now - self.start
        eta = elapsed / frac - elapsed if frac > 0 else 0.0
        bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
        sys.stderr.write(
            f"\r{self.label:<16} [{bar}] {done}/{self.total} "
            f"{elapsed:5.0f}s eta {eta:4.0f}s {self.suffix}   "
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            self.update(self.total)
            sys.stderr.write("\n")
            sys.stderr.flush()


@dataclass(frozen=True, eq=False)
class TileSetFrames:
    """Frames of one physical tile set (one concrete style) on one table:
    ``enrol`` shows all 50 tiles over a few photos without hands; ``test`` are
    ordinary game frames (random positions, cameras, light, sometimes a hand).
    Each frame comes with the corners to read it at (truth, distorted image).
    ``test_motion_blur`` is each test frame's motion blur in pixels (0: a still
    camera), which a frame's truth does not record."""

    family: str
    enrol: list
    test: list
    test_motion_blur: tuple[int, ...] = ()


def enrolment_positions(
    rng: np.random.Generator, photos: int, layout: Layout, plan: bool = False
) -> list:
    """``photos`` positions that together show all 50 tiles once (the rest empty): in
    random order, or with ``plan`` the Enrol tiles page's (:mod:`vision.enrollment_plan`).
    The random order is drawn either way, so that ``rng``'s later draws are the same."""
    from engine import ALL_TILES, Position

    order = [ALL_TILES[i] for i in rng.permutation(len(ALL_TILES))]
    per = -(-len(order) // photos)
    positions = []
    for p in range(photos):
        chunk = order[p * per : (p + 1) * per]
        squares = list(layout.squares)
        chosen = [squares[i] for i in sorted(rng.permutation(len(squares))[: len(chunk)])]
        mapping = dict.fromkeys(squares)
        mapping.update(zip(chosen, chunk, strict=True))
        positions.append(Position(mapping, layout))
    return list(enrolment_plan(layout)) if plan else positions


def tile_set_frames(
    seed: int,
    family: str,
    photos: int = 5,
    tests: int = 20,
    hand_rate: float = 0.35,
    resolution: tuple[int, int] = (1280, 720),
    same_camera: bool = False,
    plan: bool = False,
) -> TileSetFrames:
    """One tile set's enrolment photos and test frames, reproducible from ``seed``;
    ``same_camera`` keeps one camera for all of them (as with one calibration file).
    The photos hold the 50 tiles in random order, or with ``plan`` as the Enrol tiles
    page lays them out (:mod:`vision.enrollment_plan`); the test frames are the same."""
    layout = Layout.load()
    rng = np.random.default_rng([seed, 77])
    scene = random_scene(rng, family=family, hands=False, resolution=resolution, layout=layout)

    def shot(position, stacks, hand):
        view = replace(
            scene,
            position=position,
            stacks=stacks,
            camera=scene.camera if same_camera else random_camera(rng, resolution),
            photo=sample_photo_effects(rng, strength=float(rng.uniform(0.3, 1.0))),
            jitter_seed=int(rng.integers(1 << 30)),
            hand=hand,
        )
        frame = render_frame(view, rng)
        return (frame, frame.truth.board_corners_distorted), view.photo.motion_blur_px

    enrol = [shot(p, {}, None)[0] for p in enrolment_positions(rng, photos, layout, plan)]
    test, blur = [], []
    for _ in range(tests):
        position, stacks = random_position(rng, layout)
        hand = random_hand(rng) if rng.random() < hand_rate else None
        frame_and_corners, blur_px = shot(position, stacks, hand)
        test.append(frame_and_corners)
        blur.append(blur_px)
    return TileSetFrames(family, enrol, test, tuple(blur))
