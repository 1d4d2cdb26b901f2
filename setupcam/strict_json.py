"""JSON that refuses a key given twice in one object.

The standard reader keeps the last of two equal keys without a word, so a file or a
request saying ``{"b2": "4h", "b2": "5h"}`` would lose a tile (or a player's cards)
silently. Every JSON a user writes is read here instead.

    >>> loads('{"red": 1, "red": 2}')
    Traceback (most recent call last):
    ...
    setupcam.strict_json.DuplicateKeyError: 'red' is given twice in one object
"""

from __future__ import annotations

import json
from typing import Any


class DuplicateKeyError(ValueError):
    """A key given twice in one JSON object."""


def loads(text: str | bytes) -> Any:
    """``json.loads``, but a key given twice in one object is a :class:`DuplicateKeyError`."""
    return json.loads(text, object_pairs_hook=_no_duplicate_keys)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise DuplicateKeyError(f"{key!r} is given twice in one object")
        data[key] = value
    return data
