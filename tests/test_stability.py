import numpy as np

from vision.stability import StabilityTracker, pooled


def frames(labels: list[int], n: int = 3) -> dict[str, np.ndarray]:
    return {f"s{i}": np.eye(n)[label] for i, label in enumerate(labels)}


def test_one_view_per_still_moment() -> None:
    tracker = StabilityTracker(settle_s=0.3)
    views = [tracker.update(t / 10, frames([0, 1]), obstructed=False) for t in range(10)]
    assert sum(v is not None for v in views) == 1
    assert views[3] is not None and views[3].frames == 4
    assert tracker.current_view is views[3]


def test_obstruction_restarts_the_wait() -> None:
    tracker = StabilityTracker(settle_s=0.3)
    assert tracker.update(0.0, frames([0]), obstructed=False) is None
    assert tracker.update(0.2, frames([0]), obstructed=True) is None
    assert tracker.current_view is None
    assert tracker.update(0.3, frames([0]), obstructed=False) is None
    assert tracker.update(0.5, frames([0]), obstructed=False) is None
    assert tracker.update(0.6, frames([0]), obstructed=False) is not None


def test_a_flickering_reading_is_averaged_not_waited_out() -> None:
    tracker = StabilityTracker(settle_s=0.3)
    outputs = [tracker.update(t / 10, frames([t % 2]), obstructed=False) for t in range(10)]
    views = [v for v in outputs if v is not None]
    assert len(views) == 1
    assert np.allclose(views[0].probabilities["s0"], [0.5, 0.5, 0.0], atol=1e-5)


def test_view_pools_its_frames() -> None:
    # The frames' geometric mean, renormalised: frames that all lean one way make a
    # view surer than their plain average (0.733 here), a class every frame rules out
    # stays out.
    tracker = StabilityTracker(settle_s=0.2)
    a = {"s": np.array([0.8, 0.2, 0.0])}
    b = {"s": np.array([0.6, 0.4, 0.0])}
    tracker.update(0.0, a, False)
    tracker.update(0.1, b, False)
    view = tracker.update(0.2, a, False)
    assert view is not None
    first, second = (0.8 * 0.6 * 0.8) ** (1 / 3), (0.2 * 0.4 * 0.2) ** (1 / 3)
    total = first + second
    assert np.allclose(view.probabilities["s"], [first / total, second / total, 0.0])
    assert view.probabilities["s"][0] > 2.2 / 3


def test_lost_board_resets() -> None:
    tracker = StabilityTracker(settle_s=0.1)
    tracker.update(0.0, frames([0]), False)
    tracker.update(0.2, frames([0]), False)
    assert tracker.current_view is not None
    tracker.update(0.3, None, False)
    assert tracker.current_view is None


def test_pooled_readings_agreeing_are_surer_than_either_alone() -> None:
    frames_reading = np.array([0.95, 0.04, 0.01])
    closer_look = np.array([0.999, 0.0005, 0.0005])
    p = pooled(frames_reading, closer_look)
    assert np.isclose(p.sum(), 1.0)
    # Their average (0.9745) would stay under a 0.99 threshold; the pool does not.
    assert p[0] > 0.99 > (frames_reading[0] + closer_look[0]) / 2


def test_pooled_readings_that_disagree_stay_unsure() -> None:
    p = pooled(np.array([0.9, 0.1, 0.0]), np.array([0.1, 0.9, 0.0]))
    assert np.allclose(p[:2], 0.5) and p[2] < 1e-9
    # A class one reading rules out entirely is not revived; no division by zero.
    q = pooled(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    assert np.isfinite(q).all() and np.isclose(q.sum(), 1.0)


def test_a_view_keeps_the_crops_of_its_frames_oldest_first() -> None:
    tracker = StabilityTracker(settle_s=0.3)
    views = []
    for t in range(5):
        crops = np.full((1, 2, 2, 3), 10 * t, np.uint8)
        views.append(tracker.update(t / 10, frames([0]), obstructed=False, crops=crops))
    view = next(v for v in views if v is not None)
    assert view.frames == 4 and view.frame_crops is not None
    assert [int(c[0, 0, 0, 0]) for c in view.frame_crops] == [0, 10, 20, 30]


def test_a_view_has_no_crops_if_a_frame_came_without() -> None:
    tracker = StabilityTracker(settle_s=0.3)
    crops = np.zeros((1, 2, 2, 3), np.uint8)
    views = []
    for t in range(5):
        given = None if t == 1 else crops
        views.append(tracker.update(t / 10, frames([0]), obstructed=False, crops=given))
    decided = [view for view in views if view is not None]
    assert len(decided) == 1 and decided[0].frame_crops is None
