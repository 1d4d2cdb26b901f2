"""The whole training recipe: render data, train, calibrate, export ONNX, evaluate.

``setupcam train`` calls :func:`train`. Everything is seeded, so one command
reproduces the two shipped networks (:data:`NETWORKS`): the *reader*
``models/tiles.onnx``, which reads the art it was trained on, and the *enrolment
base* ``models/enrollment-base.onnx``, whose features enrolment learns a user's own
tile set from. One recipe serves both but for its seed and how a tenth of the
crops lose their colours (models/HISTORY.md, "Session 17")::

    >>> cfg = quick_config()
    >>> cfg.train.tables, cfg.epochs
    (6, 1)
    >>> full_config("reader").colour_augment, full_config("enrollment-base").colour_augment
    ('grey', 'swap')

Steps: (1) crops of the training families (rendered once, cached under
``runs/data/``); (2) a :class:`~vision.training.model.TileNet` trained with AdamW
and a one-cycle learning rate on augmented batches (bfloat16 autocast: ~1.7x
faster on CPUs with AVX-512 BF16, weights kept in float32); (3) ONNX export
(``dynamo=False``) checked against torch, then quantised to int8
(:mod:`vision.training.quantize`), its ``embedding`` output rewired to the pooled
features enrolment learns from (:mod:`vision.training.outputs`) and its first layers
run on 2x2 blocks of pixels (:mod:`vision.training.space_to_depth`); (4) temperature
scaling and the "?" threshold fitted on validation frames (other seeds), on the
int8 model's outputs; (5) the final table, read through the shipped runtime
(:class:`vision.recognizer.TileRecognizer`) on test frames of the training
families and of the held-out family.
"""

from __future__ import annotations

import ctypes
import json
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import MISSING, asdict, dataclass, fields, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from vision.board_view import CROP_SPAN
from vision.network_input import network_feed
from vision.recognizer import LABELS, TileRecognizer, open_session, softmax
from vision.synth import HELDOUT_FAMILIES
from vision.training.augment import ColourAugment, NoiseBank, augment, augment_levels
from vision.training.digest import network_digest
from vision.training.evaluate import (
    choose_threshold,
    family_table,
    fit_temperature,
    format_table,
    time_call,
)
from vision.training.model import WIDTHS, TileNet, describe
from vision.training.outputs import pooled_features_as_embedding
from vision.training.provenance import training_host
from vision.training.quantize import quantize_model
from vision.training.space_to_depth import (
    BLOCKS_NOTE,
    FLOAT_INPUT,
    LEVELS_INPUT,
    first_layers_on_blocks,
)
from vision.training_data import (
    CACHE_DIR,
    CropSet,
    DataSpec,
    ProgressBar,
    cache_path,
    default_workers,
    load_or_generate,
    render_pool,
)


@dataclass(frozen=True)
class TrainConfig:
    """A full recipe. Data specs name their seeds; ``seed`` drives weights and batches."""

    train: DataSpec
    val: DataSpec
    test: DataSpec
    heldout: DataSpec
    epochs: int
    batch: int = 128
    lr: float = 4e-3
    weight_decay: float = 5e-4
    label_smoothing: float = 0.05
    seed: int = 0
    threads: int = 1  # 2 torch threads on a shared 2-core machine run 8x slower
    bf16: bool = True  # bfloat16 autocast in training
    int8: bool = True  # ship the network quantised to 8-bit integers
    colour_augment: ColourAugment = "swap"  # see vision.training.augment
    # The first ``small_crop_epochs`` see the crops resampled to ``small_crop_px``: a
    # step there costs 0.58 of one at full size. The shipped recipe has none: 20 of 32
    # fit the time budget but read clearly worse (models/HISTORY.md, "Session 25").
    small_crop_px: int = 64
    small_crop_epochs: int = 0
    # The two changes that train the shipped recipe within the hour (session 28; the
    # defaults are session 17's recipe): no batch norm in the full-resolution layer
    # (vision.training.model), and the augmentation made on the 8-bit crops
    # (vision.training.augment).
    full_res_batch_norm: bool = True
    augment_levels: bool = False
    # The share of crops smeared by a moving camera on top of the simulator's own
    # motion blur (vision.training.augment.motion_kernel; needs augment_levels). The
    # shipped reader's 15% since session 35; none for the enrolment base, which enrolled
    # no better with it (models/HISTORY.md, "Session 30").
    motion_blur: float = 0.0
    # The channels of the stride-2 stem and of each stage (vision.training.model). The
    # shipped reader's stem is 16 wide: 12 squares in 2.66 ms instead of 3.13 ms
    # (docs/benchmarks.md), and, trained on smeared crops, it reads one frame better
    # (models/HISTORY.md, "Session 35").
    widths: tuple[int, ...] = WIDTHS

    def __post_init__(self) -> None:
        if self.motion_blur and not self.augment_levels:
            raise ValueError("motion_blur needs augment_levels (the 8-bit augmentation)")


NOISE_BANK_CROPS = 2048
"""Noise crops drawn once per run by ``augment_levels`` (about 170 MB at 84 px)."""
RECIPES = ("shipped", "session-28", "session-17")
"""``full_config``'s recipes: the one that trained the shipped networks (session 35:
a narrower reader trained on smeared crops), session 28's, which trained the networks
shipped in sessions 28-34 within the hour on two cores, and session 17's, which
trained those shipped in sessions 17-27 in about 63 minutes (models/HISTORY.md,
"Session 28")."""
READER_WIDTHS = (16, 32, 64, 128)
"""The shipped reader's widths: a stem of 16 channels where the enrolment base has 24."""
NETWORKS = ("reader", "enrollment-base")
"""The shipped networks, by what they do."""
MODEL_FILES = {"reader": "tiles.onnx", "enrollment-base": "enrollment-base.onnx"}
"""Each network's ONNX file name in the output directory (its ``.json`` beside it)."""


def full_config(network: str = "reader", recipe_name: str = "shipped") -> TrainConfig:
    """A shipped network's recipe: the reader's crops turn grey where the enrolment
    base's swap colour channels, and each keeps its seed (models/HISTORY.md, "Session
    17"). Since session 28 the networks train 30 epochs, without batch norm in the
    full-resolution layer and augmented from the 8-bit crops; ``"session-17"``, the
    recipe of the networks shipped before, 32 epochs with both. The shipped reader
    (session 35) has a narrower stem and 15% of its crops smeared, and its own seed::

    >>> full_config("reader").epochs, full_config("reader").full_res_batch_norm
    (30, False)
    >>> full_config("reader").widths, full_config("reader").motion_blur
    ((16, 32, 64, 128), 0.15)
    >>> full_config("reader", "session-28").widths
    (24, 32, 64, 128)
    >>> old = full_config("reader", "session-17")
    >>> old.epochs, old.full_res_batch_norm, old.augment_levels
    (32, True, False)
    """
    if network not in NETWORKS:
        raise ValueError(f"network must be one of {NETWORKS}, not {network!r}")
    if recipe_name not in RECIPES:
        raise ValueError(f"recipe must be one of {RECIPES}, not {recipe_name!r}")
    recipe = TrainConfig(
        train=DataSpec(name="train", seed=1000, tables=700, views=6),
        # The "?" threshold allows 1 confident error in 2,000 validation squares, so it
        # is set by the validation set's few most confident errors; those come a few
        # at a time from one tile set (same-coloured suits drawn small), so what counts
        # is the number of tile sets, not of frames: 1,200 tables seen once each.
        val=DataSpec(name="val", seed=2000, tables=1200, views=1),
        test=DataSpec(name="test", seed=3000, tables=60, views=4),
        heldout=DataSpec(name="heldout", seed=4000, tables=30, views=4, families=HELDOUT_FAMILIES),
        epochs=32,
    )
    if recipe_name != "session-17":
        recipe = replace(recipe, epochs=30, full_res_batch_norm=False, augment_levels=True)
    if network != "reader":
        return recipe
    if recipe_name == "shipped":
        return replace(
            recipe, seed=3, colour_augment="grey", motion_blur=0.15, widths=READER_WIDTHS
        )
    return replace(recipe, seed=2, colour_augment="grey")


def quick_config(network: str = "reader", recipe_name: str = "shipped") -> TrainConfig:
    """A smoke run (CI): a few hundred crops, one epoch, with ``network``'s colour
    augmentation and the network and augmentation of ``recipe_name``."""
    small = ((640, 360),)
    recipe = TrainConfig(
        train=DataSpec(name="q-train", seed=1000, tables=6, views=4, resolutions=small),
        val=DataSpec(name="q-val", seed=2000, tables=2, views=2, resolutions=small),
        test=DataSpec(name="q-test", seed=3000, tables=2, views=2, resolutions=small),
        heldout=DataSpec(
            name="q-heldout",
            seed=4000,
            tables=1,
            views=2,
            resolutions=small,
            families=HELDOUT_FAMILIES,
        ),
        epochs=1,
        batch=64,
    )
    full = full_config(network, recipe_name)
    return replace(
        recipe,
        colour_augment=full.colour_augment,
        full_res_batch_norm=full.full_res_batch_norm,
        augment_levels=full.augment_levels,
        motion_blur=full.motion_blur,
        widths=full.widths,
    )


def _log(message: str, quiet: bool) -> None:
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def keep_freed_memory() -> bool:
    """Ask glibc to keep freed memory instead of giving it back to the system.

    Every training step frees and re-allocates the same large activations. By
    default glibc hands such blocks back to the kernel, so each step page-faults
    them in again: the session-6 training run spent 583 s of its 55 minutes in the
    kernel, a session-7 run with this 5 s. Weights and results are unchanged (only
    where memory comes from). Returns False where there is no glibc (nothing done).
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
    # Setting the trim threshold freezes glibc's adaptive mmap threshold at 128 KiB,
    # so the mmap threshold must be raised with it (32 MiB is glibc's ceiling).
    return bool(
        libc.mallopt(m_mmap_threshold, 32 << 20)
        and libc.mallopt(m_trim_threshold, 1 << 30)
        and libc.mallopt(m_top_pad, 256 << 20)
    )


def fit_model(net: TileNet, data: CropSet, cfg: TrainConfig, progress: bool = True) -> list[float]:
    """Train ``net`` in place; returns the mean loss of each epoch."""
    keep_freed_memory()
    gen = torch.Generator().manual_seed(cfg.seed)
    x = torch.from_numpy(data.x)
    y = torch.from_numpy(data.y.astype(np.int64))
    steps_per_epoch = max(1, len(y) // cfg.batch)
    total = steps_per_epoch * cfg.epochs
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=cfg.lr, total_steps=total, pct_start=0.15
    )
    bank = NoiseBank(NOISE_BANK_CROPS, x.shape[1], gen) if cfg.augment_levels else None
    bar = ProgressBar("train", total, enabled=progress)
    losses, step = [], 0
    # channels-last: torch's CPU convolutions train ~1.2-1.4x faster than on NCHW
    net.to(memory_format=torch.channels_last)
    net.train()
    for epoch in range(cfg.epochs):
        out_px = cfg.small_crop_px if epoch < cfg.small_crop_epochs else None
        order = torch.randperm(len(y), generator=gen)
        running, correct, seen = 0.0, 0, 0
        for b in range(steps_per_epoch):
            idx = order[b * cfg.batch : (b + 1) * cfg.batch]
            if bank is None:
                xb = augment(x[idx].float(), gen, colour=cfg.colour_augment, out_px=out_px)
            else:
                xb = augment_levels(
                    x[idx],
                    gen,
                    bank,
                    colour=cfg.colour_augment,
                    out_px=out_px,
                    motion_blur=cfg.motion_blur,
                )
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=cfg.bf16):
                logits, _ = net(xb)
            logits = logits.float()
            loss = F.cross_entropy(logits, y[idx], label_smoothing=cfg.label_smoothing)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            running += float(loss.detach()) * len(idx)
            correct += int((logits.argmax(1) == y[idx]).sum())
            seen += len(idx)
            bar.update(
                step,
                f"epoch {epoch + 1}/{cfg.epochs} loss {running / seen:.3f} "
                f"acc {correct / seen:.3f}",
            )
        losses.append(running / max(1, seen))
    bar.close()
    net.to(memory_format=torch.contiguous_format)
    net.eval()
    return losses


@torch.no_grad()
def predict_logits(net: TileNet, x: np.ndarray, batch: int = 512) -> np.ndarray:
    net.eval()
    out = [
        net(torch.from_numpy(x[i : i + batch]).float())[0].numpy() for i in range(0, len(x), batch)
    ]
    return np.concatenate(out) if out else np.zeros((0, len(LABELS)), np.float32)


def export_onnx(net: TileNet, path: Path, crop_px: int) -> None:
    """Write ``net`` as ONNX (outputs ``logits``, ``embedding``; batch axis dynamic)."""
    net.eval()
    dummy = torch.zeros(12, crop_px, crop_px, 3)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        net,
        (dummy,),
        str(path),
        dynamo=False,  # the dynamo exporter needs onnxscript and gives bigger graphs
        input_names=["crops"],
        output_names=["logits", "embedding"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}, "embedding": {0: "n"}},
        opset_version=17,
    )


def onnx_logits(path: Path, x: np.ndarray, batch: int = 512) -> np.ndarray:
    """Logits of the ONNX model at ``path``, run as the runtime runs it (before its
    ``tiles.json`` exists, so without :class:`TileRecognizer`)."""
    session = open_session(path)
    out = [
        session.run(["logits"], network_feed(session, x[i : i + batch]))[0]
        for i in range(0, len(x), batch)
    ]
    return np.concatenate(out) if out else np.zeros((0, len(LABELS)), np.float32)


def onnx_logits_each_turn(path: Path, x: np.ndarray) -> list[np.ndarray]:
    """Logits of the crops ``x`` at each quarter turn (0, 90, 180, 270 degrees)."""
    return [onnx_logits(path, np.ascontiguousarray(np.rot90(x, k, axes=(1, 2)))) for k in range(4)]


def train(
    cfg: TrainConfig,
    out_dir: Path,
    quiet: bool = False,
    cache_dir: Path = CACHE_DIR,
    workers: int | None = None,
    network: str = "reader",
    datasets: dict[str, CropSet] | None = None,
) -> dict:
    """Run the whole recipe and write ``out_dir/`` the ``network``'s ONNX file
    (:data:`MODEL_FILES`) and its ``.json``. The reader's names the enrolment base
    beside it. Returns the metadata written (with the metrics); prints the final table.
    ``workers`` render processes for crops not cached yet (default
    :func:`vision.training_data.default_workers`; the crops do not depend on it).
    ``datasets``: the recipe's crop sets when the caller has them (:func:`render_data`)."""
    if network not in NETWORKS:
        raise ValueError(f"network must be one of {NETWORKS}, not {network!r}")
    t_start = time.perf_counter()
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    progress = not quiet
    if datasets is None:
        datasets = render_data(cfg, cache_dir, progress=progress, workers=workers)
    train_data = datasets[cfg.train.name]
    t_data = time.perf_counter() - t_start
    _log(f"data: {len(train_data)} training crops ({t_data:.0f} s)", quiet)

    crop_px = cfg.train.crop_px
    net = TileNet(widths=cfg.widths, full_res_batch_norm=cfg.full_res_batch_norm)
    losses = fit_model(net, train_data, cfg, progress=progress)
    t_train = time.perf_counter() - t_start - t_data

    onnx_path = Path(out_dir) / MODEL_FILES[network]
    onnx_path.parent.mkdir(parents=True, exist_ok=True)
    val = datasets[cfg.val.name]
    with tempfile.TemporaryDirectory() as tmp:
        fp32_path = Path(tmp) / "tiles_fp32.onnx"
        export_onnx(net, fp32_path, crop_px)
        exported, trained = onnx_logits(fp32_path, val.x[:12]), predict_logits(net, val.x[:12])
        drift = float(np.abs(exported - trained).max())
        if drift > 1e-2:
            raise RuntimeError(f"ONNX export differs from torch by {drift:.3g}")
        if cfg.int8:
            _log("quantising to int8", quiet)
            quantize_model(fp32_path, onnx_path, train_data.x, seed=cfg.seed)
        else:
            onnx_path.write_bytes(fp32_path.read_bytes())
    pooled_features_as_embedding(onnx_path)
    if cfg.int8:
        first_layers_on_blocks(onnx_path)  # the same outputs, sooner

    meta = calibrate_and_evaluate(onnx_path, cfg, datasets)
    if network == "reader":
        meta["enrollment_model"] = MODEL_FILES["enrollment-base"]
    meta["epoch_losses"] = [round(v, 4) for v in losses]
    # The CPU's kernels decide the network's last bits (vision.training.provenance).
    meta["trained_on"] = training_host()
    elapsed = time.perf_counter() - t_start
    meta["metrics"]["seconds"] = {
        "data": round(t_data),
        "train": round(t_train),
        "total": round(elapsed),
    }
    onnx_path.with_suffix(".json").write_text(
        json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"total {elapsed / 60:.1f} min")
    return meta


def render_data(
    cfg: TrainConfig, cache_dir: Path = CACHE_DIR, progress: bool = True, workers: int | None = None
) -> dict[str, CropSet]:
    """The recipe's crop sets by name, rendered once and cached (both networks train
    on the same crops). The sets not cached yet share one pool of render processes."""
    specs = (cfg.train, cfg.val, cfg.test, cfg.heldout)
    workers = default_workers() if workers is None else workers
    missing = [spec for spec in specs if not cache_path(spec, cache_dir).exists()]
    with ExitStack() as stack:
        pool = stack.enter_context(render_pool(workers)) if workers > 1 and missing else None
        return {
            spec.name: load_or_generate(
                spec, cache_dir, progress=progress, workers=workers, pool=pool
            )
            for spec in specs
        }


def calibrate_and_evaluate(onnx_path: Path, cfg: TrainConfig, datasets: dict[str, CropSet]) -> dict:
    """Fit the shipped model's temperature and "?" threshold on the validation crops
    (on its own outputs, as it will run), write ``tiles.json`` beside it, then print
    the final table, read through the shipped runtime. Returns the metadata.

    Apart from the ranges of its int8 activations, nothing of the network depends on
    the validation set, so a better validation set can be applied to a trained
    network by running just this step again.
    """
    crop_px = cfg.train.crop_px
    val = datasets[cfg.val.name]
    y, top = val.y.astype(np.int64), val.top.astype(np.int64)
    turns = onnx_logits_each_turn(onnx_path, val.x)
    temperature = fit_temperature(turns[0], y)
    # A tile may face any player, so the threshold must hold whichever way the crop
    # is turned: the crops read at each quarter turn count as four validation sets
    # (models/HISTORY.md, "Session 17": one turn alone let a network answer 8 and 6
    # of one tile confidently).
    threshold = choose_threshold(
        softmax(np.concatenate(turns), temperature), np.tile(y, 4), top=np.tile(top, 4)
    )
    # The mean of four turns' logits is steadier than one pass's, so it has its own
    # temperature (by likelihood, as the first) and its own "?" threshold, held to the
    # same rate of confident errors on its own readings: held to the one-pass
    # threshold, the live app's second looks left squares "?" that the four turns
    # read right (models/HISTORY.md, "Session 28").
    mean_logits = np.mean(turns, axis=0)
    temperature_all_turns = fit_temperature(mean_logits, y)
    threshold_all_turns = choose_threshold(softmax(mean_logits, temperature_all_turns), y, top=top)

    meta = {
        "labels": list(LABELS),
        "input_px": crop_px,
        "input": LEVELS_INPUT if cfg.int8 else FLOAT_INPUT,
        "outputs": ["logits", "embedding"],
        "crop_span": CROP_SPAN,
        "temperature": round(temperature, 5),
        "temperature_all_turns": round(temperature_all_turns, 5),
        "threshold": round(threshold, 6),
        "threshold_all_turns": round(threshold_all_turns, 6),
        "embedding_dim": cfg.widths[-1],
        "embedding": "the pooled features under the embedding layer (vision.training.outputs)",
        "architecture": describe(widths=cfg.widths, full_res_batch_norm=cfg.full_res_batch_norm)
        + (BLOCKS_NOTE if cfg.int8 else ""),
        "network_digest": network_digest(onnx_path),
        "recipe": _recipe(cfg),
    }
    meta_path = onnx_path.with_suffix(".json")
    meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

    # Final evaluation through the shipped runtime, exactly as recognize will read.
    rec = TileRecognizer.load(onnx_path, threads=1)
    rows = []
    for name in (cfg.test.name, cfg.heldout.name):
        data = datasets[name]
        probs = rec.probabilities(data.x)
        rows += family_table(
            probs, data.y, data.family, rec.threshold, prefix=f"{name}: ", top=data.top
        )
    sample = datasets[cfg.test.name].x[:12]
    speed = time_call(lambda: rec.read_crops(sample), repeats=100, warmup=10)
    meta["metrics"] = {
        "rows": [asdict(r) for r in rows],
        "speed_12_squares_1_thread": speed,
    }
    meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(format_table(rows))
    print(
        f"temperature {temperature:.3f}  threshold {threshold:.4f} (four turns "
        f"{threshold_all_turns:.4f})  "
        f"12 squares: {speed['median_ms']:.2f} ms median, {speed['p95_ms']:.2f} ms p95 (1 thread)  "
        f"size {onnx_path.stat().st_size / 1e6:.2f} MB"
    )
    return meta


def _recipe(cfg: TrainConfig) -> dict:
    d = asdict(cfg)
    for key in ("train", "val", "test", "heldout"):
        spec = getattr(cfg, key)
        d[key]["cache_key"] = spec.key()
    return d


def recipe_defaults() -> dict:
    """The ``TrainConfig`` fields that have a default, with it: what a recipe written
    before a field existed trained with."""
    return {f.name: f.default for f in fields(TrainConfig) if f.default is not MISSING}


def with_epochs(cfg: TrainConfig, epochs: int) -> TrainConfig:
    """``cfg`` over ``epochs``, the same share of them on small crops::

    >>> with_epochs(replace(full_config(), small_crop_epochs=15), 16).small_crop_epochs
    8
    """
    small = round(cfg.small_crop_epochs * epochs / cfg.epochs)
    return replace(cfg, epochs=epochs, small_crop_epochs=small)
