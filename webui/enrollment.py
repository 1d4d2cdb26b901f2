"""The Enrol page: teach setupcam your tile set with the camera over the table.

The page walks through :class:`setupcam.enrollment_guide.EnrollmentGuide`'s steps;
each answer is the guide's state, and a step it cannot take is a JSON error (409
for the moment's reason, 400 for a request that is wrong in itself).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, render_template, request

from setupcam.enrollment_guide import EnrollmentGuide, GuideError, GuideInputError
from webui.request_json import request_object

enrollment = Blueprint("enrollment", __name__)


class NoGuide(Exception):
    """The dashboard runs without a camera: there is nothing to photograph with."""


@enrollment.errorhandler(GuideError)
@enrollment.errorhandler(NoGuide)
def refused(err: Exception) -> Any:
    status = 400 if isinstance(err, GuideInputError) else 409
    return jsonify(error=str(err)), status


@enrollment.before_request
def bodies_are_objects() -> None:
    """Every step's body is a JSON object, or nothing (as the rest of the API)."""
    if request.method == "POST":
        request_object()


@enrollment.get("/enroll")
def page() -> Any:
    return render_template("enroll.html")


@enrollment.get("/api/enrollment")
def state() -> Any:
    return jsonify(_guide().state())


@enrollment.post("/api/enrollment/start")
def start() -> Any:
    return jsonify(_guide().start())


@enrollment.post("/api/enrollment/show")
def show() -> Any:
    return jsonify(_guide().show(_photo()))


@enrollment.post("/api/enrollment/take")
def take() -> Any:
    return jsonify(_guide().take(_photo()))


@enrollment.post("/api/enrollment/finish")
def finish() -> Any:
    return jsonify(_guide().finish())


@enrollment.post("/api/enrollment/close")
def close() -> Any:
    return jsonify(_guide().close())


def _guide() -> EnrollmentGuide:
    guide: EnrollmentGuide | None = current_app.extensions.get("setupcam.enrollment")
    if guide is None:
        raise NoGuide("enrolment needs the live camera: start setupcam serve (or demo)")
    return guide


def _photo() -> Any:
    body = request_object()
    if "photo" not in body:
        raise GuideInputError('the request body must be {"photo": N}, N counted from 0')
    return body["photo"]
