"""``tf.types.experimental.TensorLike``: what converts to a Tensor (a Union for
annotations, as TF's)."""

from typing import Union

import numpy as np

from graphcore.framework.ops import Tensor

# typing.Union, as TF's (its repr and get_origin are what annotation tools read).
TensorLike = Union[Tensor, int, float, bool, str, bytes, complex, tuple, list, np.ndarray,  # noqa: UP007
                   np.generic]

__all__ = ["TensorLike"]
