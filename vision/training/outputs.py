"""Which features the shipped model gives enrolment: the pooled convolutional features.

The network's ``embedding`` layer (Linear 128->96 + BN + ReLU) is trained to tell
the training families' tiles apart; the 128 pooled features under it are more
general, and a tile set the model never saw is learnt better from them (session
14: the held-out family's enrolled error 22.2% -> 18.6% in one pass, 11.6% ->
10.1% at four turns; models/HISTORY.md, "Session 14"). So after export and quantisation the ONNX
file's second output, still called ``embedding``, is rewired to those features.
The logits do not change: the graph still computes the embedding layer inside.

    >>> pooled_features_as_embedding(Path("tiles.onnx"))  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

EMBEDDING_OUTPUT = "embedding"
_EMBED_WEIGHT = "embed.0.weight"  # the embedding layer's Linear, named by torch's export


def pooled_features_as_embedding(path: Path) -> None:
    """Rewrite the ONNX file at ``path`` so its ``embedding`` output is the pooled
    features that feed the embedding layer."""
    import onnx  # training only
    from onnx import TensorProto, helper

    model = onnx.load(str(path))
    graph = model.graph
    embed = [
        node
        for node in graph.node
        if node.op_type == "Gemm" and any(i.startswith(_EMBED_WEIGHT) for i in node.input)
    ]
    if len(embed) != 1:
        raise ValueError(f"{path}: expected one embedding layer, found {len(embed)}")
    pooled = embed[0].input[0]
    # The old output keeps flowing into the head under another name.
    inner = EMBEDDING_OUTPUT + "_layer"
    for node in graph.node:
        node.input[:] = [inner if name == EMBEDDING_OUTPUT else name for name in node.input]
        node.output[:] = [inner if name == EMBEDDING_OUTPUT else name for name in node.output]
    graph.node.append(
        helper.make_node("Flatten", [pooled], [EMBEDDING_OUTPUT], axis=1, name="pooled_features")
    )
    old = next(o for o in graph.output if o.name == EMBEDDING_OUTPUT)
    position = list(graph.output).index(old)
    graph.output.remove(old)
    features = helper.make_tensor_value_info(EMBEDDING_OUTPUT, TensorProto.FLOAT, ["n", "width"])
    graph.output.insert(position, features)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
