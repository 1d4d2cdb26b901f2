"""Run the network's first two layers on 2x2 blocks of pixels: the same network, bit for
bit, in two thirds of the time.

The first layer (3x3, 3 -> 16 channels, full resolution) is what keeps the classic
art's corner digits readable (models/HISTORY.md, "Session 4"), but onnxruntime's int8
convolution handles its 3 input channels badly: it was half the reader's time on
session 21's host, 2.2 of 4.3 ms for 12 squares. Networks with a cheaper first layer
read the classic art worse once trained (session 21's and session 22's 4x4 stride-2
layers). This keeps the layer and changes only how it is computed:

- the network takes the crop's 8-bit levels, the values its first layer reads
  anyway, instead of float pixels it quantises itself (:mod:`vision.network_input`
  makes them: one saturating add for 8-bit crops, where onnxruntime's float
  subtraction and quantiser took 0.15 ms);
- the crop, padded by one pixel, is cut into 2x2 blocks, each one pixel of 12
  channels (``SpaceToDepth``). Blocks start one pixel before the crop, so the four
  pixels of the first layer's output at block (i, j) see exactly the 4x4 pixels of
  blocks (i, j) to (i + 1, j + 1);
- the first layer becomes a 2x2 convolution over those blocks with 64 outputs: the
  16 channels at each of the output block's four pixels. Its weights are the layer's
  own 8-bit weights, each copied where a pixel's 3x3 neighbourhood falls, zeros
  elsewhere;
- the stride-2 stem becomes a 2x2 convolution over the first layer's output blocks
  (the stem's 3x3 window at stride 2 covers the block it sits on and the row and
  column of blocks before it).

Every output is the same sum of the same integer products as before, so logits and
features are equal to the last bit (checked in ``tests/test_training.py``), and the
"?" threshold, temperatures and enrolments hold as they were. The larger, sparser
convolutions suit onnxruntime's 8-bit kernels: 12 squares in 2.86 ms instead of 4.37
(`benchmarks.bench_recognizer`, docs/benchmarks.md; 3.21 ms in session 22, with a 3x3
first layer over blocks that start with the crop, and float input).
Training applies it to both networks (:mod:`vision.training.fit`);
``python -m vision.training.space_to_depth MODEL.onnx`` rewrites a network trained
before (and its ``.json``: the new digest, the old one kept as another name for the
same network)::

    >>> first_layers_on_blocks(Path("tiles.onnx"))  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from vision.network_input import MEAN, ZERO_POINT

BLOCK = 2
"""Pixels per block side: the stem's stride."""

BLOCKS_NOTE = ", first layers run on 2x2 blocks"
"""Added to the ``architecture`` line of a network rewritten here."""

FLOAT_INPUT = "float32 N x px x px x 3, BGR, 0..255 (normalised inside the graph)"
LEVELS_INPUT = "uint8 N x px x px x 3, BGR, the 8-bit levels of 0..255 (vision.network_input)"
"""The ``input`` line of a network's ``.json`` before and after the rewrite."""

_BLOCK_ROWS = {(0, 1): 0, (1, 0): 1, (1, 1): 2}
"""The stem's kernel row (or column) for (block, pixel within the block): its 3x3
window at stride 2 starts one pixel before its block, so it covers the previous
block's last pixel row, then both rows of its own."""


def first_layer_on_blocks(weights: np.ndarray) -> np.ndarray:
    """A 3x3 stride-1 convolution's weights (K x C x 3 x 3), padded by one pixel, as a
    2x2 convolution (4K x 4C x 2 x 2) over 2x2 blocks that start one pixel before the
    image: output channel ``p*K + k`` is channel ``k`` at the output block's pixel
    ``p`` (row-major), input channel ``q*C + c`` channel ``c`` at an input block's
    pixel ``q``, as ``SpaceToDepth`` orders them.

    >>> w = np.arange(27, dtype=np.int8).reshape(1, 3, 3, 3)
    >>> blocks = first_layer_on_blocks(w)
    >>> blocks.shape, int(np.count_nonzero(blocks[0])) == int(np.count_nonzero(w))
    ((4, 12, 2, 2), True)
    """
    out_k, in_c = weights.shape[:2]
    out = np.zeros((4 * out_k, 4 * in_c, 2, 2), weights.dtype)
    for a, b, a_in, b_in in np.ndindex(2, 2, 2, 2):
        p, q = a * 2 + b, a_in * 2 + b_in
        for di, dj in np.ndindex(2, 2):
            # output pixel 2i + a reads padded pixel 2(i + di) + a_in: image pixel
            # 2(i + di) + a_in - 1, that is u pixels from it
            u, v = 2 * di + a_in - 1 - a, 2 * dj + b_in - 1 - b
            if abs(u) <= 1 and abs(v) <= 1:
                out[p * out_k : (p + 1) * out_k, q * in_c : (q + 1) * in_c, di, dj] = weights[
                    :, :, u + 1, v + 1
                ]
    return out


def stem_on_blocks(weights: np.ndarray) -> np.ndarray:
    """A 3x3 stride-2 convolution's weights (O x K x 3 x 3), padded by one pixel, as a
    2x2 stride-1 convolution over 2x2 blocks (O x 4K x 2 x 2), padded by one block
    before each axis.

    >>> w = np.ones((1, 1, 3, 3), np.int8)
    >>> stem_on_blocks(w)[0, :, 0, 0].tolist()   # only the previous block's last pixel
    [0, 0, 0, 1]
    """
    out_o, in_k = weights.shape[:2]
    out = np.zeros((out_o, 4 * in_k, 2, 2), weights.dtype)
    for (bi, a), u in _BLOCK_ROWS.items():
        for (bj, b), v in _BLOCK_ROWS.items():
            p = a * 2 + b
            out[:, p * in_k : (p + 1) * in_k, bi, bj] = weights[:, :, u, v]
    return out


def first_layers_on_blocks(path: Path) -> None:
    """Rewrite the int8 TileNet in the ONNX file at ``path`` (see module docs);
    ``ValueError`` if its first layers are not the full-resolution layer and stem."""
    import onnx  # training only

    model = onnx.load(str(path))
    _rewrite(model.graph, str(path))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def _rewrite(graph, where: str) -> None:
    from onnx import TensorProto, helper
    from onnx import numpy_helper as nh

    nodes = list(graph.node)
    made_by = {out: node for node in nodes for out in node.output}
    read_by: dict[str, list] = {}
    for node in nodes:
        for name in node.input:
            read_by.setdefault(name, []).append(node)
    inits = {tensor.name: tensor for tensor in graph.initializer}

    def only(op: str, after):  # the one node reading ``after``'s output, of this op
        found = [n for n in read_by.get(after.output[0], []) if n.op_type == op]
        if len(found) != 1 or len(read_by[after.output[0]]) != 1:
            raise ValueError(f"{where}: not a full-resolution TileNet (after {after.op_type})")
        return found[0]

    def array(name: str) -> np.ndarray:
        return nh.to_array(inits[name])

    def attrs(node) -> dict:
        return {a.name: helper.get_attribute_value(a) for a in node.attribute}

    if any(n.op_type == "SpaceToDepth" for n in nodes):
        raise ValueError(f"{where}: not a full-resolution TileNet (already on blocks?)")
    layout = next((n for n in nodes if n.op_type == "Transpose" and n.input[0] == "crops"), None)
    if layout is None:
        raise ValueError(f"{where}: not a full-resolution TileNet (no crops input)")
    sub = only("Sub", layout)
    div = only("Div", sub)
    quantize = only("QuantizeLinear", div)
    dequantize = only("DequantizeLinear", quantize)
    first = only("Conv", dequantize)
    first_q = only("QuantizeLinear", first)
    first_dq = only("DequantizeLinear", first_q)
    stem = only("Conv", first_dq)
    first_w, stem_w = made_by[first.input[1]], made_by[stem.input[1]]
    weights, stem_weights = array(first_w.input[0]), array(stem_w.input[0])
    crop_dims = [d.dim_value for d in graph.input[0].type.tensor_type.shape.dim[1:3]]
    if (
        any(d % BLOCK for d in crop_dims)  # blocks must tile the crop
        or weights.shape[1:] != (3, 3, 3)
        or attrs(first).get("strides") != [1, 1]
        or attrs(stem).get("strides") != [2, 2]
        or stem_weights.shape[2:] != (3, 3)
        or any(attrs(c).get("pads") != [1, 1, 1, 1] for c in (first, stem))
    ):
        raise ValueError(f"{where}: not a full-resolution TileNet (first layers' shapes)")

    # The network then reads the levels vision.network_input makes: quantising
    # (x - mean) / std at scale s is quantising x - mean at scale s * std, one grey level.
    zero_point = array(quantize.input[2])
    if (
        float(array(sub.input[1])) != MEAN
        or zero_point.dtype != np.uint8
        or int(zero_point) != ZERO_POINT
        or float(array(quantize.input[1])) * float(array(div.input[1])) != 1.0
    ):
        raise ValueError(f"{where}: its input is not quantised to whole grey levels")

    def add(name: str, value: np.ndarray) -> str:
        graph.initializer.append(nh.from_array(value, name))
        return name

    # The 8-bit levels, NCHW, padded by a pixel of zeros (the zero point), in blocks,
    # then dequantised as the first layer read them.
    graph.input[0].type.tensor_type.elem_type = TensorProto.UINT8
    pads = add("crops_block_pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))
    made = [
        helper.make_node("Transpose", ["crops"], ["crops_nchw"], perm=[0, 3, 1, 2], name="nchw"),
        helper.make_node(
            "Pad", ["crops_nchw", pads, dequantize.input[2]], ["crops_padded"], name="pad"
        ),
        helper.make_node(
            "SpaceToDepth", ["crops_padded"], ["crops_blocks"], blocksize=BLOCK, name="blocks"
        ),
    ]
    dequantize.input[0] = "crops_blocks"
    for node in (layout, sub, div, quantize):
        graph.node.remove(node)
    position = list(graph.node).index(dequantize)
    for node in reversed(made):
        graph.node.insert(position, node)

    # The first layer over blocks: weights, their per-channel scales and zero points,
    # and the bias (quantised per channel too) repeated for the block's four pixels.
    first_w.input[0] = add("first_blocks_weight", first_layer_on_blocks(weights))
    first_b = made_by[first.input[2]]
    for dq in (first_w, first_b):
        for k in (1, 2):
            values = array(dq.input[k])
            if values.ndim == 1 and len(values) == len(weights):
                dq.input[k] = add(f"{dq.input[k]}_blocks", np.tile(values, 4))
    first_b.input[0] = add("first_blocks_bias", np.tile(array(first_b.input[0]), 4))
    _set(first, kernel_shape=[2, 2], pads=[0, 0, 0, 0])
    stem_w.input[0] = add("stem_blocks_weight", stem_on_blocks(stem_weights))
    _set(stem, kernel_shape=[2, 2], pads=[1, 1, 0, 0], strides=[1, 1])

    used = {name for node in graph.node for name in node.input}
    for tensor in list(graph.initializer):
        if tensor.name not in used:
            graph.initializer.remove(tensor)
    del graph.value_info[:]  # shapes inside the graph changed; onnxruntime infers them


def _set(node, **values) -> None:
    """Set attributes of the ONNX ``node``."""
    from onnx import helper

    for attribute in node.attribute:
        if attribute.name in values:
            attribute.CopyFrom(helper.make_attribute(attribute.name, values[attribute.name]))


def main(argv: list[str] | None = None) -> int:
    from vision.training.digest import network_digest

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", type=Path, help="an int8 TileNet (.onnx, its .json beside)")
    args = parser.parse_args(argv)
    meta_path = args.model.with_suffix(".json")
    if not args.model.is_file() or not meta_path.is_file():
        print(f"error: {args.model} and {meta_path} must both exist", file=sys.stderr)
        return 2
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    before = network_digest(args.model)
    try:
        first_layers_on_blocks(args.model)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    meta["network_digest"] = network_digest(args.model)
    meta["same_network_as"] = [*meta.get("same_network_as", []), before]
    meta["architecture"] += BLOCKS_NOTE
    meta["input"] = LEVELS_INPUT
    meta_path.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{args.model}: network {before} -> {meta['network_digest']} (same outputs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
