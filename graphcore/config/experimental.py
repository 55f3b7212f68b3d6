"""``tf.config.experimental``: device listing and visibility under their older names, GPU
memory growth and device details."""

from __future__ import annotations

from typing import Any

from graphcore.runtime.context import LogicalDeviceConfiguration
from graphcore.runtime.context import context as _context

__all__ = [
    "VirtualDeviceConfiguration", "get_device_details", "get_memory_growth",
    "get_virtual_device_configuration", "get_visible_devices", "list_logical_devices",
    "list_physical_devices", "set_memory_growth", "set_virtual_device_configuration",
    "set_visible_devices",
]

VirtualDeviceConfiguration = LogicalDeviceConfiguration


def list_physical_devices(device_type: str | None = None) -> list:
    return _context().list_physical_devices(device_type)


def list_logical_devices(device_type: str | None = None) -> list:
    return [d for d in _context().logical_devices()
            if device_type is None or d.device_type == device_type]


def get_visible_devices(device_type: str | None = None) -> list:
    return _context().visible_devices(device_type)


def set_visible_devices(devices: Any, device_type: str | None = None) -> None:
    _context().set_visible_devices(devices, device_type)


def get_virtual_device_configuration(device: Any) -> Any:
    return _context().logical_device_configuration(device)


def set_virtual_device_configuration(device: Any, logical_devices: Any) -> None:
    _context().set_logical_device_configuration(device, logical_devices)


def get_memory_growth(device: Any) -> Any:
    """Whether ``device`` (a GPU) allocates as it needs rather than all at once; None until
    set."""
    return _context().memory_growth(device)


def set_memory_growth(device: Any, enable: bool) -> None:
    """Memory growth for a GPU: later Sessions get ``gpu_options.allow_growth``."""
    _context().set_memory_growth(device, enable)


def get_device_details(device: Any) -> dict:
    """``{}`` for a CPU; a GPU's ``device_name`` and ``compute_capability``."""
    ctx = _context()
    if device not in ctx.physical_devices():
        raise ValueError("Unrecognized device: %s" % repr(device))
    if device.device_type != "GPU":
        return {}
    from cupy.cuda import runtime

    props = runtime.getDeviceProperties(int(device.name.rsplit(":", 1)[1]))
    name = props["name"]
    return {"device_name": name.decode() if isinstance(name, bytes) else name,
            "compute_capability": (props["major"], props["minor"])}
