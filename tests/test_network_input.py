"""The 8-bit levels a network's first layer reads, made outside the network."""

import numpy as np

from vision.network_input import eight_bit_levels, network_input


def quantised(x: np.ndarray) -> np.ndarray:
    """What an exported network's own input quantiser computes (onnxruntime's
    ``QuantizeLinear``: round half to even, then saturate)."""
    return np.clip(np.round(x.astype(np.float64) - 127.5) + 128, 0, 255)


def test_eight_bit_crops_get_the_levels_of_every_grey_value() -> None:
    grey = np.arange(256, dtype=np.uint8)
    crops = np.stack([np.roll(grey, k)[:252].reshape(1, 84, 3) for k in range(84)], axis=1)
    crops = np.concatenate([crops, crops[:, ::-1]])  # 2 x 84 x 84 x 3, every value
    levels = eight_bit_levels(crops)
    assert levels.dtype == np.uint8 and levels.shape == crops.shape
    np.testing.assert_array_equal(levels, quantised(crops))
    assert set(np.unique(levels).tolist()) == {*range(0, 255, 2), 255}


def test_float_crops_between_grey_levels_round_as_the_network_would() -> None:
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.uniform(-20, 275, 5000), np.arange(256) + 0.5])
    crops = np.resize(values, (3, 50, 50, 3)).astype(np.float32)
    np.testing.assert_array_equal(eight_bit_levels(crops), quantised(crops))
    assert eight_bit_levels(crops[:0]).shape == (0, 50, 50, 3)
    assert eight_bit_levels(np.zeros((0, 4, 4, 3), np.uint8)).shape == (0, 4, 4, 3)


def test_a_network_that_takes_floats_gets_the_pixels_unchanged() -> None:
    crops = np.random.default_rng(1).integers(0, 256, (2, 8, 8, 3), dtype=np.uint8)
    turned = np.rot90(crops, 1, axes=(1, 2))  # not contiguous, as quarter turns are
    as_floats = network_input(turned, levels=False)
    assert as_floats.dtype == np.float32 and as_floats.flags.c_contiguous
    np.testing.assert_array_equal(as_floats, turned)
    np.testing.assert_array_equal(network_input(turned, levels=True), quantised(turned))
