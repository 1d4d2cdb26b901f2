"""Training smoke run (CI): a few hundred crops, one epoch, an ONNX the runtime loads.

Needs the ``train`` extra (torch), which scripts/setup-env.sh installs for CI.
"""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path

import numpy as np

from vision.recognizer import COVERED, LABELS, TileRecognizer
from vision.training.digest import network_digest
from vision.training.evaluate import choose_threshold, fit_temperature, score
from vision.training_data import CropSet, DataSpec, generate, load_or_generate


def test_data_is_reproducible_and_cached(tmp_path: Path) -> None:
    spec = DataSpec(name="t", seed=5, tables=1, views=2, resolutions=((640, 360),))
    first = load_or_generate(spec, tmp_path, progress=False)
    assert first.x.shape == (24, 84, 84, 3) and first.y.max() < len(LABELS)
    assert len(list(tmp_path.glob("t-*.npz"))) == 1
    cached = load_or_generate(spec, tmp_path, progress=False)
    fresh = generate(spec, progress=False)
    assert np.array_equal(cached.x, fresh.x) and np.array_equal(cached.y, fresh.y)
    both = CropSet.concat([first, fresh])
    assert len(both) == 48 and both.frame.max() == 3


def test_parallel_rendering_gives_the_same_crops() -> None:
    spec = DataSpec(name="p", seed=9, tables=3, views=2, resolutions=((640, 360),))
    serial = generate(spec, progress=False, workers=1)
    parallel = generate(spec, progress=False, workers=2)
    for field in fields(CropSet):
        a, b = getattr(serial, field.name), getattr(parallel, field.name)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), field.name
    assert serial.frame.max() == 5


def test_crops_know_the_tile_under_a_hand_and_how_hard_the_frame_was() -> None:
    spec = DataSpec(name="h", seed=3, tables=4, views=2, resolutions=((640, 360),), hand_rate=1.0)
    data = generate(spec, progress=False, workers=1)
    covered = data.y == COVERED
    assert covered.any() and (data.coverage[covered] >= 0.2).all()
    # Without a hand a square's label is its top; under one, the tile or empty lying there.
    assert np.array_equal(data.top[~covered], data.y[~covered])
    assert (data.top[covered] != COVERED).all()
    assert np.all(np.diff(data.board_px.reshape(-1, 12), axis=1) == 0)  # one value per frame
    assert data.board_px.min() > 100 and data.board_px.max() < 640


def test_calibration_helpers() -> None:
    rng = np.random.default_rng(1)
    y = rng.integers(0, 52, 2000)
    logits = 6 * np.eye(52)[y] + rng.normal(0, 1.5, (2000, 52))
    t = fit_temperature(logits, y)
    probs = np.exp(logits / t) / np.exp(logits / t).sum(1, keepdims=True)
    threshold = choose_threshold(probs, y, max_wrong=0.001)
    s = score("x", probs, y, threshold)
    assert s.confident_wrong <= 0.001 + 1e-12 and 0 <= s.unknown < 1


def test_quick_training_run_exports_a_working_model(tmp_path: Path) -> None:
    from vision.training.fit import quick_config, train

    cfg = quick_config()
    meta = train(cfg, tmp_path / "model", quiet=True, cache_dir=tmp_path / "cache")
    onnx_path = tmp_path / "model" / "tiles.onnx"
    assert onnx_path.is_file() and onnx_path.stat().st_size < 5_000_000
    saved = json.loads(onnx_path.with_suffix(".json").read_text(encoding="utf-8"))
    assert saved["labels"] == list(LABELS) and saved["temperature"] > 0
    assert saved["temperature_all_turns"] > 0
    assert 0.5 <= saved["threshold_all_turns"] < 1
    assert 0.5 <= saved["threshold"] < 1 and meta["metrics"]["rows"]
    rec = TileRecognizer.load(onnx_path)
    crops = np.zeros((12, rec.crop_px, rec.crop_px, 3), np.uint8)
    assert len(rec.read_crops(crops)) == 12
    assert rec.embed(crops).shape == (12, saved["embedding_dim"])
    assert saved["embedding_dim"] == 128  # the pooled features, not the 96-wide layer
    assert len(saved["epoch_losses"]) == 1


def test_the_first_epochs_train_on_small_crops_and_the_rest_at_full_size() -> None:
    import torch

    from vision.training.fit import fit_model, quick_config
    from vision.training.model import TileNet
    from vision.training_data import CropSet

    sizes: list[int] = []

    class Recording(TileNet):
        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            sizes.append(x.shape[1])
            return super().forward(x)

    rng = np.random.default_rng(0)
    zeros = np.zeros(16, np.int32)
    data = CropSet(
        x=rng.integers(0, 256, (16, 84, 84, 3), dtype=np.uint8),
        y=rng.integers(0, 52, 16).astype(np.int16),
        family=zeros,
        frame=zeros,
        coverage=zeros.astype(np.float32),
        top=zeros,
        board_px=zeros,
        motion_blur=zeros,
    )
    cfg = replace(quick_config(), epochs=3, small_crop_epochs=2, small_crop_px=40, batch=8)
    losses = fit_model(Recording(), data, cfg, progress=False)
    assert len(losses) == 3 and sizes == [40, 40, 40, 40, 84, 84]


def test_embedding_output_is_the_pooled_features_and_the_logits_do_not_change(
    tmp_path: Path,
) -> None:
    import onnxruntime as ort
    import torch

    from vision.training.fit import export_onnx
    from vision.training.model import MEAN, STD, TileNet
    from vision.training.outputs import pooled_features_as_embedding

    torch.manual_seed(0)
    net = TileNet().eval()
    path = tmp_path / "net.onnx"
    export_onnx(net, path, 56)
    x = np.random.default_rng(0).uniform(0, 255, (5, 56, 56, 3)).astype(np.float32)
    before = ort.InferenceSession(str(path)).run(None, {"crops": x})
    pooled_features_as_embedding(path)
    session = ort.InferenceSession(str(path))
    assert [o.name for o in session.get_outputs()] == ["logits", "embedding"]
    logits, features = session.run(None, {"crops": x})
    with torch.no_grad():
        t = (torch.from_numpy(x).permute(0, 3, 1, 2) - MEAN) / STD
        expected = net.features(t).mean(dim=(2, 3)).numpy()
    assert features.shape == (5, 128) and before[1].shape == (5, 96)
    np.testing.assert_allclose(features, expected, atol=1e-4)
    np.testing.assert_array_equal(logits, before[0])


def test_int8_model_computes_what_the_float_model_does(tmp_path: Path) -> None:
    import onnx
    import torch

    from vision.training.fit import export_onnx, onnx_logits
    from vision.training.model import TileNet
    from vision.training.quantize import quantize_model

    torch.manual_seed(0)
    spec = DataSpec(name="q8", seed=8, tables=2, views=2, resolutions=((640, 360),))
    crops = load_or_generate(spec, tmp_path, progress=False).x
    float_path, int8_path = tmp_path / "float.onnx", tmp_path / "int8.onnx"
    export_onnx(TileNet().eval(), float_path, crops.shape[1])
    quantize_model(float_path, int8_path, crops)
    ops = {node.op_type for node in onnx.load(str(int8_path)).graph.node}
    assert {"QuantizeLinear", "DequantizeLinear"} <= ops
    exact, quantised = onnx_logits(float_path, crops), onnx_logits(int8_path, crops)
    # An untrained network's logits, so only the arithmetic is compared: close to
    # the float model's, far closer than the logits' own spread.
    error = np.abs(quantised - exact).mean()
    assert error < 0.1 * exact.std()
    assert np.corrcoef(quantised.ravel(), exact.ravel())[0, 1] > 0.98


def test_first_layers_on_blocks_compute_the_same_network_to_the_last_bit(tmp_path: Path) -> None:
    import shutil

    import onnx
    import pytest
    import torch

    from vision.network_input import network_feed, takes_levels
    from vision.recognizer import open_session
    from vision.training.fit import export_onnx
    from vision.training.model import TileNet
    from vision.training.outputs import pooled_features_as_embedding
    from vision.training.quantize import quantize_model
    from vision.training.space_to_depth import first_layers_on_blocks, main

    torch.manual_seed(1)
    spec = DataSpec(name="q8", seed=8, tables=2, views=2, resolutions=((640, 360),))
    crops = load_or_generate(spec, tmp_path, progress=False).x
    float_path, full, blocks = (tmp_path / n for n in ("f.onnx", "full.onnx", "blocks.onnx"))
    export_onnx(TileNet().eval(), float_path, crops.shape[1])
    quantize_model(float_path, full, crops)
    pooled_features_as_embedding(full)
    shutil.copy(full, blocks)
    first_layers_on_blocks(blocks)
    ops = {path: [n.op_type for n in onnx.load(str(path)).graph.node] for path in (full, blocks)}
    assert "SpaceToDepth" in ops[blocks] and "SpaceToDepth" not in ops[full]
    assert not takes_levels(open_session(full)) and takes_levels(open_session(blocks))
    turned = np.concatenate([crops, np.rot90(crops, 1, axes=(1, 2))])
    # 8-bit crops, as the camera gives them, and float ones between grey levels.
    between = turned + np.random.default_rng(2).uniform(-2, 2, turned.shape).astype(np.float32)
    for x in (turned, np.clip(between, 0, 255)):
        before, after = (
            open_session(path).run(None, network_feed(open_session(path), x))
            for path in (full, blocks)
        )
        np.testing.assert_array_equal(after[0], before[0])  # the logits, to the last bit
        np.testing.assert_array_equal(after[1], before[1])  # the features enrolment reads
    with pytest.raises(ValueError, match="already on blocks"):
        first_layers_on_blocks(blocks)
    # The command rewrites a network trained before, keeping its old name beside the new.
    shutil.copy(full, tmp_path / "old.onnx")
    (tmp_path / "old.json").write_text(json.dumps({"architecture": "TileNet"}), encoding="utf-8")
    old_digest = network_digest(tmp_path / "old.onnx")
    assert main([str(tmp_path / "old.onnx")]) == 0
    meta = json.loads((tmp_path / "old.json").read_text(encoding="utf-8"))
    assert meta["same_network_as"] == [old_digest]
    assert meta["network_digest"] == network_digest(tmp_path / "old.onnx") != old_digest
    assert main([str(tmp_path / "old.onnx")]) == 2  # already rewritten: one line, no change
    assert main([str(tmp_path / "missing.onnx")]) == 2


def _augmented(form: str, x, seed: int = 0, colour: str = "swap"):  # type: ignore[no-untyped-def]
    """``x`` (uint8 crops) augmented by the float form or from the 8-bit levels."""
    import torch

    from vision.training.augment import NoiseBank, augment, augment_levels

    gen = torch.Generator().manual_seed(seed)
    if form == "float":
        return augment(x.float(), gen, colour=colour)  # type: ignore[arg-type]
    bank = NoiseBank(64, x.shape[1], gen)
    return augment_levels(x, gen, bank, colour=colour)  # type: ignore[arg-type]


def test_colour_augment_greys_or_swaps_a_tenth_of_the_crops() -> None:
    import pytest
    import torch

    from vision.training.augment import augment

    red = torch.zeros(400, 24, 24, 3, dtype=torch.uint8)
    red[..., 2] = 200  # BGR: pure red tiles
    for form in ("float", "levels"):
        for colour in ("grey", "swap"):
            out = _augmented(form, red, colour=colour)
            means = out.mean(dim=(1, 2))  # N x 3
            grey = (means.max(1).values - means.min(1).values) < 12
            not_red = means[:, 2] < means[:, :2].max(1).values
            if colour == "grey":
                assert 20 <= int(grey.sum()) <= 70 and not (not_red & ~grey).any()
            else:
                assert not grey.any() and 20 <= int(not_red.sum()) <= 70
    with pytest.raises(ValueError, match="colour must be"):
        augment(red.float(), torch.Generator().manual_seed(0), colour="sepia")  # type: ignore[arg-type]


def test_augmenting_from_the_levels_changes_light_turn_and_noise_as_the_float_form_does() -> None:
    import torch

    # Crops with a bright corner mark: where it ends up shows the turn, and the
    # spread of brightness and contrast shows the light.
    x = torch.full((2000, 32, 32, 3), 100, dtype=torch.uint8)
    x[:, 2:10, 2:10] = 220
    stats = {}
    for form in ("float", "levels"):
        out = _augmented(form, x, seed=1)
        assert out.shape == x.shape and out.dtype == torch.float32
        assert float(out.min()) >= 0 and float(out.max()) <= 255
        corners = torch.stack(
            [
                out[:, :12, :12].mean((1, 2, 3)),
                out[:, :12, -12:].mean((1, 2, 3)),
                out[:, -12:, -12:].mean((1, 2, 3)),
                out[:, -12:, :12].mean((1, 2, 3)),
            ],
            1,
        )
        turns = torch.bincount(corners.argmax(1), minlength=4) / len(x)
        background = out[:, 14:30, 14:30].mean((1, 2, 3))
        contrast = corners.max(1).values - background
        # Sensor noise: the spread left in a flat patch after its mean.
        flat = out[:, 16:28, 16:28]
        noise = (flat - flat.mean((1, 2), keepdim=True)).std((1, 2, 3))
        stats[form] = (turns, background, contrast, noise)
    (t0, b0, c0, n0), (t1, b1, c1, n1) = stats["float"], stats["levels"]
    assert torch.all((t1 - 0.25).abs() < 0.04) and torch.all((t0 - 0.25).abs() < 0.04)
    for a, b in ((b0, b1), (c0, c1), (n0, n1)):
        # The same ranges: the same mean and spread over the crops, within sampling.
        assert abs(float(a.mean() - b.mean())) < 0.05 * float(a.mean())
        assert abs(float(a.std() - b.std())) < 0.1 * float(a.std())


def test_a_motion_kernel_is_a_line_of_its_length_at_its_angle() -> None:
    from vision.training.augment import motion_kernel

    for length in (3.0, 6.5, 10.0):
        for angle in (0.0, np.pi / 4, np.pi / 2, 2.0):
            k = motion_kernel(length, angle).astype(np.float64)
            assert abs(k.sum() - 1) < 1e-5 and k.min() >= 0
            ys, xs = np.mgrid[: k.shape[0], : k.shape[1]] - k.shape[0] // 2
            along = xs * np.cos(angle) + ys * np.sin(angle)
            across = -xs * np.sin(angle) + ys * np.cos(angle)
            # The mass sits on the line through the centre, spread as a uniform
            # segment of that length is (variance L^2 / 12), and barely across it.
            assert abs((k * along).sum()) < 0.05
            spread = np.sqrt((k * along**2).sum())
            assert abs(spread - length / np.sqrt(12)) < 0.25, (length, angle, spread)
            assert np.sqrt((k * across**2).sum()) < 0.45


def test_the_levels_form_smears_the_share_of_crops_it_is_asked_to() -> None:
    import pytest
    import torch

    from vision.training.augment import NoiseBank, augment_levels
    from vision.training.fit import full_config

    # A bright dot: a smear spreads it over many pixels; light, turn and focus do not.
    x = torch.full((2000, 32, 32, 3), 30, dtype=torch.uint8)
    x[:, 15:17, 15:17] = 255
    spread_out = {}
    for share in (0.0, 0.3, 1.0):
        gen = torch.Generator().manual_seed(3)
        bank = NoiseBank(64, 32, gen)
        out = augment_levels(x, gen, bank, colour="grey", motion_blur=share).mean(3)
        dot = (out - out.flatten(1).median(1).values.view(-1, 1, 1)).clamp(min=0)
        bright = dot > 0.25 * dot.flatten(1).max(1).values.view(-1, 1, 1)
        spread_out[share] = float((bright.flatten(1).sum(1) > 12).float().mean())
    # Smears of 3 px over a 2-px dot stay small: about 0.7 of the smeared crops show.
    assert spread_out[0.0] == 0
    assert 0.15 < spread_out[0.3] < 0.3 and spread_out[1.0] > 0.6
    with pytest.raises(ValueError, match="needs augment_levels"):
        replace(full_config("reader", "session-17"), motion_blur=0.1)
    # Trained with smears, session 29's reader failed the live gate; session 35's, with a
    # narrower stem, passed it (models/HISTORY.md, "Session 35"). The enrolment base is
    # never smeared.
    assert full_config("reader").motion_blur == 0.15
    assert full_config("reader", "session-28").motion_blur == 0
    assert full_config("enrollment-base").motion_blur == 0


def test_the_levels_form_turns_a_crop_exactly_as_the_float_forms_resample() -> None:
    import cv2
    import torch

    from vision.training.augment import _turn, turn_warps

    x = np.random.default_rng(0).integers(0, 256, (16, 84, 84, 3)).astype(np.float32)
    for out_px in (84, 64):
        # The same generator state: the same turns drawn by both forms.
        resampled = _turn(
            torch.from_numpy(x).permute(0, 3, 1, 2), torch.Generator().manual_seed(5), 1.0, out_px
        )
        warps = turn_warps(16, 84, out_px, torch.Generator().manual_seed(5))
        flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        warped = [
            cv2.warpAffine(
                crop, warp, (out_px, out_px), flags=flags, borderMode=cv2.BORDER_REPLICATE
            )
            for crop, warp in zip(x, warps, strict=True)
        ]
        np.testing.assert_allclose(
            np.stack(warped), resampled.permute(0, 2, 3, 1).numpy(), atol=0.02
        )


def test_both_recipes_export_the_same_graph_and_the_shipped_one_has_no_full_resolution_batch_norm(
    tmp_path: Path, capsys
) -> None:
    import onnx

    from setupcam.cli import main
    from vision.recognizer import MODELS_DIR

    shipped = json.loads((MODELS_DIR / "tiles.json").read_text(encoding="utf-8"))
    assert "full-resolution layer 16 (no batch norm)" in shipped["architecture"]
    out = tmp_path / "old"
    argv = ["train", "--quick", "--quiet", "--recipe", "session-17", "--network", "reader"]
    assert main([*argv, "--out", str(out), "--cache", str(tmp_path / "cache")]) == 0
    meta = json.loads((out / "tiles.json").read_text(encoding="utf-8"))
    assert "full-resolution layer 16," in meta["architecture"]
    assert meta["recipe"]["full_res_batch_norm"] and not meta["recipe"]["augment_levels"]
    verdict = capsys.readouterr().out.splitlines()[-1]
    assert "full_res_batch_norm" in verdict and "augment_levels" in verdict

    def ops(path: Path) -> list[str]:
        return [node.op_type for node in onnx.load(str(path)).graph.node]

    # Batch norm folds into its conv at export, so a network trained with it comes out
    # as the same graph as the shipped one, which has a conv with a bias there.
    assert ops(out / "tiles.onnx") == ops(MODELS_DIR / "tiles.onnx")
    reader = TileRecognizer.load(out / "tiles.onnx")
    assert len(reader.read_crops(np.zeros((12, 84, 84, 3), np.uint8))) == 12


def test_setupcam_train_trains_the_reader_and_its_enrolment_base_side_by_side(
    tmp_path: Path, capsys
) -> None:
    from setupcam.cli import main

    out = tmp_path / "models"
    argv = ["train", "--quick", "--quiet", "--out", str(out), "--cache", str(tmp_path / "cache")]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    reader = TileRecognizer.load(out / "tiles.onnx")
    base = reader.enrollment_base
    assert base.path == out / "enrollment-base.onnx"
    assert base.model_digest != reader.model_digest
    for network in (reader, base):  # named by what the file computes, written at training
        assert network.model_digest == network_digest(network.path) == network.info.network_digest
    recipes = {
        path.name: json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["recipe"]
        for path in (reader.path, base.path)
    }
    assert recipes["tiles.onnx"]["colour_augment"] == "grey"
    assert recipes["enrollment-base.onnx"]["colour_augment"] == "swap"
    log = (out / "enrollment-base.log").read_text(encoding="utf-8")
    assert "conf.wrong" in log and "heldout: split" in log  # its final table
    # Each says whether it is the shipped network: a smoke run's recipe is not.
    for network, path in (("reader", reader.path), ("enrollment-base", base.path)):
        meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        assert meta["trained_on"]["torch"].startswith("2.") and meta["trained_on"]["cpu"]
        line = f"{network}: network {meta['network_digest']}, not the shipped recipe ("
        assert line in (printed if network == "reader" else log)
        assert "epochs" in (printed if network == "reader" else log).split(line)[1]

    # Trained again over a network it does not make: that one is kept, not lost.
    meta = json.loads(reader.path.with_suffix(".json").read_text(encoding="utf-8"))
    other = dict(meta, network_digest="0123456789abcdef")
    reader.path.with_suffix(".json").write_text(json.dumps(other), encoding="utf-8")
    before = reader.path.read_bytes()
    assert main([*argv, "--network", "reader"]) == 0
    kept = out / "previous" / "tiles.onnx"
    assert kept.read_bytes() == before and f"kept in {kept}" in capsys.readouterr().out
    assert json.loads(kept.with_suffix(".json").read_text(encoding="utf-8")) == other
    assert not (out / "previous" / "enrollment-base.onnx").exists()  # not trained again
    # The same network again: nothing to keep.
    assert main([*argv, "--network", "reader"]) == 0
    assert "kept in" not in capsys.readouterr().out and not kept.parent.exists()


def test_setupcam_train_refuses_bad_arguments_in_one_line(tmp_path: Path, capsys) -> None:
    import pytest

    from setupcam.cli import main
    from setupcam.commands.train import RECIPE_CHOICES
    from vision.training.fit import RECIPES

    assert RECIPE_CHOICES == RECIPES  # the command lists them without importing torch
    assert main(["train", "--quick", "--epochs", "0", "--out", str(tmp_path)]) == 2
    with pytest.raises(SystemExit) as exited:
        main(["train", "--network", "both-and-more"])
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("error" in line for line in err)


def test_a_smoke_run_never_replaces_the_apps_networks(tmp_path: Path, monkeypatch) -> None:
    import vision.training_data
    from setupcam.cli import main
    from vision.recognizer import MODELS_DIR

    shipped = (MODELS_DIR / "tiles.onnx").read_bytes()
    monkeypatch.setattr(vision.training_data, "REPO", tmp_path)
    argv = ["train", "--quick", "--quiet", "--network", "reader", "--cache", str(tmp_path / "c")]
    assert main(argv) == 0
    assert (tmp_path / "runs" / "quick" / "tiles.onnx").is_file()
    assert (MODELS_DIR / "tiles.onnx").read_bytes() == shipped
    assert not (MODELS_DIR / "previous").exists()
