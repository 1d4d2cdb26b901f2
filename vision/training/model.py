"""The tile classifier network: a small CNN with an embedding and a linear head.

Input: N x P x P x 3 float32, BGR, 0..255 (the crops as OpenCV gives them; the
graph does its own layout change and normalisation, so the runtime only casts).
Output: ``(logits, embedding)``; the embedding is the penultimate layer. (The
shipped ONNX file's ``embedding`` output, which enrolment learns a tile set from, is
the pooled features under it: :mod:`vision.training.outputs`.)::

    >>> import torch
    >>> net = TileNet().eval()
    >>> logits, emb = net(torch.zeros(2, 56, 56, 3))
    >>> tuple(logits.shape), tuple(emb.shape)
    ((2, 52), (2, 96))

Design: a 16-channel 3x3 layer at full resolution (the classic art's value is only
in corner digits ~8 px tall, which a stride-2 first layer blurs), a stride-2 stem,
then three stages that halve the resolution, each two 3x3 conv-BN-ReLU blocks,
global average pooling, a 96-wide embedding layer and the linear head. Shipped as
int8 (:mod:`vision.training.quantize`): ~2 ms for 12 crops on one CPU thread.
"""

from __future__ import annotations

import itertools

import torch
from torch import nn

from vision.network_input import MEAN

WIDTHS = (24, 32, 64, 128)
FULL_RES_CHANNELS = 16
EMBEDDING_DIM = 96
N_CLASSES = 52
STD = 64.0
"""Crops are normalised to ``(x - MEAN) / STD``; the int8 input scale is then one grey
level (:mod:`vision.network_input`)."""


def _block(c_in: int, c_out: int, stride: int = 1, batch_norm: bool = True) -> nn.Sequential:
    if not batch_norm:
        # Exported, a conv with a bias is the same graph as conv + batch norm (which
        # folds into the conv in eval mode), so quantisation and the 2x2-block rewrite
        # take it unchanged.
        return nn.Sequential(nn.Conv2d(c_in, c_out, 3, stride, 1), nn.ReLU(inplace=True))
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    )


class TileNet(nn.Module):
    """The classifier; ``forward`` returns ``(logits, embedding)``."""

    def __init__(
        self,
        widths: tuple[int, ...] = WIDTHS,
        embedding_dim: int = EMBEDDING_DIM,
        n_classes: int = N_CLASSES,
        dropout: float = 0.1,
        full_res_channels: int = FULL_RES_CHANNELS,
        full_res_batch_norm: bool = True,
    ) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        stem_in = 3
        if full_res_channels:
            # Batch norm over the full-resolution activations is the costliest pass of
            # a training step; without it a step takes about a sixth less
            # (models/HISTORY.md, "Session 27").
            layers.append(_block(3, full_res_channels, 1, batch_norm=full_res_batch_norm))
            stem_in = full_res_channels
        layers.append(_block(stem_in, widths[0], 2))
        for c_in, c_out in itertools.pairwise(widths):
            layers += [_block(c_in, c_out, 2), _block(c_out, c_out)]
        self.features = nn.Sequential(*layers)
        self.embed = nn.Sequential(
            nn.Linear(widths[-1], embedding_dim), nn.BatchNorm1d(embedding_dim), nn.ReLU()
        )
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(embedding_dim, n_classes)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # The permuted NHWC input is channels-last in memory; torch's CPU convolutions
        # run fastest (~1.4x NCHW in training) when that layout is kept contiguous.
        x = ((x.permute(0, 3, 1, 2) - MEAN) / STD).contiguous(memory_format=torch.channels_last)
        pooled = self.features(x).mean(dim=(2, 3))
        embedding = self.embed(pooled)
        return self.head(self.dropout(embedding)), embedding


def describe(
    widths: tuple[int, ...] = WIDTHS,
    full_res_channels: int = FULL_RES_CHANNELS,
    full_res_batch_norm: bool = True,
) -> str:
    """One line naming the architecture (written to ``tiles.json``).

    >>> describe(full_res_batch_norm=False)
    'TileNet full-resolution layer 16 (no batch norm), widths [24, 32, 64, 128], embedding 96'
    """
    norm = "" if full_res_batch_norm else " (no batch norm)"
    return (
        f"TileNet full-resolution layer {full_res_channels}{norm}, widths {list(widths)}, "
        f"embedding {EMBEDDING_DIM}"
    )
