"""Reading a request's JSON body so that no body, however hostile, ends in a 500."""

from __future__ import annotations

from typing import Any

from flask import request
from werkzeug.exceptions import BadRequest

from setupcam import strict_json

TOO_DEEP = "the request body is not valid JSON (it is nested too deeply)"


def request_json() -> Any:
    """The body parsed as JSON, or ``None`` when it is not JSON (as Flask's silent
    reading), with a key given twice in one object refused.

    Raises :class:`werkzeug.exceptions.BadRequest` (answered as a 400 JSON error)
    for JSON nested too deeply to parse.
    """
    if not request.is_json:
        return None
    try:
        return strict_json.loads(request.get_data(cache=True))
    except strict_json.DuplicateKeyError as err:
        # The standard reader would keep the last silently: a lost tile or card.
        raise BadRequest(f"the request body is not clear: {err}") from None
    except ValueError:  # not JSON (nor UTF-8)
        return None
    except RecursionError:
        # Python's JSON parser recurses once per nesting level, and "silent" only
        # swallows ValueError: '[' * 100000 (well under the body limit) exhausts the
        # stack. No real request nests anywhere near that deep.
        raise BadRequest(TOO_DEEP) from None


def request_object() -> dict[str, Any]:
    """The body as a JSON object, ``{}`` when there is none; a 400 for anything else
    (a body that is not JSON, or JSON that is not an object)."""
    data = request_json()
    if data is None:
        # The body itself, not Content-Length: a chunked request has none, and its
        # malformed body must not pass for "no arguments" (an undo, a swap).
        if request.content_length or request.get_data(cache=True):
            raise BadRequest("the request body must be a JSON object")
        return {}
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    return data
