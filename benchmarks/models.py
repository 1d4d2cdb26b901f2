"""What the benchmarks check about a model before reading anything with it."""

from __future__ import annotations

from pathlib import Path

from vision.recognizer import TileRecognizer


def missing_model(paths: list[Path | None]) -> str | None:
    """The first model file asked for that is not there, said as an error, or None
    (None stands for the shipped model)."""
    for path in paths:
        if path is not None and not path.is_file():
            return f"{path}: no such model file"
    return None


def missing_enrollment_base(recognizer: TileRecognizer) -> str | None:
    """Why an enrolled set cannot be read with ``recognizer`` (the enrolment base its
    ``.json`` names is not beside it), or None. Said before minutes of rendering, not
    after."""
    try:
        recognizer.enrollment_base  # noqa: B018 - opening it is the check
    except FileNotFoundError as err:
        return f"{err.strerror}: {err.filename} (copy it beside the model)"
    return None
