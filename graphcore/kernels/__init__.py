"""Kernels: numpy implementations for CPU (and CuPy for GPU when present), registered
per (op type, device type) in :mod:`graphcore.kernels.registry`.

Every ``*_kernels`` module of this package is imported here for its registrations, so an
op family's kernels are added by adding its module, with no list to edit.
"""

import importlib as _importlib
import pkgutil as _pkgutil

for _module in sorted(m.name for m in _pkgutil.iter_modules(__path__)):
    if _module.endswith("_kernels"):
        _importlib.import_module(f"{__name__}.{_module}")
