"""Kernels: numpy implementations for CPU (and CuPy for GPU when present), registered
per (op type, device type) in :mod:`graphcore.kernels.registry`.

Every ``*_kernels`` module of this package is imported here for its registrations, so an
op family's kernels are added by adding its module, with no list to edit.
"""

import sys as _sys

from graphcore.framework.registration import load_modules as _load_modules

_load_modules(_sys.modules[__name__], ("_kernels",))
