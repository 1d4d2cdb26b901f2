"""The blur benchmark's pieces, on one small tile set, so the script cannot rot."""

from __future__ import annotations

from benchmarks.bench_photo_blur import (
    ADDED_BLUR,
    HARM_FIRST_SEED,
    enrolled_from_blurred_photos,
    measure_ms,
    photo_blurs,
)
from vision.photo_blur import BLURRED_PX
from vision.recognizer import TileRecognizer


def test_every_photo_is_measured_at_both_resolutions() -> None:
    blurs = photo_blurs("split", range(7000, 7001))
    assert len(blurs) == 10 and all(0 < b < BLURRED_PX for b in blurs)


def test_a_set_enrolled_from_blurred_photos_is_refused_and_reads_worse() -> None:
    rows = enrolled_from_blurred_photos(TileRecognizer.load(), HARM_FIRST_SEED, tests=2)
    assert [r["sigma"] for r in rows] == list(ADDED_BLUR)
    assert len({r["squares"] for r in rows}) == 1 and rows[0]["squares"] >= 12
    sharp, most = rows[0], rows[-1]
    assert not sharp["blur_refused"] and not sharp["read_back_refused"] and not sharp["noted_soft"]
    assert most["blur_refused"]
    assert most["unread"] > sharp["unread"]
    for r in rows:
        assert 0 <= r["wrong"] <= r["squares"] - r["unread"]


def test_the_cost_is_timed_at_both_resolutions() -> None:
    times = measure_ms(repeats=2)
    assert set(times) == {"720p", "1080p"} and all(ms > 0 for ms in times.values())
