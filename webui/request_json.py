"""Reading a request's JSON body so that no body, however hostile, ends in a 500."""

from __future__ import annotations

from typing import Any

from flask import request
from werkzeug.exceptions import BadRequest

TOO_DEEP = "the request body is not valid JSON (it is nested too deeply)"


def request_json() -> Any:
    """The body parsed as JSON, or ``None`` when it is not JSON (Flask's silent reading).

    Raises :class:`werkzeug.exceptions.BadRequest` (answered as a 400 JSON error)
    for JSON nested too deeply to parse.
    """
    try:
        return request.get_json(silent=True)
    except RecursionError:
        # Python's JSON parser recurses once per nesting level, and "silent" only
        # swallows ValueError: '[' * 100000 (well under the body limit) exhausts the
        # stack. No real request nests anywhere near that deep.
        raise BadRequest(TOO_DEEP) from None
