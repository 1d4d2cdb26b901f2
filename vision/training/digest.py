"""A network's name for enrolment: a digest of what it computes, not of its file.

An enrolment reads one network's features, so it records which network that was
(:attr:`vision.recognizer.TileRecognizer.model_digest`). The file's bytes are not
the right name: two files can hold the same layers and weights laid out a little
differently (session 17: the retrained enrolment base had every weight and every
output equal to the shipped one's, but its ``embedding`` output's second dimension
was called ``width``, not ``features``, so its SHA-256 differed and it would have
refused every user's enrolment). The digest here covers the graph's inputs and
outputs (names and element types), its nodes in order, and its weights, and leaves
out names of dimensions, value-info annotations, metadata and doc strings.

Training writes it into ``tiles.json`` (``network_digest``), so the runtime needs
no ``onnx`` package to know it::

    >>> network_digest(Path("models/enrollment-base.onnx"))  # doctest: +SKIP
    '5d0e1c...'
"""

from __future__ import annotations

import hashlib
from pathlib import Path

DIGEST_CHARS = 16
"""Hex characters kept (64 bits: no two networks of ours will collide)."""


def network_digest(path: Path) -> str:
    """The digest of the network in the ONNX file at ``path`` (see module docs)."""
    import onnx  # training only

    graph = onnx.load(str(path)).graph
    digest = hashlib.sha256()
    for kind, values in (("input", graph.input), ("output", graph.output)):
        for value in values:
            element = value.type.tensor_type.elem_type
            digest.update(f"{kind} {value.name} {element}\n".encode())
    for node in graph.node:
        digest.update(node.SerializeToString())
    for tensor in graph.initializer:
        digest.update(tensor.SerializeToString())
    return digest.hexdigest()[:DIGEST_CHARS]
