"""The advice given when the recent steady views leave many tiles unread."""

from __future__ import annotations

import numpy as np

from vision.recognizer import COVERED, EMPTY, LABELS
from vision.unread import MIN_TILES, VIEWS, UnreadTiles

SURE_TILE = np.eye(len(LABELS))[7]
UNSURE_TILE = np.where(np.arange(len(LABELS)) == 7, 0.6, 0.4 / (len(LABELS) - 1))
SURE_EMPTY = np.eye(len(LABELS))[EMPTY]
SURE_HAND = np.eye(len(LABELS))[COVERED]
UNSURE_HAND = np.where(np.arange(len(LABELS)) == COVERED, 0.7, 0.3 / (len(LABELS) - 1))


def view(tiles: int, unread: int) -> dict[str, np.ndarray]:
    squares = [SURE_TILE] * (tiles - unread) + [UNSURE_TILE] * unread
    return {f"s{i}": p for i, p in enumerate(squares)}


def test_bare_squares_and_hands_are_not_tiles_to_read() -> None:
    unread = UnreadTiles()
    unread.add(
        {"a": SURE_EMPTY, "b": SURE_HAND, "c": UNSURE_HAND, "d": UNSURE_TILE, "e": SURE_TILE},
        threshold=0.99,
    )
    assert (unread.unread, unread.tiles) == (1, 2)


def test_an_unsure_empty_square_counts_as_unread() -> None:
    doubt = np.where(np.arange(len(LABELS)) == EMPTY, 0.8, 0.2 / (len(LABELS) - 1))
    unread = UnreadTiles()
    unread.add({"a": doubt}, threshold=0.99)
    assert (unread.unread, unread.tiles) == (1, 1)


def test_no_advice_on_too_few_tiles_however_many_are_unread() -> None:
    unread = UnreadTiles()
    unread.add(view(MIN_TILES - 1, MIN_TILES - 1), threshold=0.99)
    assert unread.advice(enrolled=True) is None
    unread.add(view(1, 1), threshold=0.99)
    assert unread.advice(enrolled=True) is not None


def test_advice_follows_the_share_of_unread_tiles() -> None:
    few, many = UnreadTiles(), UnreadTiles()
    for _ in range(VIEWS):
        few.add(view(8, 1), threshold=0.99)  # 1 in 8
        many.add(view(8, 4), threshold=0.99)  # half
    assert few.advice(enrolled=True) is None
    advice = many.advice(enrolled=True)
    assert advice is not None and advice.startswith(f"{4 * VIEWS} of the last {8 * VIEWS} tiles")
    assert "mount the camera firmly" in advice
    assert "setupcam enroll" in str(many.advice(enrolled=False))


def test_the_advice_goes_once_the_picture_is_fixed() -> None:
    unread = UnreadTiles()
    for _ in range(VIEWS):
        unread.add(view(8, 8), threshold=0.99)
    assert unread.advice(enrolled=True) is not None
    for _ in range(VIEWS):
        unread.add(view(8, 0), threshold=0.99)
    assert unread.advice(enrolled=True) is None
    assert unread.tiles == 8 * VIEWS  # only the last VIEWS views count


def test_reset_forgets_the_views() -> None:
    unread = UnreadTiles()
    for _ in range(VIEWS):
        unread.add(view(8, 8), threshold=0.99)
    unread.reset()
    assert (unread.unread, unread.tiles, unread.advice(enrolled=True)) == (0, 0, None)


def test_a_blurred_picture_is_named_as_the_cause() -> None:
    blurred, sharp, unenrolled = UnreadTiles(), UnreadTiles(), UnreadTiles()
    for _ in range(VIEWS):
        blurred.add(view(8, 6), threshold=0.99, blur_px=2.6)
        sharp.add(view(8, 6), threshold=0.99, blur_px=0.8)
        unenrolled.add(view(8, 6), threshold=0.99, blur_px=2.6)
    advice = str(blurred.advice(enrolled=True))
    assert "the picture is blurred (2.6 px): check the camera's focus" in advice
    assert "blurred" not in str(sharp.advice(enrolled=True))
    assert "mount the camera firmly" in str(sharp.advice(enrolled=True))
    both = str(unenrolled.advice(enrolled=False))
    assert "blurred (2.6 px)" in both and "enrol it" in both
    assert sharp.blur_px == 0.8 and UnreadTiles().blur_px is None
