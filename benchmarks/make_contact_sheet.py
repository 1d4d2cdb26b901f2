"""Make ``docs/synth-contact-sheet.jpg``: a few simulated frames of every art family.

One row per family (held-out families marked), four frames each, two with hands::

    .venv/bin/python benchmarks/make_contact_sheet.py [--out docs/synth-contact-sheet.jpg]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from vision.synth import FAMILIES, HELDOUT_FAMILIES, random_scene, render_frame

THUMB = (512, 288)
LABEL_WIDTH = 150
COLUMNS = 4


def contact_sheet(seed: int = 2024) -> np.ndarray:
    rows = []
    for f_index, family in enumerate(FAMILIES):
        thumbs = []
        for column in range(COLUMNS):
            rng = np.random.default_rng([seed, f_index, column])
            scene = random_scene(rng, family=family, hands=column >= 2, resolution=(1280, 720))
            frame = render_frame(scene, rng)
            thumbs.append(cv2.resize(frame.image, THUMB, interpolation=cv2.INTER_AREA))
        label = np.full((THUMB[1], LABEL_WIDTH, 3), 32, np.uint8)
        cv2.putText(
            label, family, (10, 130), cv2.FONT_HERSHEY_DUPLEX, 0.9, (255, 255, 255), 1, cv2.LINE_AA
        )
        if family in HELDOUT_FAMILIES:
            cv2.putText(
                label,
                "held out",
                (10, 165),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.6,
                (80, 200, 255),
                1,
                cv2.LINE_AA,
            )
        rows.append(np.hstack([label, *thumbs]))
    return np.vstack(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/synth-contact-sheet.jpg"))
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--quality", type=int, default=82)
    args = parser.parse_args()
    sheet = contact_sheet(args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(args.out), sheet, [cv2.IMWRITE_JPEG_QUALITY, args.quality])
    print(f"{args.out}: {sheet.shape[1]}x{sheet.shape[0]}, {args.out.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
