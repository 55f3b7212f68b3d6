"""``tf.train.replica_device_setter``: variables round-robin over ps tasks, everything
else on the worker device (TF1's placement rule for data-parallel training).

Round robin is TF's documented default and stays graphcore's: a variable's device is part
of the graph a TF1 script builds (``v.device``, the GraphDef, a sharded Saver's files), so
it must be TF's. Beyond TF, ``balance_by_bytes=True`` places each variable on the ps task
holding the fewest bytes so far (then the fewest variables, then the lowest index): the
same tasks as round robin while the variables are the same size, and the big shards of a
partitioned table spread evenly where round robin may stack two of them on one task."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphcore.framework import device as device_lib
from graphcore.train.load_balancing import byte_size_load_fn
from graphcore.train.server_lib import ClusterSpec

__all__ = ["replica_device_setter"]

STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable",
                   "MutableHashTableV2", "MutableHashTableOfTensors",
                   "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp")


class _RoundRobinStrategy:
    """Task 0, 1, ..., n-1, 0, ... in creation order."""

    def __init__(self, num_tasks: int):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op: Any) -> int:
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


class _ByteSizeBalancingStrategy:
    """The ps task of fewest bytes (``byte_size_load_fn``: 0 when the size is unknown),
    ties to the task of fewest variables, then the lowest index: round robin for
    variables of one size, even bytes for shards of different sizes."""

    def __init__(self, num_tasks: int):
        self._bytes = [0] * num_tasks
        self._counts = [0] * num_tasks

    def __call__(self, op: Any) -> int:
        task = min(range(len(self._bytes)), key=lambda t: (self._bytes[t], self._counts[t], t))
        self._bytes[task] += byte_size_load_fn(op)
        self._counts[task] += 1
        return task


class _ReplicaDeviceChooser:
    def __init__(self, ps_tasks: int, ps_device: str, worker_device: str, merge_devices: bool,
                 ps_ops: list[str], ps_strategy: Callable[[Any], int]):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op: Any) -> str:
        if not self._merge_devices and op.device:
            return op.device
        current = device_lib.DeviceSpecV2.from_string(op.device or "")
        op_type = op.type if hasattr(op, "type") else op.op
        if self._ps_tasks and self._ps_device and op_type in self._ps_ops:
            ps = device_lib.DeviceSpecV2.from_string(self._ps_device)
            if ps.job and (not current.job or current.job == ps.job):
                ps = ps.replace(task=self._ps_strategy(op))
            return ps.make_merged_spec(current).to_string()
        worker = device_lib.DeviceSpecV2.from_string(self._worker_device or "")
        return worker.make_merged_spec(current).to_string()


def replica_device_setter(ps_tasks: int = 0, ps_device: str = "/job:ps",
                          worker_device: str = "/job:worker", merge_devices: bool = True,
                          cluster: Any = None, ps_ops: list[str] | None = None,
                          ps_strategy: Callable[[Any], int] | None = None, *,
                          balance_by_bytes: bool = False) -> Any:
    """A device function for ``tf.device``: ops in ``ps_ops`` (variables) go to
    ``ps_device`` with tasks chosen by ``ps_strategy`` (round robin by default, as TF),
    all other ops to ``worker_device``. Returns None when there are no ps tasks.

    ``balance_by_bytes`` (graphcore only; not with ``ps_strategy``): each variable goes
    to the ps task holding the fewest bytes so far, which equals round robin for
    variables of one size and balances tables sharded into unequal parts."""
    if cluster is not None:
        spec = cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)
        ps_job = device_lib.DeviceSpecV2.from_string(ps_device).job or "ps"
        ps_tasks = len(spec.as_dict().get(ps_job, []))
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        import warnings

        warnings.warn("DEPRECATION NOTE: merge_devices=False is deprecated.", stacklevel=2)
    if balance_by_bytes:
        if ps_strategy is not None:
            raise ValueError("replica_device_setter: pass ps_strategy or "
                             "balance_by_bytes=True, not both")
        ps_strategy = _ByteSizeBalancingStrategy(ps_tasks)
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    chooser = _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices,
                                    ps_ops, ps_strategy)
    return chooser.device_function
