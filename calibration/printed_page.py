"""Pages the user prints at 100 %: millimetres to pixels at 300 dpi, and the file written.

The lens target (:mod:`calibration.lens`) and the corner markers
(:mod:`calibration.markers`) are both drawn as a grey A4 page at :data:`DPI` and written
as PNG or PDF, so that a printer reproduces every millimetre::

    >>> mm_to_px(25.4)
    300
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

DPI = 300  # written into each file too, so that the page prints at its size in millimetres


def mm_to_px(mm: float) -> int:
    """The pixels that ``mm`` millimetres span on a page drawn at :data:`DPI`."""
    return round(mm * DPI / 25.4)


def write_page(page: np.ndarray, path: str | Path) -> None:
    """Write a 300 dpi page as PNG or PDF (chosen by the suffix), at true A4 scale."""
    from PIL import Image

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise ValueError(f"{path}: output must end in .png or .pdf")
    image = Image.fromarray(page)
    if suffix == ".pdf":
        # Pillow maps pixels to PDF points through the resolution: 300 dpi -> A4 size.
        image.convert("RGB").save(path, "PDF", resolution=float(DPI))
    else:
        image.save(path, "PNG", dpi=(DPI, DPI))
