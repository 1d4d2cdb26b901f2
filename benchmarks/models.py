"""What the benchmarks check about a model before reading anything with it."""

from __future__ import annotations

from pathlib import Path

from vision.recognizer import TileRecognizer


def model_problem(paths: list[Path | None]) -> str | None:
    """Why a benchmark cannot read enrolled sets with these models (None stands for
    the shipped one), said before minutes of rendering rather than after: a model file
    that is not there, or an enrolment base its ``.json`` names that is not beside it.
    None if every one can be read."""
    for path in paths:
        if path is not None and not path.is_file():
            return f"{path}: no such model file"
        try:
            TileRecognizer.load(path).enrollment_base  # noqa: B018 - opening it is the check
        except FileNotFoundError as err:
            return f"{err.strerror}: {err.filename} (copy it beside the model)"
    return None
