"""An enrolment keeps its photos' boards, and a new network learns the set again from
them without the user (vision.enrollment_photos)."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest

from engine import Layout, Position
from setupcam.cli import main
from vision.enrollment import (
    Enrollment,
    EnrollmentSample,
    build_enrollment,
    enrolled_again,
    enrollment_views,
    previous_enrollment_path,
    save_keeping_previous,
)
from vision.enrollment_photos import KeptPhotos, board_region, layout_description
from vision.recognizer import TileRecognizer
from vision.training_data import tile_set_frames

LAYOUT = Layout.load()
SEED = 93_500  # far from every training seed; the family "split" is never trained on


@pytest.fixture(scope="module")
def recognizer() -> TileRecognizer:
    return TileRecognizer.load()


@pytest.fixture(scope="module")
def tile_set():
    return tile_set_frames(SEED, "split", photos=5, tests=1, hand_rate=0.0, same_camera=True)


@pytest.fixture(scope="module")
def samples(tile_set) -> list[EnrollmentSample]:
    return [
        EnrollmentSample(f.image, corners, f.truth.position, f"photo{i}.png")
        for i, (f, corners) in enumerate(tile_set.enrol)
    ]


def test_a_photos_board_gives_the_crops_of_the_whole_photo(recognizer, samples) -> None:
    for i, sample in enumerate(samples):
        board = board_region(sample)
        assert board.image.size < sample.image.size  # the board, not the whole picture
        whole, labels = enrollment_views(sample, LAYOUT, recognizer.crop_px, 0.17, seed=i)
        cut, cut_labels = enrollment_views(board, LAYOUT, recognizer.crop_px, 0.17, seed=i)
        # The warp's fixed-point arithmetic rounds a few pixels the other way once the
        # picture's origin moves: a level at most, on a few pixels in ten thousand.
        difference = np.abs(cut.astype(int) - whole)
        assert difference.max() <= 1 and (difference > 0).mean() < 1e-3
        np.testing.assert_array_equal(cut_labels, labels)


def test_a_board_at_the_pictures_edge_is_cut_within_the_picture() -> None:
    image = np.arange(100 * 160 * 3, dtype=np.uint32).astype(np.uint8).reshape(100, 160, 3)
    corners = np.array([[2, 3], [60, 3], [60, 61], [2, 61]], float)
    board = board_region(EnrollmentSample(image, corners, Position.empty()))
    assert board.image.shape == (70, 69, 3)  # 0.15 of 58 px beyond the right and bottom only
    np.testing.assert_array_equal(board.image, image[:70, :69])
    np.testing.assert_array_equal(board.corners, corners)


def test_the_file_keeps_the_photos_and_their_layout(recognizer, samples, tmp_path) -> None:
    enrollment = build_enrollment(recognizer, samples, LAYOUT)
    path = tmp_path / "set.npz"
    enrollment.save(path)
    assert path.stat().st_size < 6_000_000
    kept = Enrollment.load(path).photos
    assert kept is not None and len(kept.samples) == len(samples)
    assert layout_description(kept.layout) == layout_description(LAYOUT)
    for again, original in zip(kept.samples, enrollment.photos.samples, strict=True):
        np.testing.assert_array_equal(again.image, original.image)  # lossless
        np.testing.assert_allclose(again.corners, original.corners)
        assert again.position.squares == original.position.squares
        assert again.name == original.name
    # A photo missing from the file is told, not skipped.
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files if name != "photo_3"}
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)
    with pytest.raises(ValueError, match=r"set\.npz: damaged enrolment file"):
        Enrollment.load(path)


def test_a_new_network_learns_the_set_again_from_the_kept_photos(
    recognizer, samples, tile_set, tmp_path
) -> None:
    enrollment = build_enrollment(recognizer, samples, LAYOUT)
    fresh = enrolled_again(recognizer, enrollment)
    from_boards = build_enrollment(recognizer, enrollment.photos.samples, LAYOUT)
    for head in ("value", "suit", "suit_by_shape"):
        np.testing.assert_array_equal(
            getattr(fresh, head).weight, getattr(from_boards, head).weight
        )
    # A file made for other networks (as after an update that ships a new reader).
    path = tmp_path / "enrollment.npz"
    dataclasses.replace(enrollment, reader_digest="0123456789abcdef").save(path)
    notes: list[str] = []
    enrolled = TileRecognizer.load(None, path, notice=notes.append)
    assert len(notes) == 1 and "learnt again from its 5 photos" in notes[0]
    assert enrolled.enrollment.reader_digest == recognizer.model_digest
    assert Enrollment.load(path).reader_digest == recognizer.model_digest  # written back
    kept = previous_enrollment_path(path)
    assert kept.name == "enrollment.previous.npz"
    assert Enrollment.load(kept).reader_digest == "0123456789abcdef"  # nothing lost
    # It reads as the enrolment made from the whole photos does.
    frame, corners = tile_set.test[0]
    crops = recognizer.crops(frame.image, corners, LAYOUT)
    renewed, original = (
        r.probabilities_all_turns(crops) for r in (enrolled, recognizer.with_enrollment(enrollment))
    )
    np.testing.assert_allclose(renewed, original, atol=1e-3)
    assert (renewed.argmax(axis=1) == original.argmax(axis=1)).all()
    # Once learnt again, the file loads as it is.
    notes.clear()
    TileRecognizer.load(None, path, notice=notes.append)
    assert notes == []


def test_an_enrolment_that_cannot_be_written_is_learnt_again_for_the_run(
    recognizer, samples, tmp_path, monkeypatch
) -> None:
    enrollment = build_enrollment(recognizer, samples, LAYOUT)
    path = tmp_path / "enrollment.npz"
    dataclasses.replace(enrollment, reader_digest="0123456789abcdef").save(path)
    before = path.read_bytes()

    def full_disk(self, target) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Enrollment, "save", full_disk)
    notes: list[str] = []
    enrolled = TileRecognizer.load(None, path, notice=notes.append)
    assert enrolled.enrollment.reader_digest == recognizer.model_digest
    assert "for this run only: it could not be written (No space left on device)" in notes[0]
    assert path.read_bytes() == before  # the user's file as it was
    assert not previous_enrollment_path(path).exists()


def test_a_file_without_photos_for_other_networks_asks_to_enrol_again(
    recognizer, samples, tmp_path
) -> None:
    enrollment = build_enrollment(recognizer, samples, LAYOUT)
    path = tmp_path / "old.npz"
    dataclasses.replace(enrollment, reader_digest="0123456789abcdef", photos=None).save(path)
    with pytest.raises(ValueError, match="run setupcam enroll again"):
        TileRecognizer.load(None, path)
    assert not previous_enrollment_path(path).exists()


def test_recognize_says_when_it_learnt_the_set_again(
    recognizer, samples, tile_set, tmp_path, capsys
) -> None:
    enrollment = build_enrollment(recognizer, samples, LAYOUT)
    path = tmp_path / "mine.npz"
    dataclasses.replace(enrollment, model_digest="fedcba9876543210").save(path)
    frame, _ = tile_set.test[0]
    image = tmp_path / "test.png"
    cv2.imwrite(str(image), frame.image)
    (tmp_path / "cal.json").write_text(
        json.dumps(
            {
                "image_size": list(frame.truth.image_size),
                "camera_matrix": frame.truth.camera_matrix.tolist(),
                "dist_coeffs": frame.truth.dist_coeffs.tolist(),
                "board_corners": frame.truth.board_corners.tolist(),
            }
        )
    )
    args = ["recognize", str(image), "--calibration", str(tmp_path / "cal.json")]
    assert main([*args, "--enrollment", str(path)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["board"]["found"]
    assert err.startswith("note: ") and "mine.npz: made with other networks" in err
    assert "mine.previous.npz" in err


def test_kept_photos_read_back_from_their_description(samples) -> None:
    kept = KeptPhotos.of(samples[:2], LAYOUT)
    again = KeptPhotos.from_file(kept.arrays(), json.loads(json.dumps(kept.description())))
    assert [s.name for s in again.samples] == ["photo0.png", "photo1.png"]
    with pytest.raises(ValueError, match="incomplete"):
        KeptPhotos.from_file(kept.arrays(), {"photos": []})


def test_a_write_that_fails_halfway_leaves_the_enrolment_as_it_was(
    recognizer, samples, tmp_path, monkeypatch
) -> None:
    enrollment = build_enrollment(recognizer, samples, LAYOUT)
    path = tmp_path / "enrollment.npz"
    save_keeping_previous(enrollment, path)
    before = path.read_bytes()

    def disk_full_halfway(handle, **arrays) -> None:  # type: ignore[no-untyped-def]
        handle.write(b"PK\x03\x04 half a zip")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", disk_full_halfway)
    with pytest.raises(OSError):
        save_keeping_previous(enrollment, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["enrollment.npz"]


def test_three_enrolments_replaced_are_kept_the_oldest_going_first(
    recognizer, samples, tmp_path
) -> None:
    # A bad enrolment, then one made again to mend it: with one copy kept, the last
    # good one was gone.
    enrollment = build_enrollment(recognizer, samples, LAYOUT)
    path = tmp_path / "enrollment.npz"
    for n in range(5):
        save_keeping_previous(dataclasses.replace(enrollment, reader_digest=f"run{n}"), path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "enrollment.npz",
        "enrollment.previous-2.npz",
        "enrollment.previous-3.npz",
        "enrollment.previous.npz",
    ]
    assert Enrollment.load(path).reader_digest == "run4"
    kept = [Enrollment.load(previous_enrollment_path(path, back)) for back in (1, 2, 3)]
    assert [e.reader_digest for e in kept] == ["run3", "run2", "run1"]
