"""The process-wide runtime settings ``tf.config`` edits (TF's eager ``context.Context``):
the physical devices found, which are visible, their logical (virtual) configuration,
GPU memory growth, thread counts and soft placement.  A Session created without a
config runs under :func:`session_config`, as TF1 sessions run under
``context.context().config``; the settings freeze once the logical devices have been
listed, as TF's do once its context is initialized."""

from __future__ import annotations

import collections
import threading
from typing import Any

from graphcore.kernels.gpu_kernels import gpu_count
from graphcore.protobuf import config_pb2

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])


class LogicalDeviceConfiguration(collections.namedtuple(
        "LogicalDeviceConfiguration",
        ["memory_limit", "experimental_priority", "experimental_device_ordinal"])):
    """One logical device carved out of a physical one (``tf.config.LogicalDeviceConfiguration``)."""

    def __new__(cls, memory_limit=None, experimental_priority=None,
                experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority,
                               experimental_device_ordinal)


class Context:
    """The settings; one per process (:func:`context`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._physical: list[PhysicalDevice] | None = None
        self._visible: list[PhysicalDevice] = []
        self._virtual: dict[PhysicalDevice, list] = {}
        self._memory_growth: dict[PhysicalDevice, Any] = {}
        self._intra_op: int | None = None
        self._inter_op: int | None = None
        self._soft_placement: bool | None = None
        self._log_placement: bool | None = None
        self._initialized = False
        self._changed_devices = False

    # -- devices ----------------------------------------------------------------------
    def physical_devices(self) -> list[PhysicalDevice]:
        with self._lock:
            if self._physical is None:
                found = [PhysicalDevice("/physical_device:CPU:0", "CPU")]
                found += [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU")
                          for i in range(gpu_count())]
                self._physical = found
                self._visible = list(found)
                self._memory_growth = {d: None for d in found if d.device_type == "GPU"}
            return list(self._physical)

    def list_physical_devices(self, device_type: str | None = None) -> list[PhysicalDevice]:
        return [d for d in self.physical_devices()
                if device_type is None or d.device_type == device_type]

    def logical_devices(self) -> list[LogicalDevice]:
        """The devices sessions get; listing them freezes the settings (TF: initializes the
        context)."""
        self.physical_devices()
        self._initialized = True
        out, counts = [], collections.Counter()
        for dev in self._visible:
            for _ in self._virtual.get(dev) or [None]:
                out.append(LogicalDevice(f"/device:{dev.device_type}:{counts[dev.device_type]}",
                                         dev.device_type))
                counts[dev.device_type] += 1
        return out

    def _check_device(self, dev: Any) -> None:
        if dev not in self.physical_devices():
            raise ValueError("Unrecognized device: %s" % repr(dev))

    def _frozen(self, what: str) -> None:
        if self._initialized:
            raise RuntimeError(f"{what} cannot be modified after being initialized")

    def visible_devices(self, device_type: str | None = None) -> list[PhysicalDevice]:
        self.physical_devices()
        return [d for d in self._visible if device_type is None or d.device_type == device_type]

    def set_visible_devices(self, devices: Any, device_type: str | None = None) -> None:
        self.physical_devices()
        if not isinstance(devices, list):
            devices = [devices]
        for d in devices:
            self._check_device(d)
            if device_type is not None and d.device_type != device_type:
                raise ValueError("Unrecognized device: %s" % repr(d))
        visible = [] if device_type is None else [
            d for d in self._visible if d.device_type != device_type]
        visible += devices
        if visible == self._visible:
            return
        self._frozen("Visible devices")
        self._visible = visible
        self._changed_devices = True

    def memory_growth(self, dev: Any) -> Any:
        self._check_device(dev)
        return self._memory_growth[dev]

    def set_memory_growth(self, dev: Any, enable: bool) -> None:
        self._check_device(dev)
        if dev in self._virtual:
            raise ValueError("Cannot set memory growth on device when virtual devices configured")
        if dev.device_type != "GPU":
            raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")
        if self._memory_growth.get(dev) == enable:
            return
        if self._initialized:
            raise RuntimeError("Physical devices cannot be modified after being initialized")
        self._memory_growth[dev] = enable

    def logical_device_configuration(self, dev: Any) -> Any:
        self._check_device(dev)
        return self._virtual.get(dev)

    def set_logical_device_configuration(self, dev: Any, virtual_devices: Any) -> None:
        self._check_device(dev)
        if dev.device_type == "CPU":
            for v in virtual_devices:
                if v.memory_limit is not None:
                    raise ValueError("Setting memory limit on CPU virtual devices is currently "
                                     "not supported")
                if v.experimental_priority is not None:
                    raise ValueError("Setting experimental_priority on CPU virtual  devices is "
                                     "currently not supported")
                if v.experimental_device_ordinal is not None:
                    raise ValueError("Setting experimental_device_ordinal on CPU virtual  "
                                     "devices is currently not supported")
        elif dev.device_type == "GPU":
            for v in virtual_devices:
                if v.memory_limit is None:
                    raise ValueError("Setting memory limit is required for GPU virtual devices")
        else:
            raise ValueError("Virtual devices are not supported for %s" % dev.device_type)
        if self._virtual.get(dev) == virtual_devices:
            return
        self._frozen("Virtual devices")
        self._virtual[dev] = virtual_devices
        self._changed_devices = True

    # -- threads and placement --------------------------------------------------------
    def _set(self, attr: str, value: Any, what: str) -> None:
        if getattr(self, attr) == value:
            return
        if self._initialized:
            raise RuntimeError(f"{what} cannot be modified after initialization.")
        setattr(self, attr, value)

    def set_intra_op_parallelism_threads(self, n: int) -> None:
        self._set("_intra_op", n, "Intra op parallelism")

    def set_inter_op_parallelism_threads(self, n: int) -> None:
        self._set("_inter_op", n, "Inter op parallelism")

    def set_soft_device_placement(self, enable: bool) -> None:
        self._soft_placement = bool(enable)

    def set_log_device_placement(self, enable: bool) -> None:
        self._log_placement = bool(enable)

    def config(self) -> config_pb2.ConfigProto:
        """TF's ``context.config``: the ConfigProto with every setting applied."""
        self.physical_devices()
        config = config_pb2.ConfigProto()
        config.intra_op_parallelism_threads = self._intra_op or 0
        config.inter_op_parallelism_threads = self._inter_op or 0
        config.allow_soft_placement = bool(self._soft_placement)
        if self._log_placement is not None:
            config.log_device_placement = self._log_placement
        config.device_count["CPU"] = 0
        config.device_count["GPU"] = 0
        for dev in self._visible:
            config.device_count[dev.device_type] += len(self._virtual.get(dev) or [None])
        gpus = [d for d in self._physical if d.device_type == "GPU"]
        visible = [str(i) for i, d in enumerate(gpus) if d in self._visible]
        if visible != [str(i) for i in range(len(gpus))]:
            config.gpu_options.visible_device_list = ",".join(visible)
        if any(self._memory_growth.get(d) for d in gpus if d in self._visible):
            config.gpu_options.allow_growth = True
        return config

    def session_config(self) -> config_pb2.ConfigProto:
        """The config of a Session created without one: the settings changed from their
        defaults (an untouched context gives an empty ConfigProto, which a remote target
        reads as "the task's own devices")."""
        full = self.config()
        config = config_pb2.ConfigProto()
        config.intra_op_parallelism_threads = full.intra_op_parallelism_threads
        config.inter_op_parallelism_threads = full.inter_op_parallelism_threads
        config.allow_soft_placement = full.allow_soft_placement
        config.log_device_placement = full.log_device_placement
        if full.gpu_options.ByteSize():
            config.gpu_options.CopyFrom(full.gpu_options)
        if self._changed_devices:
            for k, v in full.device_count.items():
                config.device_count[k] = v
        return config


_context = Context()


def context() -> Context:
    return _context
