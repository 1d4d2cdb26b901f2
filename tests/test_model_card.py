"""The model card (models/README.md) describes the networks that ship: their digests,
temperatures and "?" thresholds as their `.json` files give them. A retrained network
shipped without its card brought up to date fails here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

MODELS = Path(__file__).resolve().parent.parent / "models"
CARD = (MODELS / "README.md").read_text(encoding="utf-8")
NETWORKS = {"reader": "tiles.json", "enrolment base": "enrollment-base.json"}


def card_row(first_cell: str) -> list[str]:
    """The cells of the card's table row that starts with ``first_cell``."""
    for line in CARD.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.strip().startswith("|") and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no row {first_cell!r} in models/README.md")


@pytest.mark.parametrize("name", NETWORKS)
def test_the_card_gives_each_network_its_calibration(name: str) -> None:
    info = json.loads((MODELS / NETWORKS[name]).read_text())
    _, t, threshold, t_turns, threshold_turns = card_row(name)
    assert float(t) == pytest.approx(info["temperature"], abs=5e-4)
    assert float(threshold) == pytest.approx(info["threshold"], abs=5e-5)
    assert float(t_turns) == pytest.approx(info["temperature_all_turns"], abs=5e-4)
    assert float(threshold_turns) == pytest.approx(info["threshold_all_turns"], abs=5e-5)


@pytest.mark.parametrize("name", NETWORKS)
def test_the_card_names_the_shipped_networks(name: str) -> None:
    info = json.loads((MODELS / NETWORKS[name]).read_text())
    onnx = NETWORKS[name].replace(".json", ".onnx")
    shipped = [row for row in CARD.splitlines() if row.startswith(f"| `{onnx}`")]
    assert len(shipped) == 1, f"the card's 'What ships' table has no row for {onnx}"
    assert re.search(rf"network `{info['network_digest']}`", shipped[0])


def test_the_cards_history_is_beside_it() -> None:
    # Code comments cite sessions there (models/HISTORY.md, "Session N").
    history = (MODELS / "HISTORY.md").read_text(encoding="utf-8")
    cited = set(re.findall(r'HISTORY\.md, "Session (\d+)"', CARD))
    assert cited
    for n in cited:
        assert re.search(rf"^## Session {n}\b", history, re.M), f"no section Session {n}"
