"""The README's engine example runs as written."""

import doctest
from pathlib import Path


def test_readme_engine_example() -> None:
    text = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, "README.md", "README.md", 0)
    assert test.examples, "the README lost its engine example"
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.failures == 0


def test_doctests_of_engine_and_wiring() -> None:
    import importlib

    modules = [
        "engine.tiles",
        "engine.layout",
        "engine.position",
        "engine.sets",
        "engine.seats",
        "engine.turn",
        "engine.game",
        "engine.simulate",
        "setupcam.store",
        "setupcam.session",
        "vision.decoder",
        "vision.stability",
        "vision.deblur",
        "vision.unread",
        "vision.motion",
        "vision.recognizer",
        "vision.enrollment",
        "vision.six_nine",
        "vision.tile_templates",
        "vision.value_check",
        "vision.tile_colour",
        "vision.network_input",
        "vision.training.provenance",
        "vision.training.fit",
        "vision.training.augment",
        "vision.training.evaluate",
        "vision.training.space_to_depth",
        "calibration.camera_file",
        "calibration.board_location",
        "calibration.orientation",
        "calibration.board_finder",
        "calibration.board_tracker",
        "benchmarks.run_all",
        "benchmarks.bench_recognizer",
    ]
    for name in modules:
        result = doctest.testmod(importlib.import_module(name))
        assert result.failed == 0, name
