"""Run every benchmark and write docs/benchmarks.md: the machine, each command, the
figures beside their targets, and the plots.

Run: ``.venv/bin/python -m benchmarks.run_all`` (about an hour on 2 cores; pass
``--quick`` for a smaller run). Each benchmark is its own module, run in its own
process so none warms another's caches.

``--only TITLE`` (repeatable; a title's first words are enough) runs those sections
alone and writes them over their old text in the existing file, which keeps the
others and says which sections were run when: a changed model is measured again
in the half hour its sections take, not the hour of all.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

HELD_OUT_ENROLLED = ["--hands", "--style", "split", "--enroll"]

# (title, module, full arguments, quick arguments)
BENCHMARKS = [
    ("Engine", "benchmarks.bench_engine", [], ["--games", "100", "--replays", "1000"]),
    ("Simulated table", "benchmarks.bench_synth", [], []),
    ("Board finding", "benchmarks.bench_board", [], ["--frames", "40"]),
    (
        "Board finding without hands (the target's condition)",
        "benchmarks.bench_board",
        ["--frames", "600", "--hands", "none"],
        ["--frames", "40", "--hands", "none"],
    ),
    ("Tile recognition", "benchmarks.bench_recognizer", [], ["--quick"]),
    (
        "Enrolment on 60 held-out tile sets",
        "benchmarks.bench_enrolment",
        [],
        ["--sets", "4", "--tests", "5"],
    ),
    (
        "Enrol tiles plan: 60 held-out tile sets enrolled from photos laid out as it asks",
        "benchmarks.bench_enrolment",
        ["--plan"],
        ["--sets", "4", "--tests", "5", "--plan"],
    ),
    (
        "Blur of enrolment photos: which the check refuses, and what blurred photos cost",
        "benchmarks.bench_photo_blur",
        [],
        ["--sets", "4", "--harm-sets", "2", "--tests", "4"],
    ),
    (
        "Live pipeline",
        "benchmarks.bench_pipeline",
        ["--plots", str(DOCS)],
        ["--frames", "100", "--stills", "60", "--plots", str(DOCS)],
    ),
    (
        "A steady view's look through its frames",
        "benchmarks.bench_look",
        [],
        ["--repeats", "1"],
    ),
    (
        "End to end (`setupcam eval`)",
        "setupcam",
        ["eval", "--games", "20", "--seed", "100000", "--hands", "--max-turns", "12"],
        ["eval", "--games", "4", "--seed", "100000", "--hands", "--max-turns", "12"],
    ),
    (
        "End to end with no hand in sight (each tile appears between two frames)",
        "setupcam",
        ["eval", "--games", "20", "--seed", "100000", "--max-turns", "12"],
        ["eval", "--games", "4", "--seed", "100000", "--max-turns", "12"],
    ),
    (
        "End to end on the held-out art, each game's tiles enrolled first",
        "setupcam",
        ["eval", "--games", "10", "--seed", "100000", "--max-turns", "12", *HELD_OUT_ENROLLED],
        ["eval", "--games", "2", "--seed", "100000", "--max-turns", "12", *HELD_OUT_ENROLLED],
    ),
]


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 2**20:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    python = platform.python_version()
    return f"{cpu}, {os.cpu_count()} cores{memory}, Python {python}, {platform.system()}"


def run_section(title: str, module: str, argv: list[str]) -> str:
    """One benchmark run in its own process, as its section of the file."""
    command = " ".join([".venv/bin/python -m", module, *argv]).replace(str(ROOT) + "/", "")
    print(f"running {title}: {command}", file=sys.stderr, flush=True)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", module, *argv], cwd=ROOT, capture_output=True, text=True
    )
    seconds = time.monotonic() - started
    body = (
        done.stdout.strip() if done.returncode == 0 else f"FAILED:\n```\n{done.stderr[-2000:]}\n```"
    )
    # Each benchmark's own headings sit one level below its section's.
    body = "\n".join("#" + ln if ln.startswith("## ") else ln for ln in body.splitlines())
    return f"## {title}\n\nCommand: `{command}` ({seconds:.0f} s)\n\n{body}\n"


def chosen_titles(prefixes: list[str]) -> list[str]:
    """The section titles ``prefixes`` name, each by a unique start (any case).

    >>> chosen_titles(["tile", "enrolment"])
    ['Tile recognition', 'Enrolment on 60 held-out tile sets']
    """
    titles = [title for title, *_ in BENCHMARKS]
    chosen = []
    for prefix in prefixes:
        found = [t for t in titles if t.lower().startswith(prefix.lower())]
        if len(found) != 1:
            what = "no section" if not found else f"{len(found)} sections"
            raise ValueError(
                f"--only {prefix!r} names {what}; the sections are: " + "; ".join(titles)
            )
        chosen.append(found[0])
    return chosen


RERUN = "Sections run again"
"""How the header's line naming the sections run again started, before each section
run again said so itself (:func:`rerun_section`); :func:`splice` drops that line."""


def file_sections(doc: str) -> tuple[str, dict[str, str]]:
    """``doc``'s header and its sections' texts by title (each from its ``## `` line)."""
    head, *parts = doc.split("\n## ")
    return head, {part.split("\n", 1)[0]: "## " + part.rstrip("\n") + "\n" for part in parts}


def rerun_section(text: str, note: str) -> str:
    r"""A section's ``text`` with ``note`` (when and where it ran, after the rest of the
    file) under its command line: each section run again keeps its own machine, so a
    later run of another section cannot take that away.

    >>> print(rerun_section("## A\n\nCommand: `a` (1 s)\n\nfigures\n", "Run again."), end="")
    ## A
    <BLANKLINE>
    Command: `a` (1 s)
    <BLANKLINE>
    Run again.
    <BLANKLINE>
    figures
    """
    title, command, rest = text.split("\n\n", 2)
    return f"{title}\n\n{command}\n\n{note}\n\n{rest}"


def splice(doc: str, sections: dict[str, str]) -> str:
    r"""``doc`` with each of ``sections`` (title -> its new text) written over the old
    section of that title.

    >>> doc = "# Benchmarks\n\nWritten by x.\n\n## A\n\nold a\n\n## B\n\nold b\n"
    >>> print(splice(doc, {"B": "## B\n\nnew b\n"}), end="")
    # Benchmarks
    <BLANKLINE>
    Written by x.
    <BLANKLINE>
    ## A
    <BLANKLINE>
    old a
    <BLANKLINE>
    ## B
    <BLANKLINE>
    new b
    """
    head, old = file_sections(doc)
    missing = [title for title in sections if title not in old]
    if missing:
        raise ValueError(f"the file has no section {missing[0]!r} to write over")
    lines = [ln for ln in head.rstrip("\n").split("\n\n") if not ln.startswith(RERUN)]
    body = [sections.get(title, text) for title, text in old.items()]
    return "\n\n".join(lines) + "\n\n" + "\n".join(body)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="smaller runs (minutes, not half an hour)"
    )
    parser.add_argument("--out", type=Path, default=DOCS / "benchmarks.md")
    parser.add_argument(
        "--only",
        action="append",
        metavar="TITLE",
        help="run this section alone and write it into the existing file (repeatable)",
    )
    args = parser.parse_args()
    try:
        titles = chosen_titles(args.only) if args.only else None
        if titles:
            # Checked before the benchmarks run, not after half an hour of them.
            if not args.out.is_file():
                raise ValueError(f"{args.out}: no such file to write the sections into")
            doc = args.out.read_text(encoding="utf-8")
            missing = [title for title in titles if title not in file_sections(doc)[1]]
            if missing:
                raise ValueError(f"{args.out} has no section {missing[0]!r} to write over")
    except ValueError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    sections = {}
    for title, module, full, quick in BENCHMARKS:
        if titles is None or title in titles:
            sections[title] = run_section(title, module, quick if args.quick else full)
    flags = " --quick" if args.quick else ""
    if titles:
        note = (
            f"Run again on {datetime.now(UTC):%Y-%m-%d} by `.venv/bin/python -m "
            f"benchmarks.run_all{flags} --only ...`, on {machine()} (the machine can "
            "differ from the header's)."
        )
        sections = {title: rerun_section(text, note) for title, text in sections.items()}
        args.out.write_text(splice(doc, sections), encoding="utf-8")
        print(f"wrote {len(titles)} section(s) of {args.out}", file=sys.stderr)
        return 0
    header = (
        "# Benchmarks\n\n"
        f"Written by `.venv/bin/python -m benchmarks.run_all{flags}` "
        f"on {datetime.now(UTC):%Y-%m-%d}.\n\n"
        f"Machine: {machine()}. Other work may have shared the machine; medians are "
        "robust to that, p95 figures less so.\n\n"
        "Targets: engine ≤ 50 µs per turn; board location ≤ 8 ms median (tracked) at "
        "1280x720; 12 squares read in ≤ 3 ms on one thread; a 1280x720 frame ≤ 20 ms "
        "median; per-square error ≤ 0.1% (trained art), ≤ 0.2% after enrolment "
        "(held-out art); board corners within 1% on ≥ 99% of frames (tilt up to 35°, any "
        "yaw, cluttered table; hands over the board are reported beside it).\n"
    )
    args.out.write_text(header + "\n" + "\n".join(sections.values()), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
