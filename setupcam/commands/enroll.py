"""``setupcam enroll``: learn the look of your own tile set from a few photos.

``setupcam enroll --calibration FILE IMAGE=POSITION.json ... [--out FILE]``;
``setupcam enroll --plan DIR`` writes a plan's five position files first. (The
dashboard's Enrol tiles page does all of it with the live camera:
:mod:`setupcam.enrollment_guide`.)

Lay out known positions (for example all 50 tiles over 5 photos, 12 at a time),
photograph each with the calibrated camera and write what is on every square in a
position file (contract section 3; empty squares may be omitted, ASCII tiles are
fine). Enrolment takes a few seconds, needs no training, and writes
``~/.local/share/setupcam/enrollment.npz`` (or ``$SETUPCAM_HOME/enrollment.npz``),
where ``setupcam recognize`` and the live app pick it up; with ``--out FILE`` use
``--enrollment FILE`` to read it. An enrolment already there is kept beside the new one
(``enrollment.previous.npz``; the two before it as ``enrollment.previous-2.npz`` and
``-3``). The file keeps the photos' boards, so that networks
shipped later learn the set again from them by themselves. The photos must show every
value (1-10) and every suit at least once. The summary says which tiles were seen, which are
missing, and how well the photos themselves are read back.

Nothing is written (exit code 2, the enrolment already there is kept) when:

- a photo is given twice;
- a photo is blurred (:mod:`vision.photo_blur`): a set learnt from blurred photos reads
  the game's sharp frames doubtfully, though the photos read each other back whole;
- a photo plainly contradicts its position file: a square the file says is empty holds
  a tile, or one it gives a tile looks bare (:func:`vision.enrollment.contradicted_squares`),
  which is what a photo paired with the wrong file looks like;
- the photos, read with the set learnt from them, do not read back as their files say
  (under 95% of their squares, or under 80% of one photo's): a file naming tiles on the
  wrong squares, or a photo too dark or smeared to learn from.

The Enrol tiles page refuses the same.
"""

from __future__ import annotations

import argparse
from pathlib import Path

READ_BACK_LEAST = 0.95
"""Below this share of the photos' own squares read back right, enrolment refuses them: photos
and files that do not belong together, or photos too blurred to learn from. The 60
held-out sets of the enrolment benchmark all read their photos back whole (60 of 60),
blurred photos among them; the live eval's game 100009, whose camera smears every frame
by 6 px of motion, reads back 55 of 60 (session 21)."""


PHOTO_READ_BACK = 0.8
"""Below this share of one photo's own squares read back right, enrolment refuses it
even when the photos together read back well: a photo blurred by a missed focus leaves
a quarter of its squares unread, and teaches the set its suit colours wrongly."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "enroll",
        help="learn the look of your tile set from photos of known positions",
        description=(
            "Teach setupcam your physical tile set: give photos with the position each one "
            "shows, as IMAGE=POSITION.json pairs (e.g. all 50 tiles over 5 photos)."
        ),
    )
    parser.add_argument(
        "pairs", nargs="*", metavar="IMAGE=POSITION.json", help="a photo and its position file"
    )
    parser.add_argument(
        "--plan",
        type=Path,
        metavar="DIR",
        help="write the five position files of a plan to lay out (photo1.json ...), and "
        "print what goes where; then photograph each and enrol with them",
    )
    parser.add_argument(
        "--calibration",
        type=Path,
        metavar="FILE",
        help="calibration file with the board corners (else the board is found in each photo)",
    )
    parser.add_argument(
        "--out", type=Path, metavar="FILE", help="where to write (default: where recognize looks)"
    )
    parser.add_argument("--model", type=Path, metavar="FILE", help="tile model (.onnx)")
    parser.add_argument("--layout", metavar="FILE", help="board layout file")
    parser.set_defaults(handler=run)


def _split_pair(text: str) -> tuple[Path, Path]:
    from setupcam.cli import UsageError

    image, sep, position = text.rpartition("=")
    if not sep or not image or not position:
        raise UsageError(f"{text!r}: give each photo as IMAGE=POSITION.json")
    return Path(image), Path(position)


def write_plan(folder: Path, layout) -> int:
    """``--plan``: the plan's positions as files, and in words, with the next step."""
    import json

    from setupcam.cli import UsageError
    from vision.enrollment_plan import enrolment_plan, plan_text

    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--plan {folder}: is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        pairs = []
        for number, position in enumerate(enrolment_plan(layout), 1):
            path = folder / f"photo{number}.json"
            path.write_text(json.dumps(position.to_json(), ensure_ascii=False) + "\n", "utf-8")
            print(f"photo {number} ({path}): {plan_text(position)}")
            pairs.append(f"photo{number}.jpg={path}")
    except OSError as err:
        raise UsageError(f"--plan {folder}: cannot write there ({err.strerror or err})") from None
    print(
        "lay out each photo's tiles (squares named as on the Calibrate page, whose S "
        "edge is south), photograph it as "
        f"photo1.jpg ... photo{len(pairs)}.jpg, then run (with --calibration FILE if you "
        f"calibrated the camera):\n  setupcam enroll {' '.join(pairs)}"
    )
    return 0


def run(args: argparse.Namespace) -> int:

    from calibration.board_finder import find_board
    from calibration.board_location import BoardNotFound
    from setupcam.cli import UsageError
    from setupcam.inputs import (
        existing_file,
        read_image,
        read_layout,
        read_position_file,
        refuse_repeated_photos,
    )
    from vision.enrollment import (
        EnrollmentSample,
        build_enrollment,
        save_keeping_previous,
    )
    from vision.recognizer import LABELS, TileRecognizer, default_enrollment_path

    layout = read_layout(args.layout)
    if args.plan is not None:
        others = [f"--{flag}" for flag in ("out", "calibration", "model") if getattr(args, flag)]
        if args.pairs or others:
            given = ", ".join(others) or "photos"
            raise UsageError(f"--plan writes the files to photograph: give it alone (not {given})")
        return write_plan(args.plan, layout)
    if not args.pairs:
        raise UsageError("give the photos as IMAGE=POSITION.json pairs (or --plan DIR first)")
    cal = None
    if args.calibration is not None:
        from calibration.camera_file import load_calibration

        cal = load_calibration(existing_file(args.calibration, "calibration file"))
    if args.out is not None:
        if args.out.is_dir():
            raise UsageError(f"--out {args.out}: is a folder, not a file")
        if not args.out.parent.is_dir():
            raise UsageError(f"--out {args.out}: no such folder {args.out.parent}")
    pairs = [_split_pair(p) for p in args.pairs]
    refuse_repeated_photos(
        [image for image, _ in pairs],
        "pair each photo with its own position file, once (IMAGE=POSITION.json)",
    )
    if args.model is not None:
        existing_file(args.model, "model file")
    model = TileRecognizer.load(args.model)
    samples = []
    for image_path, position_path in pairs:
        position = read_position_file(position_path, layout)
        image = read_image(image_path)
        corners = None
        if cal is not None:
            from calibration.camera_file import LensMismatch, undistort

            try:
                image = undistort(image, cal)
            except LensMismatch as err:
                raise UsageError(f"{image_path}: {err}") from None
            corners = cal.board_corners_array()
        if corners is None:
            try:
                location = find_board(image, layout)
            except BoardNotFound as err:
                raise UsageError(f"{image_path}: board not found ({err.reason})") from None
            corners = location.corners
            if location.orientation_source == "nearest-edge":
                # South was a guess (the edge nearest the camera): the photo's own file
                # says which edge is which, as the Enrol tiles page lets it.
                corners = _turned_to_its_file(model, image, corners, position, layout)
        samples.append(EnrollmentSample(image, corners, position, str(image_path)))

    focus = photos_by_focus(samples)
    _refuse_blurred_photos(focus["blurred"])
    _refuse_contradicted_photos(model, samples, pairs, layout)
    try:
        enrollment = build_enrollment(model, samples, layout)
    except ValueError as err:
        # Photos that miss a value or a suit: the plan's five show all 50 tiles.
        plan = "; `setupcam enroll --plan DIR` lays out all 50 tiles over 5 photos"
        hint = plan if "must show every value" in str(err) else ""
        raise UsageError(f"cannot enrol: {err}{hint}") from None
    # Read the photos back, before and after, so the user sees what enrolment did; and
    # before anything is written: a set learnt from photos that do not read back (a
    # blurred photo, a file naming tiles on the wrong squares) misreads the game, so it
    # is refused as the Enrol tiles page refuses it, and the enrolment there is kept.
    right_before, total, _ = read_back(model, samples, layout)
    per_photo, right_after, _, misread = read_back_each(
        model.with_enrollment(enrollment), samples, layout
    )
    _refuse_photos_not_read_back(per_photo, pairs, right_after, total)
    out = Path(args.out or default_enrollment_path())
    try:
        # A new enrolment may be worse than the one it replaces (other photos, other
        # light): the old one is kept beside it.
        replaced = save_keeping_previous(enrollment, out)
    except OSError as err:
        raise UsageError(f"{out}: cannot write the enrolment ({err.strerror or err})") from None

    tiles_seen = [LABELS[i] for i in range(50) if enrollment.counts[i] > 0]
    missing = [LABELS[i] for i in range(50) if enrollment.counts[i] == 0]
    print(f"enrolled {len(samples)} photos, {total} squares -> {out}")
    if replaced is not None:
        print(f"the enrolment there before is kept as {replaced}")
    print(f"tiles seen: {len(tiles_seen)}/50; empty squares seen: {int(enrollment.counts[50])}")
    print(f"tiles missing: {' '.join(missing) if missing else 'none'}")
    print(
        f"enrolment photos read back: {right_after}/{total} squares right "
        f"({100 * right_after / total:.1f}%; not enrolled {100 * right_before / total:.1f}%)"
    )
    print(six_nine_summary(enrollment.six_nine))
    print(value_check_summary(enrollment.value_check))
    if misread:
        print(f"misread: {', '.join(misread[:20])}{' ...' if len(misread) > 20 else ''}")
    for note in tiles_named_twice(samples, layout):
        print(f"note: {note}")
    if focus["a little soft"]:
        print(f"note: {soft_message(focus['a little soft'])}")
    if missing:
        print(
            "tip: tiles not shown are read from their value and suit seen on other tiles; "
            "photograph them too and enrol again for the best reading"
        )
    return 0


def tiles_named_twice(samples, layout) -> list[str]:
    """One note per tile that the photos' position files name on more than one square:
    a set has one of each tile, so a file is likely mistyped there (a tile that is
    still a tile: ``4♥`` for ``4★``), and the "missing" tile was in fact photographed.
    The same tile photographed twice, moved between two photos, is noted too."""
    where: dict[str, list[str]] = {}
    for sample in samples:
        for square in layout.squares:
            tile = sample.position[square]
            if tile is not None:
                where.setdefault(str(tile), []).append(f"{sample.name}:{square}")
    return [
        f"{tile} is named on {' and '.join(squares)}: a set has one {tile}; if a position "
        "file is mistyped there, mend it (the misread squares above say what those photos "
        "show) and enrol again"
        for tile, squares in where.items()
        if len(squares) > 1
    ]


def read_back(recognizer, samples, layout) -> tuple[int, int, list[str]]:
    """How many of the photos' squares ``recognizer`` reads as their positions say, of
    how many, and the misread ones (``photo:square (reading)``): at four turns, as
    ``recognize`` reads a photo."""
    from vision.enrollment import position_labels

    right, total, misread = 0, 0, []
    for sample in samples:
        truth = position_labels(sample.position, layout)
        readings = recognizer.read_board(sample.image, sample.corners, layout, all_turns=True)
        for square, want in zip(layout.squares, truth, strict=True):
            reading = readings[square]
            total += 1
            if reading.best_index == want and reading.label != "?":
                right += 1
            else:
                misread.append(f"{sample.name}:{square} ({reading.text or 'empty'})")
    return right, total, misread


def read_back_each(
    recognizer, samples, layout
) -> tuple[list[tuple[int, int, list[str]]], int, int, list[str]]:
    """:func:`read_back` photo by photo, and its sums: each photo's (right, total,
    misread), then right, total and misread over them all."""
    per_photo = [read_back(recognizer, [sample], layout) for sample in samples]
    right = sum(r for r, _, _ in per_photo)
    total = sum(t for _, t, _ in per_photo)
    misread = [m for _, _, photo_misread in per_photo for m in photo_misread]
    return per_photo, right, total, misread


def photos_to_retake(per_photo: list[tuple[int, int, list[str]]]) -> list[int]:
    """Which photos (indexes from 0) to take again, given each photo's read back with
    the set learnt from them all (:func:`read_back`'s right, total, misread): none when
    they read back as their files say. A photo under :data:`PHOTO_READ_BACK` of its own
    squares is retaken; and when all of them together are under :data:`READ_BACK_LEAST`,
    the photos with the most squares misread and those with half as many.

    >>> photos_to_retake([(12, 12, []), (12, 12, [])])
    []
    >>> photos_to_retake([(12, 12, []), (9, 12, ["b2", "c2", "c3"])])  # a blurred photo
    [1]
    """
    poor = [i for i, (right, total, _) in enumerate(per_photo) if right < PHOTO_READ_BACK * total]
    right = sum(r for r, _, _ in per_photo)
    total = sum(t for _, t, _ in per_photo)
    if poor or right >= READ_BACK_LEAST * total:
        return poor
    misread = [t - r for r, t, _ in per_photo]
    most = max(misread)
    return [i for i, n in enumerate(misread) if n and n >= most / 2]


def _refuse_photos_not_read_back(per_photo, pairs, right: int, total: int) -> None:
    """A UsageError (nothing written) when the photos, read with the set learnt from
    them, do not read back as their files say (:func:`photos_to_retake`)."""
    from setupcam.cli import UsageError

    retake = photos_to_retake(per_photo)
    if not retake:
        return
    worst = [str(pairs[i][0]) for i in retake]
    raise UsageError(
        f"only {right} of {total} squares of the photos read back as their files say, "
        f"worst in {', '.join(worst)}: nothing was enrolled (the enrolment there is kept); "
        "retake those photos sharp and well lit, check each is paired with its own "
        "position file, then enrol again"
    )


def _turned_to_its_file(model, image, corners, position, layout):
    """The board's corners turned by the quarter turn under which the photo's squares
    contradict its position file least (the guess itself on a tie)."""
    import numpy as np

    from vision.enrollment import contradicted_squares, position_labels

    labels = position_labels(position, layout)

    def contradictions(turn: int) -> int:
        turned = np.roll(corners, turn, axis=0)
        probabilities = model.probabilities(model.crops(image, turned, layout))
        return int(contradicted_squares(probabilities, labels).sum())

    best = min(range(4), key=lambda turn: (contradictions(turn), turn))
    return np.roll(corners, best, axis=0)


def photos_by_focus(samples) -> dict[str, list[tuple[str, float]]]:
    """The photos' names and blurs, in the reader's pixels (:mod:`vision.photo_blur`), by
    their :func:`~vision.photo_blur.focus_verdict`: "sharp", "a little soft" (taken,
    with a note) and "blurred" (too blurred to learn from)."""
    from vision.photo_blur import focus_verdict, photo_blur_px

    by_focus: dict[str, list[tuple[str, float]]] = {
        "sharp": [],
        "a little soft": [],
        "blurred": [],
    }
    for sample in samples:
        blur = photo_blur_px(sample.image, sample.corners)
        by_focus[focus_verdict(blur)].append((sample.name, blur))
    return by_focus


def blurred_message(blurred: list[tuple[str, float]]) -> str:
    """What to tell the user about the photos too blurred to learn from, in one line."""
    from vision.photo_blur import BLURRED_PX

    return f"{_named_blurs(blurred)} blurred (a sharp photo measures under {BLURRED_PX} px)"


def soft_message(soft: list[tuple[str, float]]) -> str:
    """What to tell the user about the photos a little soft, in one line."""
    from vision.photo_blur import SOFT_PX

    return (
        f"{_named_blurs(soft)} a little soft (sharp photos measure under {SOFT_PX} px): "
        "the set reads the game better learnt from sharper ones"
    )


def _named_blurs(blurs: list[tuple[str, float]]) -> str:
    names = ", ".join(f"{name} ({blur:.1f} px)" for name, blur in blurs)
    return f"{names} {'looks' if len(blurs) == 1 else 'look'}"


def _refuse_blurred_photos(blurred: list[tuple[str, float]]) -> None:
    """A UsageError (nothing written) naming the photos too blurred to learn from."""
    from setupcam.cli import UsageError

    if blurred:
        raise UsageError(
            f"{blurred_message(blurred)}: nothing was enrolled (the enrolment there is kept); "
            "focus the camera and hold it still, take those photos again, then enrol again"
        )


def _refuse_contradicted_photos(model, samples, pairs, layout) -> None:
    """A UsageError naming the photos whose squares plainly contradict their position
    files (:func:`vision.enrollment.contradicted_squares`)."""
    import numpy as np

    from setupcam.cli import UsageError
    from vision.enrollment import contradicted_squares, position_labels
    from vision.recognizer import EMPTY

    problems = []
    for sample, (image_path, position_path) in zip(samples, pairs, strict=True):
        labels = position_labels(sample.position, layout)
        probabilities = model.probabilities(model.crops(sample.image, sample.corners, layout))
        wrong = np.flatnonzero(contradicted_squares(probabilities, labels))
        if len(wrong):
            said = [
                f"{layout.squares[i]} {'holds a tile' if labels[i] == EMPTY else 'looks empty'}"
                for i in wrong
            ]
            problems.append(f"{image_path} does not show {position_path} ({', '.join(said)})")
    if problems:
        more = f"; and {len(problems) - 1} more photo(s)" if len(problems) > 1 else ""
        raise UsageError(
            f"{problems[0]}{more}: is each photo paired with its own position file? "
            "Nothing was enrolled"
        )


def six_nine_summary(check) -> str:
    """One line on whether the photos' 6s and 9s tell the two apart by their look."""
    if check is None:
        return "6 or 9: no 6 or no 9 in the photos; they are told apart by the model alone"
    if check.slope <= 0:
        return (
            "6 or 9: this set's 6s and 9s look alike once turned; "
            "they are told apart by the model alone"
        )
    return (
        f"6 or 9: told apart by the photos' own 6s and 9s "
        f"({len(check.templates)} templates, weight {check.slope:.0f})"
    )


def value_check_summary(check) -> str:
    """One line on how a doubtful square's value is weighed by the photos' tiles."""
    if check is None:
        return (
            "doubtful squares: too few values shown in two suits to match them against "
            "the photos; the model alone decides"
        )
    own, other = check.own_level[0], check.other_level[0]
    return (
        f"doubtful squares: matched against the photos' {len(check.templates)} tiles "
        f"(a tile matched its own value at {own:.2f}, another value at {other:.2f})"
    )
