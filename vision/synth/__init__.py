"""The simulated table: photo-like frames of SETUP games with exact ground truth.

We have no photos of the physical game, so every vision feature is trained and
measured on these renders. Main entry points::

    >>> import numpy as np
    >>> from vision.synth import random_scene, render_frame
    >>> frame = render_frame(random_scene(np.random.default_rng(0), resolution=(640, 360)), 0)
    >>> sorted(frame.truth.to_json())[:3]
    ['board_corners', 'board_corners_distorted', 'camera_matrix']

See ``docs/synth.md`` for the art families, the held-out family and the truth format.
"""

from vision.synth.camera import BOARD_SIZE_M, Camera, random_camera
from vision.synth.hands import HandSpec, random_hand
from vision.synth.photo import CLEAN, PhotoEffects, sample_photo_effects
from vision.synth.scene import (
    COVERED_FRACTION,
    Frame,
    FrameTruth,
    Scene,
    random_position,
    random_scene,
    render_frame,
)
from vision.synth.styles import (
    FAMILIES,
    HELDOUT_FAMILIES,
    TRAINING_FAMILIES,
    Style,
    marker_style,
    sample_style,
)

__all__ = [
    "BOARD_SIZE_M",
    "CLEAN",
    "COVERED_FRACTION",
    "FAMILIES",
    "HELDOUT_FAMILIES",
    "TRAINING_FAMILIES",
    "Camera",
    "Frame",
    "FrameTruth",
    "HandSpec",
    "PhotoEffects",
    "Scene",
    "Style",
    "marker_style",
    "random_camera",
    "random_hand",
    "random_position",
    "random_scene",
    "render_frame",
    "sample_photo_effects",
    "sample_style",
]
