"""run_all --only: sections run again are written into the existing file, the rest kept."""

from __future__ import annotations

import pytest

from benchmarks import run_all

DOC = (
    "# Benchmarks\n\nWritten by `run_all` on 2026-01-01.\n\nMachine: m.\n\n"
    "## Engine\n\nCommand: `e` (1 s)\n\n### Engine\n\nold engine\n\n"
    "## Tile recognition\n\nCommand: `t` (2 s)\n\nold tiles\n"
)


def test_a_section_run_again_replaces_its_old_text_and_keeps_the_others() -> None:
    new = "## Tile recognition\n\nCommand: `t` (3 s)\n\nnew tiles\n"
    first = run_all.splice(DOC, {"Tile recognition": run_all.rerun_section(new, "Run on day 1.")})
    assert "new tiles" in first and "old tiles" not in first
    assert "### Engine\n\nold engine" in first
    assert first.index("Command: `t`") < first.index("Run on day 1.") < first.index("new tiles")
    # Another section run again later keeps the first one's note.
    second = run_all.splice(
        first, {"Engine": run_all.rerun_section("## Engine\n\nCommand: `e`\n\nnew\n", "Day 2.")}
    )
    assert "Run on day 1." in second and "Day 2." in second and "new tiles" in second
    assert second.index("## Engine") < second.index("Day 2.") < second.index("## Tile")


def test_the_header_line_of_older_files_naming_sections_run_again_is_dropped() -> None:
    old = DOC.replace("Machine: m.", f"{run_all.RERUN} on day 0: Engine.\n\nMachine: m.")
    assert run_all.splice(old, {}) == DOC


def test_a_section_the_file_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match="no section 'Live pipeline'"):
        run_all.splice(DOC, {"Live pipeline": "## Live pipeline\n"})


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--only", "nothing like it"], "names no section"),
        (["--only", "end to end"], "names 3 sections"),
        (["--only", "tile", "--out", "/nonexistent/benchmarks.md"], "no such file"),
    ],
)
def test_bad_only_arguments_stop_with_a_one_line_error(monkeypatch, capsys, argv, says) -> None:
    monkeypatch.setattr("sys.argv", ["run_all", *argv])
    assert run_all.main() == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and says in err and err.count("\n") == 1


def test_a_file_without_the_section_is_refused_before_any_benchmark_runs(
    tmp_path, monkeypatch, capsys
) -> None:
    out = tmp_path / "benchmarks.md"
    out.write_text(DOC, encoding="utf-8")
    ran = []
    monkeypatch.setattr(run_all, "run_section", lambda *a: ran.append(a) or "")
    monkeypatch.setattr("sys.argv", ["run_all", "--only", "live", "--out", str(out)])
    assert run_all.main() == 2
    assert ran == [] and out.read_text(encoding="utf-8") == DOC
    err = capsys.readouterr().err
    assert "no section 'Live pipeline'" in err and err.count("\n") == 1


def test_sections_run_again_are_written_with_the_machine_they_ran_on(
    tmp_path, monkeypatch, capsys
) -> None:
    out = tmp_path / "benchmarks.md"
    out.write_text(DOC, encoding="utf-8")
    new = "## Tile recognition\n\nCommand: `t` (3 s)\n\nnew tiles\n"
    monkeypatch.setattr(run_all, "run_section", lambda title, *a: new)
    monkeypatch.setattr(run_all, "machine", lambda: "Some CPU, 2 cores")
    monkeypatch.setattr("sys.argv", ["run_all", "--only", "tile", "--out", str(out)])
    assert run_all.main() == 0
    text = out.read_text(encoding="utf-8")
    assert "new tiles" in text and "old tiles" not in text and "old engine" in text
    section = text[text.index("## Tile recognition") :]
    note = section.split("\n\n")[2]
    assert note.startswith("Run again on ") and "--only" in note
    assert note.endswith("on Some CPU, 2 cores (the machine can differ from the header's).")
    assert run_all.RERUN not in text
