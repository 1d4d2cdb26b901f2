"""``setupcam synth``: write simulated camera frames with their ground truth.

Stills: ``setupcam synth --out DIR --scenes N --seed S [--style FAMILY] [--hands]``
writes ``scene_0000.jpg`` and ``scene_0000.json`` (the truth) per scene. A game:
``setupcam synth --game --seed S --out DIR [--hands] [--video game.mp4]`` writes
``frame_00000.jpg`` per frame (or one video) and ``events.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from setupcam.cli import seed


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "synth",
        help="render simulated camera frames of SETUP with ground truth",
        description="Render photo-like frames of a SETUP board with exact ground truth.",
    )
    parser.add_argument("--out", required=True, type=Path, help="output directory")
    parser.add_argument(
        "--scenes", type=int, help="number of still scenes (default 10; not with --game)"
    )
    parser.add_argument("--seed", type=seed, default=0, help="random seed (same seed, same images)")
    parser.add_argument(
        "--style", metavar="FAMILY", help="art family (default: any training family)"
    )
    parser.add_argument("--hands", action="store_true", help="hands reaching over the board")
    parser.add_argument("--resolution", default="1280x720", help="WIDTHxHEIGHT (default 1280x720)")
    parser.add_argument("--game", action="store_true", help="render a whole simulated game")
    parser.add_argument(
        "--video", metavar="FILE", help="with --game: write an mp4 instead of JPEGs"
    )
    parser.add_argument("--fps", type=float, help="with --game: frames per second (default 15)")
    parser.add_argument(
        "--max-turns", type=int, help="with --game: stop the game after N turns (default 400)"
    )
    parser.set_defaults(handler=run)


def _resolution(text: str) -> tuple[int, int]:
    from setupcam.cli import UsageError

    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--resolution must look like 1280x720, not {text!r}") from None
    if not (64 <= width <= 7680 and 64 <= height <= 4320):
        raise UsageError(f"--resolution {text} is out of range")
    return width, height


def run(args: argparse.Namespace) -> int:
    from setupcam.cli import UsageError
    from vision.synth.styles import FAMILIES

    if args.style is not None and args.style not in FAMILIES:
        raise UsageError(f"unknown style {args.style!r}; families: {', '.join(FAMILIES)}")
    # An option the chosen mode does not use is a mistake, not a thing to drop unsaid.
    if args.game and args.scenes is not None:
        raise UsageError("--scenes is for still scenes: leave it out with --game")
    for flag in ("video", "fps", "max_turns"):
        if not args.game and getattr(args, flag) is not None:
            raise UsageError(f"--{flag.replace('_', '-')} goes with --game")
    args.scenes = 10 if args.scenes is None else args.scenes
    args.fps = 15.0 if args.fps is None else args.fps
    args.max_turns = 400 if args.max_turns is None else args.max_turns
    if args.fps <= 0 or args.max_turns < 1:
        raise UsageError("--fps must be positive and --max-turns at least 1")
    if args.scenes < 0:
        raise UsageError("--scenes must be 0 or more")
    resolution = _resolution(args.resolution)
    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out}: is a file, not a folder")
    video = _video_path(args) if args.video else None
    args.out.mkdir(parents=True, exist_ok=True)
    if args.game:
        return _run_game(args, resolution, video)
    return _run_stills(args, resolution)


def _video_path(args: argparse.Namespace) -> Path:
    """Where ``--video`` writes: a bare name goes into ``--out``; another path must
    name a folder that is there."""
    from setupcam.cli import UsageError

    video = Path(args.video)
    if not video.is_absolute() and video.parent == Path("."):
        return args.out / video
    if not video.parent.is_dir():
        raise UsageError(f"--video {video}: no such folder {video.parent}")
    return video


def _run_stills(args: argparse.Namespace, resolution: tuple[int, int]) -> int:
    import cv2
    import numpy as np

    from vision.synth.scene import random_scene, render_frame

    root = np.random.SeedSequence(args.seed)
    for index, child in enumerate(root.spawn(args.scenes)):
        rng = np.random.default_rng(child)
        scene = random_scene(rng, family=args.style, hands=args.hands, resolution=resolution)
        frame = render_frame(scene, rng, encode_jpeg=False)
        stem = args.out / f"scene_{index:04d}"
        quality = scene.photo.jpeg_quality or 95
        cv2.imwrite(str(stem.with_suffix(".jpg")), frame.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        stem.with_suffix(".json").write_text(json.dumps(frame.truth.to_json(), ensure_ascii=False))
        if args.scenes >= 10:
            print(f"\rsynth: {index + 1}/{args.scenes} scenes", end="", file=sys.stderr, flush=True)
    if args.scenes >= 10:
        print(file=sys.stderr)
    return 0


def _run_game(args: argparse.Namespace, resolution: tuple[int, int], video: Path | None) -> int:
    import cv2

    from setupcam.cli import UsageError
    from vision.synth.sequence import GameStream

    stream = GameStream.random(
        args.seed,
        family=args.style,
        hands=args.hands,
        resolution=resolution,
        fps=args.fps,
        max_turns=args.max_turns,
    )
    writer = None
    if video is not None:
        writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), args.fps, resolution)
        if not writer.isOpened():
            raise UsageError(f"cannot write video {video}")
    count = 0
    with open(args.out / "events.jsonl", "w", encoding="utf-8") as events_file:
        for index, (frame, events) in enumerate(stream):
            if writer is not None:
                writer.write(frame.image)
            else:
                cv2.imwrite(str(args.out / f"frame_{index:05d}.jpg"), frame.image)
            for event in events:
                events_file.write(
                    json.dumps({"frame": index, **event.to_json()}, ensure_ascii=False)
                )
                events_file.write("\n")
            count = index + 1
            if count % 30 == 0:
                print(f"\rsynth: {count} frames", end="", file=sys.stderr, flush=True)
    if writer is not None:
        writer.release()
    where = f"{video} (events in {args.out})" if video is not None else str(args.out)
    print(f"\rsynth: {count} frames written to {where}", file=sys.stderr)
    return 0
