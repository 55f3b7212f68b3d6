"""Devices an engine can place nodes on, named as TF names them."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from graphcore.framework import device as device_lib
from graphcore.kernels.gpu_kernels import gpu_count


@dataclass(frozen=True)
class Device:
    """One device: ``/job:<job>/replica:<r>/task:<t>/device:<TYPE>:<i>``."""

    job: str
    replica: int
    task: int
    device_type: str
    index: int
    incarnation: int = field(default_factory=lambda: random.getrandbits(63) or 1)

    @property
    def name(self) -> str:
        return device_lib.full_device_name(self.job, self.replica, self.task, self.device_type,
                                           self.index)

    @property
    def task_name(self) -> str:
        return f"/job:{self.job}/replica:{self.replica}/task:{self.task}"

    def matches(self, spec: Any) -> bool:
        """Whether every field ``spec`` (a DeviceSpec) sets equals this device's."""
        if spec.job is not None and spec.job != self.job:
            return False
        if spec.replica is not None and spec.replica != self.replica:
            return False
        if spec.task is not None and spec.task != self.task:
            return False
        if spec.device_type is not None and spec.device_type.upper() != self.device_type:
            return False
        if spec.device_index is not None and spec.device_index != self.index:
            return False
        return True


def local_devices(config: Any = None, job: str = "localhost", task: int = 0) -> list[Device]:
    """The devices of one task: CPU:0..n-1 (``device_count["CPU"]``, default 1) and
    the visible GPUs (capped by ``device_count["GPU"]``)."""
    counts = dict(config.device_count) if config is not None else {}
    n_cpu = max(1, counts.get("CPU", 1))
    n_gpu = gpu_count()
    if "GPU" in counts:
        n_gpu = min(n_gpu, counts["GPU"])
    devices = [Device(job, 0, task, "CPU", i) for i in range(n_cpu)]
    devices += [Device(job, 0, task, "GPU", i) for i in range(n_gpu)]
    return devices
