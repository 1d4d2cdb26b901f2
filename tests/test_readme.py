"""The README's engine example, and every docstring example in the code, run as written."""

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


def test_every_docstring_example_runs() -> None:
    import importlib
    import pkgutil

    # Found, not listed: a module added later has its examples run too.
    names = []
    for package in ("engine", "vision", "calibration", "setupcam", "webui", "benchmarks"):
        names.append(package)
        found = pkgutil.walk_packages(importlib.import_module(package).__path__, f"{package}.")
        # A __main__ module runs its command when imported.
        names += [m.name for m in found if not m.name.endswith("__main__")]
    assert "engine.tiles" in names and "vision.training.model" in names
    attempted = 0
    for name in names:
        result = doctest.testmod(importlib.import_module(name))
        assert result.failed == 0, name
        attempted += result.attempted
    assert attempted > 300  # the examples were found, not skipped
