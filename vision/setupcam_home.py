"""Where setupcam keeps the user's files: ``$SETUPCAM_HOME``, else ~/.local/share/setupcam.

The enrolled tile set (:func:`vision.recognizer.default_enrollment_path`) and the games
database (``setupcam serve``, :mod:`setupcam.live_app`) are kept there. The rule lives
in vision, not in setupcam, because data flows one way (camera → vision → position →
engine → webui): setupcam imports vision, and vision never imports setupcam.
"""

from __future__ import annotations

import os
from pathlib import Path


def setupcam_home() -> Path:
    """``$SETUPCAM_HOME`` if it is set and not empty, else ``~/.local/share/setupcam``.

    Read at every call, not once at import: every test gets a home of its own."""
    home = os.environ.get("SETUPCAM_HOME")
    return Path(home) if home else Path.home() / ".local" / "share" / "setupcam"
