"""Training the tile classifier (torch, a training-only dependency).

Modules: :mod:`~vision.training.model` (the network), :mod:`~vision.training.augment`
(batch augmentation), :mod:`~vision.training.fit` (the whole recipe: data, training,
calibration, ONNX export, final evaluation) and :mod:`~vision.training.evaluate`
(numpy-only metrics and calibration, shared with the benchmark) and
:mod:`~vision.training.value_scale` (enrolment's value scale fitted per model, numpy
only, run after training). Importing this
package imports nothing heavy; only ``model``, ``augment`` and ``fit`` need torch.

    $ setupcam train --out models/          # the shipped model, ~1 h on 2 cores
    $ setupcam train --quick --out /tmp/m   # a minute-long smoke run
"""
