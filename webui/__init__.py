"""The Flask dashboard: live view, scoreboard, turn log, actions and calibration.

Built by :func:`create_app` from a :class:`~setupcam.session.GameSession` (the game)
and an optional camera control (live frames and board corners), so the same app
serves the simulated demo, a real camera, and the tests.
"""

from webui.app import CameraControl, create_app

__all__ = ["CameraControl", "create_app"]
