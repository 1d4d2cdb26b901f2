"""Enrolment of a tile set: value and suit heads from photos, saved and used by the
recognizer, and the enroll command end to end."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine import Layout
from setupcam.cli import main
from vision.enrollment import (
    PAIRED_TURNS_SHARPEN,
    PAIRED_VALUE_SCALE,
    TURNS_SHARPEN,
    VALUE_SCALE,
    Enrollment,
    EnrollmentSample,
    LinearHead,
    build_enrollment,
    fit_linear_discriminant,
    missing_classes,
    position_labels,
)
from vision.recognizer import COVERED, EMPTY, LABELS, TileRecognizer
from vision.six_nine import NINE, SIX, SixNineCheck
from vision.training_data import crop_labels, tile_set_frames

LAYOUT = Layout.load()
SEED = 93_000  # far from every training seed; the family "split" is never trained on


@pytest.fixture(scope="module")
def recognizer() -> TileRecognizer:
    return TileRecognizer.load()


@pytest.fixture(scope="module")
def split_set():
    return tile_set_frames(SEED, "split", photos=5, tests=6, hand_rate=0.0)


def _samples(frames) -> list[EnrollmentSample]:
    return [
        EnrollmentSample(f.image, corners, f.truth.position, f"photo{i}")
        for i, (f, corners) in enumerate(frames)
    ]


def _accuracy(rec: TileRecognizer, frames) -> tuple[float, float]:
    """(best class right, answered-and-wrong) as fractions of the squares."""
    right = wrong = total = 0
    for frame, corners in frames:
        readings = rec.read_board(frame.image, corners, LAYOUT)
        for square, want in zip(LAYOUT.squares, crop_labels(frame, LAYOUT), strict=True):
            total += 1
            right += int(readings[square].best_index == want)
            wrong += int(readings[square].label != "?" and readings[square].best_index != want)
    return right / total, wrong / total


def test_enrolment_photos_show_every_tile_once(split_set) -> None:
    labels = np.concatenate([position_labels(f.truth.position, LAYOUT) for f, _ in split_set.enrol])
    tiles = labels[labels < 50]
    assert sorted(tiles.tolist()) == list(range(50))


def test_enrolment_improves_an_unseen_tile_set(recognizer, split_set, tmp_path: Path) -> None:
    enrollment = build_enrollment(recognizer, _samples(split_set.enrol), LAYOUT)
    assert (enrollment.counts[:50] == 1).all() and enrollment.counts[COVERED] == 0
    path = tmp_path / "set.npz"
    enrollment.save(path)
    enrolled = TileRecognizer.load(enrollment_path=path)
    (before, _), (after, wrong) = (
        _accuracy(recognizer, split_set.test),
        _accuracy(enrolled, split_set.test),
    )
    # The held-out art is far from the training art: enrolment raises the best
    # class's accuracy (74% -> 96% on these frames; not yet the 0.2% target, see
    # the model card) and keeps confident mistakes rare.
    assert after >= max(before + 0.1, 0.9), (before, after)
    assert wrong <= 0.01, wrong


def _assert_same_check(kept, check, fields: tuple[str, ...]) -> None:
    """A template check read back from a file is the one saved: templates, their
    values and suits, and the fitted ``fields``."""
    assert check is not None and kept is not None
    np.testing.assert_array_equal(kept.templates, check.templates)
    for field in ("values", "suits"):
        assert getattr(kept, field).tolist() == getattr(check, field).tolist(), field
    for field in fields:
        assert getattr(kept, field) == getattr(check, field), field


def test_enrollment_file_round_trip_and_errors(recognizer, split_set, tmp_path: Path) -> None:
    enrollment = build_enrollment(recognizer, _samples(split_set.enrol), LAYOUT)
    path = tmp_path / "set.bin"
    enrollment.save(path)
    again = Enrollment.load(path)
    heads = [(enrollment.value, again.value), (enrollment.suit, again.suit)]
    heads.append((enrollment.suit_by_shape, again.suit_by_shape))
    for head, loaded in heads:
        assert np.allclose(loaded.weight, head.weight, rtol=1e-5, atol=1e-4)
        assert np.allclose(loaded.bias, head.bias, rtol=1e-5, atol=1e-4)
    assert (again.counts == enrollment.counts).all()
    for field in ("threshold", "value_scale", "turns_sharpen", "suit_shape_scale"):
        assert getattr(again, field) == getattr(enrollment, field), field
    assert (again.model_digest, again.reader_digest) == (
        enrollment.model_digest,
        enrollment.reader_digest,
    )
    _assert_same_check(
        again.six_nine, enrollment.six_nine, ("size", "slope", "pair_level", "other_level")
    )
    _assert_same_check(
        again.value_check, enrollment.value_check, ("size", "own_level", "other_level")
    )
    # A file made before session 20 has no value check, and reads without it.
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files if not name.startswith("value_t")}
    meta = json.loads(str(arrays["meta"]))
    del meta["value_check"]
    meta["format"] = 5
    arrays["meta"] = np.array(json.dumps(meta))
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)
    older = Enrollment.load(path)
    assert older.value_check is None and older.six_nine is not None
    bad = tmp_path / "bad.npz"
    bad.write_text("nope")
    with pytest.raises(ValueError, match=r"bad\.npz"):
        Enrollment.load(bad)
    old = tmp_path / "old.npz"
    np.savez(old, meta=np.array(json.dumps({"format": 1, "labels": list(LABELS)})))
    with pytest.raises(ValueError, match="another setupcam version"):
        Enrollment.load(old)


def test_the_enroll_command_says_how_six_and_nine_are_told_apart() -> None:
    from setupcam.commands.enroll import six_nine_summary, value_check_summary

    assert "model alone decides" in value_check_summary(None)

    assert "model alone" in six_nine_summary(None)
    flat = SixNineCheck(
        np.zeros((2, 84, 84), np.uint8), np.array([SIX, NINE]), np.zeros(2), 36, 0.0
    )
    assert "look alike" in six_nine_summary(flat)
    assert "weight 40" in six_nine_summary(dataclasses.replace(flat, slope=40.0))


def test_six_or_nine_is_settled_by_the_sets_own_templates(recognizer, split_set) -> None:
    """The split art's 6s and 9s are the same tile turned, to the networks' pooled
    features; the photos' own 6s and 9s, matched at each quarter turn, tell them
    apart. The check weighs its verdict by what the photos showed, and a format-4 file
    (no templates) reads as before."""
    enrollment = build_enrollment(recognizer, _samples(split_set.enrol), LAYOUT)
    check = enrollment.six_nine
    assert check is not None
    assert sorted(check.values.tolist()) == [SIX] * 5 + [NINE] * 5  # one of each suit
    assert check.slope > 10 and check.pair_level[0] > check.other_level[0]
    crops, want = [], []
    for frame, corners in split_set.test + split_set.enrol:
        crops.append(recognizer.crops(frame.image, corners, LAYOUT))
        want.append(crop_labels(frame, LAYOUT))
    crops, want = np.concatenate(crops), np.concatenate(want)
    pair = (want < 50) & np.isin(want % 10, [SIX, NINE])  # ALL_TILES runs 1..10 per suit
    assert pair.sum() >= 15
    odds, _ = check.evidence(crops[pair])
    assert ((odds > 0) == (want[pair] % 10 == SIX)).all()
    # Settled: every 6 and 9 at least as sure of its own value, some surer, and none
    # shown wrong (the value check, which comes after, left out). Since session 28's
    # networks the plain reading already gets these right, so what is asserted is the
    # direction, not more squares shown.
    only = dataclasses.replace(enrollment, value_check=None)
    enrolled = recognizer.with_enrollment(only)
    before = dataclasses.replace(only, six_nine=None)
    plain = recognizer.with_enrollment(before).probabilities(crops[pair])
    settled = enrolled.probabilities(crops[pair])
    sure = settled.max(axis=1) >= enrolled.threshold
    assert (settled.argmax(axis=1)[sure] == want[pair][sure]).all()
    rows = np.arange(len(settled))
    truth_before, truth_after = plain[rows, want[pair]], settled[rows, want[pair]]
    assert (truth_after >= truth_before - 1e-9).all() and (truth_after > truth_before + 1e-4).any()
    assert sure.sum() >= (plain.max(axis=1) >= enrolled.threshold).sum()
    # The classic art's 6 and 9 differ only in their small corner indices, and its
    # photos show the centre of a 6 and of a turned 9 alike: the check trusts it less.
    classic = tile_set_frames(SEED, "classic", photos=5, tests=0).enrol
    other = build_enrollment(recognizer, _samples(classic), LAYOUT).six_nine
    assert other is not None and other.slope < check.slope / 3, (other.slope, check.slope)


def test_doubtful_values_are_weighed_by_the_sets_own_tiles(recognizer) -> None:
    """A square the heads leave in doubt is matched against every photo tile: a tile
    matches its own value's tiles better than another value's (measured on the photos,
    one suit left out), so the doubt settles on the right value. A hand is never
    turned into another tile; one over part of a square may leave its tile's centre to
    match, and that tile, truly there, is then read (measured: 71 of 74 visible
    squares answered against 64. The set was SEED + 2 until session 21, whose larger
    covered shift alone now answers there all but one of what the check did)."""
    tile_set = tile_set_frames(SEED + 3, "split", photos=5, tests=8, hand_rate=1.0)
    enrollment = build_enrollment(recognizer, _samples(tile_set.enrol), LAYOUT)
    check = enrollment.value_check
    assert check is not None and len(check.templates) == 50
    assert check.own_level[0] > check.other_level[0] + 0.05, (check.own_level, check.other_level)
    crops, want, top = [], [], []
    for frame, corners in tile_set.test:
        crops.append(recognizer.crops(frame.image, corners, LAYOUT))
        want.append(crop_labels(frame, LAYOUT))
        top.append(position_labels(frame.truth.position, LAYOUT))
    crops, want, top = np.concatenate(crops), np.concatenate(want), np.concatenate(top)
    tiles = want < 50
    # The evidence favours each visible tile's own value over most others.
    ratio = check.evidence(crops[tiles])
    own = ratio[np.arange(tiles.sum()), want[tiles] % 10]
    assert ((ratio <= own[:, None]).sum(axis=1) >= 8).mean() >= 0.9
    answered = {}
    for name, kept in (
        ("with", enrollment),
        ("without", dataclasses.replace(enrollment, value_check=None)),
    ):
        probs = recognizer.with_enrollment(kept).probabilities(crops)
        sure = probs.max(axis=1) >= kept.threshold
        best = probs.argmax(axis=1)
        visible = want != COVERED
        assert not (sure & visible & (best != want)).any(), name
        # Under a hand: "covered", "?", or the tile truly under it.
        assert not (sure & ~visible & (best != COVERED) & (best != top)).any(), name
        answered[name] = int((sure & visible).sum())
    assert (~(want != COVERED)).sum() >= 10
    assert answered["with"] >= answered["without"] + 3, answered


def test_an_answer_its_own_tiles_contradict_falls_back_to_unknown(recognizer, split_set) -> None:
    """A square answered with a tile is matched against that tile's value: heads sure
    of the wrong value (as they sometimes are on an art never trained on) are let
    down to "?" where the square matches that value's tiles far worse than the
    photos' tiles matched their own, and a right answer stays."""
    enrollment = build_enrollment(recognizer, _samples(split_set.enrol), LAYOUT)
    check = enrollment.value_check
    assert check is not None
    crops, want = [], []
    for frame, corners in split_set.test:
        crops.append(recognizer.crops(frame.image, corners, LAYOUT))
        want.append(crop_labels(frame, LAYOUT))
    crops, want = np.concatenate(crops), np.concatenate(want)
    tiles = want < 50
    crops, want = crops[tiles], want[tiles]
    # The same suit, the value two along: sure at 0.995, the rest spread evenly.
    wrong = want - want % 10 + (want % 10 + 2) % 10
    for answer, kept in ((want, "all"), (wrong, "few")):
        probs = np.full((len(want), len(LABELS)), 0.005 / (len(LABELS) - 1))
        probs[np.arange(len(want)), answer] = 0.995
        settled = check.settle(probs, crops, enrollment.threshold)
        still = (settled.max(axis=1) >= enrollment.threshold) & (settled.argmax(axis=1) == answer)
        if kept == "all":
            assert still.all()
        else:  # measured: 3 of 55 wrong answers kept
            assert still.mean() <= 0.2, still.mean()


def test_enrolment_needs_every_value_and_suit(recognizer, split_set) -> None:
    one_photo = _samples(split_set.enrol[:1])
    shown = position_labels(one_photo[0].position, LAYOUT)
    counts = np.bincount(shown, minlength=len(LABELS))
    missing = missing_classes(counts)
    assert missing  # 12 squares of the photo cannot hold all 10 values and 5 suits here
    with pytest.raises(ValueError, match="every value") as err:
        build_enrollment(recognizer, one_photo, LAYOUT)
    assert all(name in str(err.value) for name in missing)
    assert missing_classes(np.ones(len(LABELS), int)) == []
    with pytest.raises(ValueError, match="at least one photo"):
        build_enrollment(recognizer, [], LAYOUT)


def test_tiles_never_shown_are_read_from_their_value_and_suit(recognizer, split_set) -> None:
    """Four of the five photos still show every value and suit; the tiles only on the
    fifth are read from what the others taught."""
    enrollment = build_enrollment(recognizer, _samples(split_set.enrol[:4]), LAYOUT)
    unseen = set(np.flatnonzero(enrollment.counts[:50] == 0).tolist())
    assert unseen
    fifth, corners = split_set.enrol[4]
    crops = recognizer.crops(fifth.image, corners, LAYOUT)
    probs = recognizer.with_enrollment(enrollment).probabilities(crops)
    labels = position_labels(fifth.truth.position, LAYOUT)
    on_fifth = [i for i, y in enumerate(labels) if y in unseen]
    right = sum(int(probs[i].argmax() == labels[i]) for i in on_fifth)
    assert right >= 0.75 * len(on_fifth), (right, len(on_fifth))


def test_linear_discriminant_separates_shifted_classes() -> None:
    rng = np.random.default_rng(0)
    shift = np.array([3.0, 0, 0, 0, 0, 0])
    x = np.concatenate([rng.normal(0, 1, (50, 6)), rng.normal(0, 1, (50, 6)) + shift])
    y = np.repeat([0, 1], 50)
    head = fit_linear_discriminant(x, y, 2, 0.1)
    assert (head.scores(x).argmax(axis=1) == y).mean() > 0.9
    with pytest.raises(ValueError, match="every class"):
        fit_linear_discriminant(x, y, 3, 0.1)


def test_enrolled_probabilities_keep_empty_and_covered_from_the_base_model() -> None:
    value = LinearHead(np.eye(4, 10), np.zeros(10))
    suit = LinearHead(np.eye(4, 5), np.zeros(5))
    e = Enrollment(value, suit, np.ones(len(LABELS), int))
    base = np.zeros((2, len(LABELS)))
    base[0, COVERED] = 50.0
    base[1, EMPTY] = 50.0
    p = e.probabilities(base, np.ones((2, 4)), np.ones((2, 4)), 1.0)
    assert p[0].argmax() == COVERED and p[1].argmax() == EMPTY
    assert np.allclose(p.sum(axis=1), 1.0)


def _write(tmp_path: Path, frames, cal_truth) -> list[str]:
    pairs = []
    for i, (frame, _) in enumerate(frames):
        image = tmp_path / f"photo{i}.png"
        cv2.imwrite(str(image), frame.image)
        squares = {
            s: (None if t is None else t.ascii) for s, t in frame.truth.position.squares.items()
        }
        position = tmp_path / f"photo{i}.json"
        position.write_text(json.dumps({"layout": "setup-standard", "squares": squares}))
        pairs.append(f"{image}={position}")
    (tmp_path / "cal.json").write_text(
        json.dumps(
            {
                "image_size": list(cal_truth.image_size),
                "camera_matrix": cal_truth.camera_matrix.tolist(),
                "dist_coeffs": cal_truth.dist_coeffs.tolist(),
                "board_corners": cal_truth.board_corners.tolist(),
            }
        )
    )
    return pairs


def test_enroll_cli_writes_where_recognize_reads(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("SETUPCAM_HOME", str(tmp_path / "home"))
    frames = tile_set_frames(SEED + 1, "split", photos=5, tests=1, hand_rate=0.0, same_camera=True)
    pairs = _write(tmp_path, frames.enrol, frames.enrol[0][0].truth)
    assert main(["enroll", "--calibration", str(tmp_path / "cal.json"), *pairs]) == 0
    out = capsys.readouterr().out
    assert "tiles seen: 50/50" in out and "tiles missing: none" in out
    assert (tmp_path / "home" / "enrollment.npz").is_file()
    assert "enrolment photos read back" in out and "warning" not in out
    assert "is named on" not in out  # each tile on one square of one file
    assert "6 or 9: told apart by the photos' own 6s and 9s (10 templates" in out
    assert "doubtful squares: matched against the photos' 50 tiles" in out
    # recognize now uses it by default; the test photo shares the camera and board.
    test_frame = frames.test[0][0]
    image = tmp_path / "test.png"
    cv2.imwrite(str(image), test_frame.image)
    assert main(["recognize", str(image), "--calibration", str(tmp_path / "cal.json")]) == 0
    captured = capsys.readouterr()
    assert "no enrolled tile set" not in captured.err  # it is enrolled now
    result = json.loads(captured.out)
    right = sum(
        result["squares"][s] == (None if t is None else str(t))
        for s, t in test_frame.truth.position.squares.items()
    )
    assert right >= 4  # held-out art: see the model card


def test_enroll_cli_notes_a_tile_named_on_two_squares(tmp_path: Path, capsys, monkeypatch) -> None:
    # A typo that is still a tile (4♥ for 4★): the file's 4★ was said to be "missing",
    # and the tip asked to photograph a tile that had been photographed.
    monkeypatch.setenv("SETUPCAM_HOME", str(tmp_path / "home"))
    frames = tile_set_frames(SEED + 1, "split", photos=5, tests=0, hand_rate=0.0, same_camera=True)
    pairs = _write(tmp_path, frames.enrol, frames.enrol[0][0].truth)
    first, second = (json.loads((tmp_path / f"photo{i}.json").read_text()) for i in (0, 1))
    square, tile = next((s, t) for s, t in second["squares"].items() if t)
    mistyped = next(s for s, t in first["squares"].items() if t)
    first["squares"][mistyped] = tile
    (tmp_path / "photo0.json").write_text(json.dumps(first))
    assert main(["enroll", "--calibration", str(tmp_path / "cal.json"), *pairs]) == 0
    out = capsys.readouterr().out
    named = f"photo0.png:{mistyped} and {tmp_path / 'photo1.png'}:{square}: a set has one"
    assert sum(named in line for line in out.splitlines()) == 1


def test_enroll_cli_with_too_few_photos_points_to_the_plan(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("SETUPCAM_HOME", str(tmp_path / "home"))
    frames = tile_set_frames(SEED + 1, "split", photos=5, tests=0, hand_rate=0.0, same_camera=True)
    pairs = _write(tmp_path, frames.enrol, frames.enrol[0][0].truth)
    values = {str(t)[:-1] for t in frames.enrol[0][0].truth.position.squares.values() if t}
    assert len(values) < 10  # one photo: not every value
    assert main(["enroll", "--calibration", str(tmp_path / "cal.json"), pairs[0]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "they show no" in err
    assert "`setupcam enroll --plan DIR` lays out all 50 tiles over 5 photos" in err
    assert not (tmp_path / "home" / "enrollment.npz").exists()


def test_enroll_cli_keeps_the_enrolment_it_replaces(tmp_path: Path, capsys) -> None:
    frames = tile_set_frames(SEED + 1, "split", photos=5, tests=0, hand_rate=0.0, same_camera=True)
    pairs = _write(tmp_path, frames.enrol, frames.enrol[0][0].truth)
    out = tmp_path / "mine.npz"
    args = ["enroll", "--calibration", str(tmp_path / "cal.json"), "--out", str(out), *pairs]
    assert main(args) == 0
    assert "kept as" not in capsys.readouterr().out
    first = out.read_bytes()
    assert main(args) == 0
    assert f"the enrolment there before is kept as {tmp_path / 'mine.previous.npz'}" in (
        capsys.readouterr().out
    )
    assert (tmp_path / "mine.previous.npz").read_bytes() == first
    assert Enrollment.load(out).photos is not None


def test_enroll_cli_refuses_a_photo_given_twice(tmp_path: Path, capsys, monkeypatch) -> None:
    # As `photo{0..4}.png=photo{0..4}.json` in a shell gives every photo five times.
    pairs = [f"{tmp_path / 'p0.png'}={tmp_path / f'p{i}.json'}" for i in range(2)]
    assert main(["enroll", *pairs]) == 2
    err = capsys.readouterr().err
    assert "p0.png is given 2 times" in err and len(err.strip().splitlines()) == 1
    # The same photo written two ways is still the same photo.
    monkeypatch.chdir(tmp_path)
    assert main(["enroll", "p0.png=a.json", f"{tmp_path / 'p0.png'}=b.json"]) == 2
    assert "p0.png is given 2 times" in capsys.readouterr().err


def test_enroll_cli_refuses_photos_paired_with_the_wrong_files(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("SETUPCAM_HOME", str(home))
    home.mkdir()
    earlier = home / "enrollment.npz"
    earlier.write_bytes(b"the enrolment made before")
    frames = tile_set_frames(SEED + 1, "split", photos=5, tests=0, same_camera=True)
    pairs = _write(tmp_path, frames.enrol, frames.enrol[0][0].truth)
    photos = [pair.split("=")[0] for pair in pairs]
    files = [pair.split("=")[1] for pair in pairs]
    swapped = [f"{photos[0]}={files[1]}", f"{photos[1]}={files[0]}", *pairs[2:]]
    assert main(["enroll", "--calibration", str(tmp_path / "cal.json"), *swapped]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert f"{photos[0]} does not show {files[1]}" in err and "Nothing was enrolled" in err
    assert earlier.read_bytes() == b"the enrolment made before"


def test_enroll_cli_refuses_photos_that_do_not_read_back(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    # Photo 0's file names its tiles on the wrong squares (its empty squares right):
    # nothing plainly contradicts it, but the photos no longer read back whole. A set
    # learnt from them would misread the game: nothing is written, the old one is kept.
    home = tmp_path / "home"
    monkeypatch.setenv("SETUPCAM_HOME", str(home))
    home.mkdir()
    earlier = home / "enrollment.npz"
    earlier.write_bytes(b"the enrolment made before")
    frames = tile_set_frames(SEED + 1, "split", photos=5, tests=0, same_camera=True)
    pairs = _write(tmp_path, frames.enrol, frames.enrol[0][0].truth)
    first = Path(pairs[0].split("=")[1])
    position = json.loads(first.read_text())
    tiles = [s for s, t in position["squares"].items() if t is not None]
    rolled = [position["squares"][s] for s in tiles[1:] + tiles[:1]]
    position["squares"].update(zip(tiles, rolled, strict=True))
    first.write_text(json.dumps(position))
    assert main(["enroll", "--calibration", str(tmp_path / "cal.json"), *pairs]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "nothing was enrolled" in err and pairs[0].split("=")[0] in err
    assert "paired with its own position file" in err
    assert earlier.read_bytes() == b"the enrolment made before"
    assert not (home / "enrollment.previous.npz").exists()


def test_enroll_cli_refuses_a_blurred_photo(tmp_path: Path, capsys, monkeypatch) -> None:
    # A photo out of focus reads back well enough overall (its squares only "?"), but
    # teaches the set its suits' colours wrongly: it is named and nothing is written.
    monkeypatch.setenv("SETUPCAM_HOME", str(tmp_path / "home"))
    frames = tile_set_frames(SEED + 1, "split", photos=5, tests=0, same_camera=True)
    pairs = _write(tmp_path, frames.enrol, frames.enrol[0][0].truth)
    blurred = pairs[2].split("=")[0]
    cv2.imwrite(blurred, cv2.GaussianBlur(cv2.imread(blurred), (0, 0), 5))
    assert main(["enroll", *pairs]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and blurred in err
    assert "looks blurred" in err
    assert not (tmp_path / "home" / "enrollment.npz").exists()


def test_enroll_cli_refuses_photos_all_a_little_blurred(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    # Every photo blurred alike (a camera out of focus while enrolling): they read each
    # other back whole, since the set learns their blur, but the set would read the
    # game's sharp frames doubtfully. Sharp, the same photos enrol.
    monkeypatch.setenv("SETUPCAM_HOME", str(tmp_path / "home"))
    frames = tile_set_frames(SEED + 1, "split", photos=5, tests=0, same_camera=True)
    pairs = _write(tmp_path, frames.enrol, frames.enrol[0][0].truth)
    photos = [pair.split("=")[0] for pair in pairs]
    sharp = {photo: cv2.imread(photo) for photo in photos}
    for photo in photos:
        cv2.imwrite(photo, cv2.GaussianBlur(sharp[photo], (0, 0), 2.0))
    assert main(["enroll", *pairs]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "look blurred" in err and all(photo in err for photo in photos)
    assert "nothing was enrolled" in err
    assert not (tmp_path / "home" / "enrollment.npz").exists()
    for photo in photos:
        cv2.imwrite(photo, sharp[photo])
    assert main(["enroll", *pairs]) == 0
    assert (tmp_path / "home" / "enrollment.npz").is_file()
    assert "soft" not in capsys.readouterr().out


def test_enroll_cli_notes_photos_a_little_soft(tmp_path: Path, capsys, monkeypatch) -> None:
    # Blurred a little: the set is learnt, and the note names the photos a sharper
    # take would teach better.
    monkeypatch.setenv("SETUPCAM_HOME", str(tmp_path / "home"))
    frames = tile_set_frames(SEED + 1, "split", photos=5, tests=0, same_camera=True)
    pairs = _write(tmp_path, frames.enrol, frames.enrol[0][0].truth)
    photos = [pair.split("=")[0] for pair in pairs]
    for photo in photos[:2]:
        cv2.imwrite(photo, cv2.GaussianBlur(cv2.imread(photo), (0, 0), 1.3))
    assert main(["enroll", *pairs]) == 0
    (note,) = [line for line in capsys.readouterr().out.splitlines() if "soft" in line]
    assert note.startswith("note: ") and "look a little soft" in note
    assert all((photo in note) == (i < 2) for i, photo in enumerate(photos))


def test_enroll_cli_bad_input(tmp_path: Path, capsys) -> None:
    assert main(["enroll", "photo.png"]) == 2
    assert "IMAGE=POSITION.json" in capsys.readouterr().err
    assert main(["enroll", f"{tmp_path / 'a.png'}={tmp_path / 'a.json'}"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_enrolment_stops_unfamiliar_tiles_looking_covered(recognizer, split_set) -> None:
    # On art it never saw, the base model gives plain tiles some chance of a hand over
    # them, which kept many enrolled readings under the threshold.
    enrollment = build_enrollment(recognizer, _samples(split_set.enrol), LAYOUT)
    assert enrollment.covered_shift > 0
    # Compared without the value check (session 20), which answers all 72 either way.
    heads = dataclasses.replace(enrollment, value_check=None)
    unshifted = dataclasses.replace(heads, covered_shift=0.0)
    answered = {}
    for name, chosen in (("shifted", heads), ("unshifted", unshifted)):
        rec = recognizer.with_enrollment(chosen)
        boards = [rec.read_board(frame.image, corners, LAYOUT) for frame, corners in split_set.test]
        answered[name] = sum(not r.unread for board in boards for r in board.values())
    assert answered["shifted"] > answered["unshifted"], answered  # 59 against 53 of 72
    _, wrong = _accuracy(recognizer.with_enrollment(enrollment), split_set.test)
    assert wrong <= 0.01
    # Hands over the same set's tiles still read as a hand or "?", never another tile.
    with_hands = tile_set_frames(SEED, "split", photos=5, tests=6, hand_rate=1.0)
    rec = recognizer.with_enrollment(enrollment)
    under_hands = 0
    for frame, corners in with_hands.test:
        readings = rec.read_board(frame.image, corners, LAYOUT)
        for square in frame.truth.covered:
            under_hands += 1
            reading, tile = readings[square], frame.truth.position[square]
            assert reading.unread or reading.label == tile, (square, reading.label, tile)
    assert under_hands >= 6


def test_enrolment_files_of_format_2_read_without_a_shift(tmp_path: Path) -> None:
    enrollment = Enrollment(
        LinearHead(np.eye(2, 10), np.zeros(10)),
        LinearHead(np.eye(2, 5), np.zeros(5)),
        np.ones(len(LABELS), int),
        covered_shift=2.5,
    )
    path = tmp_path / "set.npz"
    enrollment.save(path)
    assert Enrollment.load(path).covered_shift == 2.5
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(str(arrays["meta"]))
    del meta["covered_shift"]
    meta["format"] = 2
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(path, **arrays)
    assert Enrollment.load(path).covered_shift == 0.0


def test_enrolment_files_of_format_3_read_with_the_base_alone_and_colour_suits(
    tmp_path: Path,
) -> None:
    """Files made in sessions 14-17 have no reader, no suit head on features and the
    four-turn sharpening of then: they read as they did."""
    enrollment = Enrollment(
        LinearHead(np.eye(2, 10), np.zeros(10)),
        LinearHead(np.eye(2, 5), np.zeros(5)),
        np.ones(len(LABELS), int),
        model_digest="87e3da144fcb84e7",
    )
    path = tmp_path / "set.npz"
    enrollment.save(path)
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(str(arrays["meta"]))
    for key in ("reader", "turns_sharpen", "suit_shape_scale"):
        del meta[key]
    meta["format"] = 3
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(path, **arrays)
    old = Enrollment.load(path)
    assert (old.reader_digest, old.suit_by_shape) == (None, None)
    assert old.turns_sharpen == TURNS_SHARPEN == 1.4


def test_enrolled_reading_at_four_turns_and_with_the_readers_features_answers_more(
    recognizer, split_set
) -> None:
    # A steady view (and a photo) is read at all four quarter turns. Averaging the
    # turns' embeddings lets the value head answer more; averaging the four
    # readings' probabilities kept each turn's doubt and answered little more than
    # one pass (61 against 59 of these 72 squares). Since session 18 the value head
    # also reads the reader's features, which answers as many in one pass.
    samples = _samples(split_set.enrol)
    crops = np.concatenate(
        [recognizer.crops(frame.image, c, LAYOUT) for frame, c in split_set.test]
    )
    want = np.concatenate([crop_labels(frame, LAYOUT) for frame, _ in split_set.test])
    answered = {}
    for network, rec in (("base", recognizer.enrollment_base), ("paired", recognizer)):
        enrollment = build_enrollment(rec, samples, LAYOUT)
        assert (enrollment.reader_digest is None) == (network == "base")
        assert enrollment.six_nine is not None and enrollment.six_nine.slope > 0
        for check, kept in (
            ("", enrollment),
            (" 6/9 only", dataclasses.replace(enrollment, value_check=None)),
            (" alone", dataclasses.replace(enrollment, six_nine=None, value_check=None)),
        ):
            enrolled = rec.with_enrollment(kept)
            for name, probs in (
                ("one pass", enrolled.probabilities(crops)),
                ("four turns", enrolled.probabilities_all_turns(crops)),
            ):
                sure = probs.max(axis=1) >= enrolled.threshold
                assert not (sure & (probs.argmax(axis=1) != want)).any(), (network, name)
                answered[network + check, name] = int(sure.sum())
    # Measured without the templates, one pass and four turns (of 72): session 28's
    # networks base 68 and 72, paired 70 and 72 (session 17's: base 59 and 69, paired
    # 69 and 70, so the margins were wider then).
    alone, paired = "base alone", "paired alone"
    assert answered[alone, "four turns"] > answered[alone, "one pass"], answered
    assert answered[paired, "one pass"] > answered[alone, "one pass"], answered
    assert answered[paired, "four turns"] >= answered[paired, "one pass"], answered
    # The 6-or-9 check (session 19) answers more, and never fewer: measured base 69
    # and 72, paired 70 and 72; the value check (session 20) after it, never fewer.
    for network in ("base", "paired"):
        for name in ("one pass", "four turns"):
            assert answered[network + " 6/9 only", name] >= answered[network + " alone", name]
            assert answered[network, name] >= answered[network + " 6/9 only", name]
    assert answered["base 6/9 only", "one pass"] > answered[alone, "one pass"], answered


def test_a_model_may_ship_its_own_value_scale(recognizer, split_set, tmp_path: Path) -> None:
    """Enrolment on a base alone takes the value head's scale from the model's .json
    when it has one (fitted per model by vision.training.value_scale), and the file
    keeps it; an enrolment that reads the reader beside its base has its own."""
    samples = _samples(split_set.enrol)
    base = recognizer.enrollment_base
    default = build_enrollment(base, samples, LAYOUT)
    assert default.value_scale == (base.info.enrollment_value_scale or VALUE_SCALE)
    paired = build_enrollment(recognizer, samples, LAYOUT)
    assert (paired.value_scale, paired.turns_sharpen) == (PAIRED_VALUE_SCALE, PAIRED_TURNS_SHARPEN)
    model = tmp_path / "tiles.onnx"  # a model that is its own enrolment base
    model.write_bytes(base.path.read_bytes())
    meta = json.loads(base.path.with_suffix(".json").read_text(encoding="utf-8"))
    meta["enrollment_value_scale"] = 0.4
    model.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")
    own = build_enrollment(TileRecognizer.load(model), samples, LAYOUT)
    assert own.value_scale == 0.4
    np.testing.assert_array_equal(own.value.weight, default.value.weight)
    own.save(tmp_path / "e.npz")
    assert Enrollment.load(tmp_path / "e.npz").value_scale == 0.4


def test_enroll_without_calibration_finds_which_edge_is_south_from_the_files(
    tmp_path: Path, capsys
) -> None:
    # The camera on the far side of the table: the edge nearest it (the guess for south)
    # is north. Each photo's own position file says which edge is which, as the Enrol
    # tiles page lets it; before, every photo "did not show" its file.
    frames = tile_set_frames(SEED + 1, "split", photos=5, tests=0, hand_rate=0.0, same_camera=True)
    pairs = _write(tmp_path, frames.enrol, frames.enrol[0][0].truth)
    for pair in pairs:
        image = pair.split("=")[0]
        cv2.imwrite(image, cv2.rotate(cv2.imread(image), cv2.ROTATE_180))
    assert main(["enroll", "--out", str(tmp_path / "set.npz"), *pairs]) == 0
    out = capsys.readouterr().out
    assert "tiles seen: 50/50" in out and "warning" not in out
