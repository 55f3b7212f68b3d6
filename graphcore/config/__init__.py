"""``tf.config``: the devices this process sees and the settings Sessions created later run
under (visible devices, logical devices, threads, soft placement)."""

from __future__ import annotations

from typing import Any

from graphcore.config import experimental, threading
from graphcore.runtime.context import LogicalDevice, LogicalDeviceConfiguration, PhysicalDevice
from graphcore.runtime.context import context as _context

__all__ = [
    "LogicalDevice", "LogicalDeviceConfiguration", "PhysicalDevice", "experimental",
    "get_logical_device_configuration", "get_soft_device_placement", "get_visible_devices",
    "list_logical_devices", "list_physical_devices",
    "set_logical_device_configuration", "set_soft_device_placement", "set_visible_devices",
    "threading",
]


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The devices found: ``/physical_device:CPU:0`` and one per GPU CuPy sees."""
    return _context().list_physical_devices(device_type)


def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    """The devices Sessions get (visible ones, split by their logical configuration).
    Freezes the device and thread settings, as TF's first use of its context does."""
    return [d for d in _context().logical_devices()
            if device_type is None or d.device_type == device_type]


def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    return _context().visible_devices(device_type)


def set_visible_devices(devices: Any, device_type: str | None = None) -> None:
    """Only these physical devices (of ``device_type``, when given) back later Sessions."""
    _context().set_visible_devices(devices, device_type)


def get_logical_device_configuration(device: PhysicalDevice) -> Any:
    return _context().logical_device_configuration(device)


def set_logical_device_configuration(device: PhysicalDevice, logical_devices: Any) -> None:
    """Splits ``device`` into ``len(logical_devices)`` devices (CPU:0..n-1 for the CPU)."""
    _context().set_logical_device_configuration(device, logical_devices)


def get_soft_device_placement() -> bool:
    return _context().config().allow_soft_placement


def set_soft_device_placement(enabled: bool) -> None:
    """``allow_soft_placement`` of later Sessions."""
    _context().set_soft_device_placement(enabled)
