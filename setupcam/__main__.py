"""``python -m setupcam``: the same as the ``setupcam`` command."""

import sys

from setupcam.cli import main

sys.exit(main())
