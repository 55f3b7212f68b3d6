"""SaveableObject and SaveSpec (TF's training/saving/saveable_object.py): what a
non-variable stateful object (a mutable lookup table) gives ``tf.train.Saver`` — the
tensors to write under their checkpoint names, and how to restore from them."""

from __future__ import annotations

from typing import Any


class SaveSpec:
    """One tensor to save: its value (a tensor or a callable returning one), slice spec
    ('' for a whole tensor), checkpoint name, dtype and device."""

    def __init__(self, tensor: Any, slice_spec: str, name: str, dtype: Any = None,
                 device: Any = None):
        self._tensor = tensor
        self.slice_spec = slice_spec
        self.name = name
        self.dtype = dtype if dtype is not None else tensor.dtype
        self.device = device if device is not None else getattr(tensor, "device", None)

    @property
    def tensor(self) -> Any:
        return self._tensor() if callable(self._tensor) else self._tensor


class SaveableObject:
    """An object the Saver saves as ``specs`` and restores with ``restore``."""

    def __init__(self, op: Any, specs: list[SaveSpec], name: str):
        self.op = op
        self.specs = specs
        self.name = name

    @property
    def device(self) -> Any:
        return self.specs[0].device

    def restore(self, restored_tensors: list, restored_shapes: Any) -> Any:
        raise NotImplementedError
