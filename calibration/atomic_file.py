"""A file replaced in one step: written beside its place, then renamed over it.

A crash, a full disk or a failed write never leaves half a file where the commands
and the live app read it; the file that was there stays as it was.

    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "calibration.json"
    >>> with replaced_atomically(path) as handle:
    ...     _ = handle.write(b"{}")
    >>> path.read_bytes()
    b'{}'
    >>> with replaced_atomically(path) as handle:
    ...     _ = handle.write(b"half a fi")
    ...     raise OSError("disk full")
    Traceback (most recent call last):
    OSError: disk full
    >>> path.read_bytes(), sorted(p.name for p in path.parent.iterdir())
    (b'{}', ['calibration.json'])
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


@contextmanager
def replaced_atomically(path: str | Path) -> Iterator[BinaryIO]:
    """A binary handle whose bytes become ``path`` once the block ends without error."""
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    # A hidden name of its own in the same folder: the rename stays on one file system,
    # and two writers never share a temporary file.
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
        # mkstemp's file is the owner's alone; the file it replaces keeps its own mode.
        os.chmod(temporary, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
