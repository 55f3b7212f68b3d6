"""What the input-pipeline reference tests compare: fetched values as plain Python."""

import numpy as np


def plain(value):
    """Nested numpy/tuple/dict values as lists of Python values (dicts by sorted key)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return np.asarray(value).tolist()
