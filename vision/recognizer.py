"""Read the top tile on every square with the shipped ONNX classifier (no torch).

One onnxruntime call reads all 12 squares of a frame. Each square gets a
:class:`Reading`: a tile, ``None`` (empty), ``"covered"`` (a hand or other
object) or ``"?"`` when the calibrated confidence is below the model's
threshold::

    >>> from engine import Layout
    >>> rec = TileRecognizer.load()                                  # doctest: +SKIP
    >>> readings = rec.read_board(image, corners, Layout.load())     # doctest: +SKIP
    >>> readings["b2"].label, round(readings["b2"].confidence, 3)   # doctest: +SKIP
    (Tile(value=5, suit=<Suit.HEART: '♥'>), 0.998)

The model file ``models/tiles.onnx`` takes crops, N x 84 x 84 x 3, BGR, as 8-bit
levels (made from 0..255 pixels by :mod:`vision.network_input`; a network as
training first exports it takes the float32 pixels) and returns ``logits`` (N x 52, over
:data:`LABELS`) and ``embedding`` (N x D, the penultimate layer). Its metadata
``models/tiles.json`` holds the labels, the input size, the crop span, the
softmax temperature and the "?" threshold (calibrated on held-out frames).

With an enrolment file (:mod:`vision.enrollment`) the class scores come from the
user's own tile set instead; see :class:`vision.enrollment.Enrollment`. Enrolment
learns from another network, the *enrolment base*, named in ``tiles.json``
(``enrollment_model``, ``models/enrollment-base.onnx``): the network that reads the
art it was trained on best is not the one whose features learn a new set best
(models/HISTORY.md, "Session 17"), so an enrolled tile set is read entirely by the
base (:attr:`TileRecognizer.enrollment_base`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from calibration.board_location import board_width_px
from engine import ALL_TILES, Layout, Tile
from vision.board_view import CROP_SPAN, square_crops
from vision.network_input import network_input, takes_levels
from vision.setupcam_home import setupcam_home
from vision.tile_colour import colour_features

if TYPE_CHECKING:
    from vision.enrollment import Enrollment

LABELS: tuple[str, ...] = (*(str(t) for t in ALL_TILES), "empty", "covered")
"""Class names of the classifier: canonical tiles in ``ALL_TILES`` order, then
``empty`` and ``covered``."""
EMPTY = LABELS.index("empty")
COVERED = LABELS.index("covered")
UNKNOWN = "?"

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
DEFAULT_MODEL = MODELS_DIR / "tiles.onnx"

Label = Tile | None | Literal["covered", "?"]


def default_enrollment_path() -> Path:
    """Where ``setupcam enroll`` writes and ``recognize``/the live app read the
    user's tile set: ``$SETUPCAM_HOME/enrollment.npz``, else
    ``~/.local/share/setupcam/enrollment.npz``."""
    return setupcam_home() / "enrollment.npz"


def label_of(index: int) -> Tile | Literal["covered"] | None:
    """The reading for class ``index`` of :data:`LABELS`.

    >>> str(label_of(0)), label_of(EMPTY), label_of(COVERED)
    ('1★', None, 'covered')
    """
    if index == EMPTY:
        return None
    if index == COVERED:
        return "covered"
    return ALL_TILES[index]


@dataclass(frozen=True, eq=False)
class Reading:
    """What one square shows. ``label`` is a :class:`Tile`, ``None`` (empty),
    ``"covered"`` or ``"?"`` (below the confidence threshold); ``confidence`` is the
    calibrated probability of the best class; ``probabilities`` is over
    :data:`LABELS` (for a decoder that applies the game's constraints).

    >>> r = Reading(None, 0.99, np.zeros(len(LABELS)))
    >>> r.text
    ''
    """

    label: Label
    confidence: float
    probabilities: np.ndarray = field(repr=False)

    @property
    def text(self) -> str:
        """Canonical tile text, ``""`` for empty, ``"covered"`` or ``"?"``."""
        if self.label is None:
            return ""
        return str(self.label)

    @property
    def unread(self) -> bool:
        """``"?"`` or ``"covered"``: no tile nor empty to show (the user sees "?")."""
        return isinstance(self.label, str)

    @property
    def best_index(self) -> int:
        return int(np.argmax(self.probabilities))

    @classmethod
    def of(cls, probabilities: np.ndarray, threshold: float) -> Reading:
        """The reading of one square's class probabilities: the best class, or "?"
        below ``threshold``.

        >>> Reading.of(np.eye(len(LABELS))[EMPTY] * 0.9, 0.95).text
        '?'
        """
        best = int(np.argmax(probabilities))
        confidence = float(probabilities[best])
        label: Label = label_of(best) if confidence >= threshold else UNKNOWN
        return cls(label, confidence, probabilities)


SMALL_BOARD_PX = 300
"""Below this width in the picture (pixels, mean of the outline's sides) a board's
suit marks are about 4 px wide and the model misreads many more tiles: best class
91% on the validation boards 270-300 px wide, against 96-99% from 300 px up
(models/HISTORY.md, "Session 7")."""


def small_board_advice(corners: np.ndarray) -> str | None:
    """A one-line hint when the board is too small in the picture to read reliably.

    >>> square = lambda w: np.array([[0, 0], [w, 0], [w, w], [0, w]], float)
    >>> small_board_advice(square(400)) is None
    True
    >>> print(small_board_advice(square(250)))  # doctest: +NORMALIZE_WHITESPACE
    the board is only 250 px wide in the picture (300 or more reads suits
    reliably): move the camera closer or use a higher resolution
    """
    width = board_width_px(corners)
    if width >= SMALL_BOARD_PX:
        return None
    return (
        f"the board is only {width:.0f} px wide in the picture ({SMALL_BOARD_PX} or more "
        "reads suits reliably): move the camera closer or use a higher resolution"
    )


NOT_ENROLLED_ADVICE = (
    "no enrolled tile set: the model knows only the simulator's art, and on a set "
    "coloured otherwise it misreads many tiles with confidence (one square in six in "
    "the simulator); enrol yours first (the dashboard's Enrol tiles page, or setupcam enroll)"
)
"""Said when a real picture is read without an enrolment (models/HISTORY.md,
"Session 17": the reader read 17.5% of the squares confidently wrong in the live app
on simulated sets whose suits take other colours)."""


def unit_rows(x: np.ndarray) -> np.ndarray:
    """Each row of ``x`` scaled to length 1 (float64).

    >>> unit_rows(np.array([[3.0, 4.0]])).round(6).tolist()
    [[0.6, 0.8]]
    """
    x = np.asarray(x, np.float64)
    return x / (np.linalg.norm(x, axis=1, keepdims=True) + 1e-9)


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Row-wise softmax of ``logits / temperature``.

    >>> softmax(np.array([[0.0, 0.0]])).tolist()
    [[0.5, 0.5]]
    """
    z = np.asarray(logits, np.float64) / temperature
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class ModelInfo:
    """The metadata shipped beside the ONNX file (``tiles.json``)."""

    labels: tuple[str, ...]
    input_px: int
    crop_span: float
    temperature: float
    threshold: float
    embedding_dim: int
    temperature_all_turns: float
    """The softmax temperature of the four turns' mean logits (``temperature`` for a
    model shipped without one)."""
    threshold_all_turns: float | None = None
    """The "?" threshold of a reading at all four turns, calibrated on such readings as
    ``threshold`` is on one pass, to the same rate of confident errors: the four turns
    agree on far fewer wrong answers, so the same rate allows a lower threshold
    (models/HISTORY.md, "Session 28"). ``threshold`` for a model shipped without one."""
    enrollment_value_scale: float | None = None
    """The scale of enrolment's value head for this model's embedding (None: the
    default :data:`vision.enrollment.VALUE_SCALE`). Models differ in how far apart their
    features put the values, so the scale is fitted per model like the temperature
    (:mod:`vision.training.value_scale`)."""
    enrollment_model: str | None = None
    """The file name, beside this one, of the network enrolment learns from (None:
    this network)."""
    network_digest: str | None = None
    """What the network computes, as :func:`vision.training.digest.network_digest`
    names it (None in models trained before session 18)."""
    same_network_as: tuple[str, ...] = ()
    """Digests of networks that compute exactly what this one does, laid out otherwise
    (:mod:`vision.training.space_to_depth`): enrolments made with them read with it."""
    extra: dict = field(default_factory=dict, compare=False)

    @classmethod
    def load(cls, path: Path) -> ModelInfo:
        """The metadata at ``path``; ``ValueError`` naming the file when it is not a
        tile model's."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            return cls._from_dict(data, path)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise ValueError(f"{path}: not a tile model's metadata (not JSON)") from None
        except (KeyError, TypeError, AttributeError) as err:
            raise ValueError(f"{path}: not a tile model's metadata (no {err})") from None

    @classmethod
    def _from_dict(cls, data: dict, path: Path) -> ModelInfo:
        labels = tuple(data["labels"])
        if labels != LABELS:
            raise ValueError(f"{path}: model labels do not match this version's LABELS")
        return cls(
            labels=labels,
            input_px=int(data["input_px"]),
            crop_span=float(data.get("crop_span", CROP_SPAN)),
            temperature=float(data["temperature"]),
            threshold=float(data["threshold"]),
            embedding_dim=int(data["embedding_dim"]),
            temperature_all_turns=float(data.get("temperature_all_turns", data["temperature"])),
            threshold_all_turns=float(data.get("threshold_all_turns", data["threshold"])),
            enrollment_value_scale=(
                float(data["enrollment_value_scale"]) if "enrollment_value_scale" in data else None
            ),
            enrollment_model=data.get("enrollment_model"),
            network_digest=data.get("network_digest"),
            same_network_as=tuple(data.get("same_network_as", ())),
            extra=data,
        )


def open_session(path: str | Path, threads: int = 1):
    """An onnxruntime session on the CPU for the model file at ``path``, set up as
    the live app runs it (``threads`` intra-op threads, no idle spinning)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = max(1, int(threads))
    options.inter_op_num_threads = 1
    # Idle spinning threads would burn the CPU the camera loop and web server need.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
    except Exception as err:  # onnxruntime's own exception types, one per failure
        reason = " ".join(str(err).split())[:160]
        raise ValueError(f"{path}: not an ONNX model onnxruntime can load ({reason})") from None
    outputs = {output.name for output in session.get_outputs()}
    if not {"logits", "embedding"} <= outputs:
        raise ValueError(f"{path}: not a setupcam tile model (no 'logits' and 'embedding' outputs)")
    return session


class TileRecognizer:
    """The tile classifier: an onnxruntime session plus its calibration, and
    optionally the user's enrolled tile set.

    Build it with :meth:`load`. ``threshold`` may be set per instance (e.g. a
    stricter reading), and :meth:`with_enrollment` gives the enrolment base reading an
    enrolled tile set.
    """

    def __init__(
        self,
        session,
        info: ModelInfo,
        enrollment=None,
        path: Path | None = None,
        model_digest: str | None = None,
        threads: int = 1,
        file_digest: str | None = None,
        enrolled_from: TileRecognizer | None = None,
    ) -> None:
        self.session = session
        self.path = path
        self.info = info
        self.model_digest = model_digest
        """Names the network (its layers and weights: ``tiles.json``'s
        ``network_digest``, else the start of the ONNX file's SHA-256), so that an
        enrolment is never read with a network it was not fitted on."""
        self.file_digest = file_digest
        """The start of the ONNX file's SHA-256: what enrolments made before session 18
        recorded, still accepted from this very file."""
        self.threads = threads
        self._enrolled_from = enrolled_from or self
        """Whose :meth:`enrollment_inputs` an enrolled set is read from: the reader
        (with this, its base) or this network alone."""
        if enrollment is not None:
            _check_made_with(enrollment, self, self._enrolled_from)
        self.enrollment = enrollment
        self.threshold = info.threshold if enrollment is None else enrollment.threshold
        """Below this a one-pass reading is "?"; may be set per instance."""
        own = info.threshold_all_turns if enrollment is None else None
        self.threshold_all_turns = self.threshold if own is None else own
        """Below this a reading at all four turns is "?" (an enrolled set has one
        threshold for both)."""
        self._input = session.get_inputs()[0].name
        self._takes_levels = takes_levels(session)
        self._enrollment_base: TileRecognizer | None = None

    @property
    def enrollment_base(self) -> TileRecognizer:
        """The network enrolment learns from and reads an enrolled set with: the one
        ``tiles.json`` names (opened on first use), else this one."""
        name = self.info.enrollment_model
        if name is None or self.path is None:
            return self
        if self._enrollment_base is None:
            path = self.path.parent / name
            if not path.is_file():
                raise FileNotFoundError(
                    2, f"the enrolment network {self.path.name} names is not beside it", str(path)
                )
            self._enrollment_base = TileRecognizer.load(path, threads=self.threads)
        return self._enrollment_base

    def with_enrollment(self, enrollment) -> TileRecognizer:
        """The enrolment base reading the tile set ``enrollment`` was made from, with
        this reader beside it if the enrolment reads both (onnxruntime sessions are
        shared, not opened again)."""
        base = self.enrollment_base
        if enrollment.reader_digest is not None and self is base:
            raise ValueError(
                "enrolment reads a reader's features beside this network's; "
                "load the reader (tiles.onnx) with it"
            )
        return TileRecognizer(
            base.session,
            base.info,
            enrollment,
            path=base.path,
            model_digest=base.model_digest,
            threads=base.threads,
            file_digest=base.file_digest,
            enrolled_from=self if enrollment.reader_digest is not None else base,
        )

    def enrollment_inputs(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """What enrolment learns a tile set from and reads it with, for N crops:
        ``(logits, features)``, the logits already divided by their temperature.

        A network that is its own enrolment base gives its own. A reader gives its
        base's and its own: the two networks' tempered logits averaged, and their
        features side by side, each scaled to length 1 (models/HISTORY.md,
        "Session 18": the reader's shape features halve the enrolled one-pass error).
        """
        base = self.enrollment_base
        logits, features = base.run(crops)
        logits = np.asarray(logits, np.float64) / base.info.temperature
        if base is self:
            return logits, features
        own_logits, own_features = self.run(crops)
        logits = (logits + np.asarray(own_logits, np.float64) / self.info.temperature) / 2
        return logits, np.hstack([unit_rows(features), unit_rows(own_features)])

    @classmethod
    def load(
        cls,
        model_path: str | Path | None = None,
        enrollment_path: str | Path | None = None,
        threads: int = 1,
        notice: Callable[[str], None] | None = None,
    ) -> TileRecognizer:
        """Open the model (default ``models/tiles.onnx`` with ``tiles.json`` beside it)
        and, if given, an enrolment file. ``threads`` is onnxruntime's intra-op count.

        An enrolment made with other networks is learnt again from the photos it keeps
        (:func:`vision.enrollment.enrolled_again`), written in its place with the old
        file kept (:func:`vision.enrollment.save_keeping_previous`), and ``notice`` is
        told so.

        >>> rec = TileRecognizer.load()
        >>> rec.info.input_px, len(rec.info.labels)
        (84, 52)
        """

        path = Path(model_path) if model_path is not None else DEFAULT_MODEL
        if not path.is_file():
            raise FileNotFoundError(2, "model file not found", str(path))
        meta = path.with_suffix(".json")
        if not meta.is_file():
            raise FileNotFoundError(
                2, "model metadata (.json beside the .onnx) not found", str(meta)
            )
        info = ModelInfo.load(meta)
        session = open_session(path, threads)
        file_digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        digest = info.network_digest or file_digest
        recognizer = cls(
            session,
            info,
            path=path,
            model_digest=digest,
            threads=threads,
            file_digest=file_digest,
        )
        if enrollment_path is None:
            return recognizer
        from vision.enrollment import Enrollment

        enrollment = Enrollment.load(enrollment_path)
        try:
            return recognizer.with_enrollment(enrollment)
        except ValueError as err:
            if enrollment.photos is None:
                raise ValueError(f"{enrollment_path}: {err}") from None
        renewed = _learnt_again(recognizer, Path(enrollment_path), enrollment, notice)
        return recognizer.with_enrollment(renewed)

    @property
    def crop_px(self) -> int:
        return self.info.input_px

    def run(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Raw model outputs ``(logits, embedding)`` for N crops (N x px x px x 3 BGR)."""
        crops = np.asarray(crops)
        if crops.ndim != 4 or crops.shape[1:] != (self.crop_px, self.crop_px, 3):
            raise ValueError(
                f"crops must be N x {self.crop_px} x {self.crop_px} x 3, not {crops.shape}"
            )
        x = network_input(crops, self._takes_levels)
        logits, embedding = self.session.run(None, {self._input: x})
        return logits, embedding

    def embed(self, crops: np.ndarray) -> np.ndarray:
        """The model's ``embedding`` output of each crop, N x D (the pooled features
        enrolment learns from)."""
        return self.run(crops)[1]

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        """Calibrated class probabilities over :data:`LABELS`, N x 52."""
        if self.enrollment is not None:
            logits, features = self._enrolled_from.enrollment_inputs(crops)
            probs = self.enrollment.probabilities(logits, features, colour_features(crops), 1.0)
            return self.enrollment.settle_by_templates(probs, crops)
        logits, _ = self.run(crops)
        return softmax(logits, self.info.temperature)

    def probabilities_all_turns(self, crops: np.ndarray) -> np.ndarray:
        """Like :meth:`probabilities`, from each crop read at all four quarter turns in
        one model call (logits averaged, then their own temperature): a tile may face
        any player, and the turns a reading does not depend on average out. Four times
        the work, so the live pipeline spends it on a steady view and on a frame's few
        doubtful squares, not on every square of every frame."""
        n = len(crops)
        turned = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(4)])
        if self.enrollment is not None:
            logits, features = self._enrolled_from.enrollment_inputs(turned)
            # The colour summary does not depend on a quarter turn: computed once.
            probs = self.enrollment.probabilities_all_turns(
                logits, features, colour_features(crops), 1.0
            )
            return self.enrollment.settle_by_templates(probs, crops)
        logits, _ = self.run(turned)
        mean_logits = logits.reshape(4, n, -1).mean(axis=0)
        return softmax(mean_logits, self.info.temperature_all_turns)

    def probabilities_with_second_look(
        self, crops: np.ndarray, limit: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """One pass, then up to ``limit`` crops left "?" and not taken for a hand read
        again at all four turns, the surest first (they are the likeliest to be
        settled): a frame's few doubtful squares get the better reading for a fraction
        of its cost. Returns the probabilities and each square's threshold (the
        second look's own for the squares read again)::

            probs, thresholds = rec.probabilities_with_second_look(crops, 3)
            readings = [Reading.of(p, t) for p, t in zip(probs, thresholds)]
        """
        probs = self.probabilities(crops)
        thresholds = np.full(len(probs), self.threshold)
        confidence, best = probs.max(axis=1), probs.argmax(axis=1)
        unsure = np.flatnonzero((confidence < self.threshold) & (best != COVERED))
        unsure = unsure[np.argsort(-confidence[unsure], kind="stable")][:limit]
        if len(unsure):
            probs[unsure] = self.probabilities_all_turns(crops[unsure])
            thresholds[unsure] = self.threshold_all_turns
        return probs, thresholds

    def read_crops(
        self, crops: np.ndarray, *, all_turns: bool = False, second_look: int = 0
    ) -> list[Reading]:
        """One :class:`Reading` per crop, from a single model call (at all four quarter
        turns with ``all_turns``: slower, better; for a photo or a steady view; read
        against :attr:`threshold_all_turns`).

        With ``second_look`` (and not ``all_turns``), up to that many doubtful crops are
        read again at all four turns, as :meth:`probabilities_with_second_look` says."""
        if all_turns:
            probs = self.probabilities_all_turns(crops)
            return [Reading.of(row, self.threshold_all_turns) for row in probs]
        if second_look:
            probs, thresholds = self.probabilities_with_second_look(crops, second_look)
        else:
            probs = self.probabilities(crops)
            thresholds = np.full(len(probs), self.threshold)
        return [Reading.of(row, t) for row, t in zip(probs, thresholds, strict=True)]

    def crops(self, image: np.ndarray, corners: np.ndarray, layout: Layout) -> np.ndarray:
        """The classifier's input crops of every square (layout order)."""
        return square_crops(image, corners, layout, self.crop_px, self.info.crop_span)

    def crop_px_per_px(self, corners: np.ndarray) -> float:
        """Crop pixels per frame pixel on the board with ``corners``: how large a smear
        of the frame is in its crops."""
        return self.crop_px / (self.info.crop_span * board_width_px(corners))

    def read_board_with_crops(
        self,
        image: np.ndarray,
        corners: np.ndarray,
        layout: Layout,
        *,
        all_turns: bool = False,
        second_look: int = 0,
    ) -> tuple[dict[str, Reading], np.ndarray]:
        """:meth:`read_board`, with the crops it read (layout order): the live pipeline
        keeps a steady view's frames' crops to look through them again."""
        crops = self.crops(image, corners, layout)
        readings = self.read_crops(crops, all_turns=all_turns, second_look=second_look)
        return dict(zip(layout.squares, readings, strict=True)), crops

    def read_board(
        self,
        image: np.ndarray,
        corners: np.ndarray,
        layout: Layout,
        *,
        all_turns: bool = False,
        second_look: int = 0,
    ) -> dict[str, Reading]:
        """Read every square of ``layout`` on the board with ``corners`` (NW, NE, SE,
        SW); ``all_turns`` and ``second_look`` as in :meth:`read_crops`."""
        readings, _ = self.read_board_with_crops(
            image, corners, layout, all_turns=all_turns, second_look=second_look
        )
        return readings


def _check_made_with(enrollment, base: TileRecognizer, source: TileRecognizer) -> None:
    """``ValueError`` unless ``enrollment`` was fitted on ``base``'s network, and on
    the reader ``source`` too if it reads one (files from before session 16 name no
    network: only their size is checked; files from sessions 16-17 name the network by
    its file's digest)."""
    paired = enrollment.reader_digest is not None
    width = base.info.embedding_dim + (source.info.embedding_dim if paired else 0)
    if enrollment.embedding_dim != width:
        why = f"embedding {enrollment.embedding_dim}, model {width}"
    elif not _may_name(enrollment.model_digest, base):
        why = f"network {enrollment.model_digest}, now {base.model_digest}"
    elif paired and not _may_name(enrollment.reader_digest, source):
        why = f"reader {enrollment.reader_digest}, now {source.model_digest}"
    else:
        return
    raise ValueError(f"enrolment was made with another model ({why}); run setupcam enroll again")


def _learnt_again(
    recognizer: TileRecognizer,
    path: Path,
    enrollment: Enrollment,
    notice: Callable[[str], None] | None,
) -> Enrollment:
    """The enrolment at ``path``, made with other networks, learnt again on
    ``recognizer``'s from the photos it keeps and written in its place if it can be;
    ``notice`` is told which."""
    from vision.enrollment import enrolled_again, save_keeping_previous

    try:
        renewed = enrolled_again(recognizer, enrollment)
    except ValueError as err:
        raise ValueError(f"{path}: cannot learn it again ({err})") from None
    try:
        kept = save_keeping_previous(renewed, path)
        where = f"the old file is kept as {kept.name}" if kept else "written in its place"
    except OSError as err:
        where = f"for this run only: it could not be written ({err.strerror or err})"
    if notice is not None:
        count = len(enrollment.photos.samples) if enrollment.photos else 0
        notice(f"{path}: made with other networks; learnt again from its {count} photos ({where})")
    return renewed


def _may_name(digest: str | None, recognizer: TileRecognizer) -> bool:
    """Whether ``digest`` (None: not recorded) may name ``recognizer``'s network."""
    names = {recognizer.model_digest, recognizer.file_digest, *recognizer.info.same_network_as}
    names -= {None}
    return digest is None or not names or digest in names
