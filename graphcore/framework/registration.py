"""Loading a package's registering modules: op families register their OpDefs, gradients
and kernels when imported, so the packages import every such module by its name's suffix
instead of keeping lists."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def load_modules(package: ModuleType, suffixes: tuple[str, ...]) -> list[str]:
    """Imports each module of ``package`` whose name ends with one of ``suffixes`` (in
    name order); returns their full names."""
    names = sorted(m.name for m in pkgutil.iter_modules(package.__path__)
                   if m.name.endswith(suffixes))
    for name in names:
        importlib.import_module(f"{package.__name__}.{name}")
    return [f"{package.__name__}.{name}" for name in names]
