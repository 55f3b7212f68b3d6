"""Device specifications, modelled on TensorFlow 1.x's ``tf.DeviceSpec``.

A device string names (part of) a device, e.g. ``/job:ps/replica:0/task:1/device:GPU:0``.
Every component is optional; unset components are ``None`` and are left out of
the canonical string.  Legacy short forms (``/cpu:0``, ``/gpu:1``, ``GPU``) and the
``*`` wildcard device index are accepted.

Design (mutability):

* :class:`DeviceSpecV2` is an immutable value object (TF 2 style).  ``from_string``
  results are cached per string and the same instance may be shared; hashing and
  equality use the canonical string.
* :class:`DeviceSpecV1` (exported as :data:`DeviceSpec`, like ``tf.compat.v1``)
  subclasses it and adds TF1's in-place API: property setters, ``merge_from`` and
  a mutating ``parse_from_string``.  ``DeviceSpecV1.from_string`` always returns a
  fresh object (built from cached parse results), so mutating one never leaks into
  the cache.  Methods that derive a spec (``make_merged_spec``, ``replace``) always
  return a new object of the receiver's class.

Graph code should prefer :class:`DeviceSpecV2`, :func:`canonical_name` and
:class:`MergeDevice` ``.shortcut_string_merge``, which are cached for speed.
"""

from __future__ import annotations

import functools
from typing import Any, Protocol

__all__ = [
    "DeviceSpec",
    "DeviceSpecV1",
    "DeviceSpecV2",
    "MergeDevice",
    "canonical_name",
    "check_valid",
    "full_device_name",
    "is_device_spec",
    "merge_device",
    "parse_full_name",
]

# Device types that may appear in the short "/TYPE[:INDEX]" form (case-insensitive).
_SHORT_FORM_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "EPU", "CUSTOM"})

_Components = tuple[str | None, int | None, int | None, str | None, int | None]


def _to_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _to_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _to_device_type(value: Any) -> str | None:
    # Lower-case "cpu"/"gpu" are accepted for backwards compatibility (as TF does).
    if value == "cpu" or value == "gpu":
        return value.upper()
    return None if value is None else str(value)


@functools.lru_cache(maxsize=8192)
def _parse(spec: str) -> _Components:
    """Parse a device string into normalized (job, replica, task, type, index)."""
    job = replica = task = device_type = None
    device_index: int | None = None
    for part in spec.split("/"):
        fields = part.split(":")
        name = fields[0]
        if not name:
            continue  # Empty segments (and segments like ":0") are ignored, as in TF.
        n = len(fields)
        if n == 2 and name == "job":
            job = fields[1]
        elif n == 2 and name == "replica":
            replica = fields[1]
        elif n == 2 and name == "task":
            task = fields[1]
        elif n <= 2 and name.upper() in _SHORT_FORM_DEVICE_TYPES:
            if device_type is not None:
                raise ValueError(
                    "Multiple device types are not allowed while parsing the device "
                    f"spec: {spec}."
                )
            device_type = name.upper()
            if n == 2 and fields[1] != "*":
                device_index = int(fields[1])
        elif n == 3 and name == "device":
            if device_type is not None:
                raise ValueError(
                    "Multiple device types are not allowed while parsing the device "
                    f"spec: {spec}."
                )
            device_type = fields[1]
            if fields[2] != "*":
                device_index = int(fields[2])
        else:
            raise ValueError(
                f"Unknown attribute '{name}' is encountered while parsing the device "
                f"spec: '{spec}'."
            )
    # Integer conversion of replica/task happens after the whole string was scanned.
    return (job, _to_int(replica), _to_int(task), _to_device_type(device_type), device_index)


def _format(
    job: str | None,
    replica: int | None,
    task: int | None,
    device_type: str | None,
    device_index: int | None,
) -> str:
    out = []
    if job is not None:
        out.append("/job:" + job)
    if replica is not None:
        out.append(f"/replica:{replica}")
    if task is not None:
        out.append(f"/task:{task}")
    if device_type is not None:
        index = "*" if device_index is None else str(device_index)
        out.append(f"/device:{device_type}:{index}")
    return "".join(out)


class DeviceSpecV2:
    """An immutable (partial) device specification.

    Args:
      job: job name, e.g. ``"ps"``.
      replica: replica index.
      task: task index.
      device_type: e.g. ``"CPU"``/``"GPU"`` (``"cpu"``/``"gpu"`` are upper-cased).
      device_index: device index; ``None`` means any (``*``).
    """

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index",
                 "_as_string", "_hash")

    def __init__(
        self,
        job: str | None = None,
        replica: int | None = None,
        task: int | None = None,
        device_type: str | None = None,
        device_index: int | None = None,
    ) -> None:
        self._job = _to_str(job)
        self._replica = _to_int(replica)
        self._task = _to_int(task)
        self._device_type = _to_device_type(device_type)
        self._device_index = _to_int(device_index)
        self._as_string: str | None = None
        self._hash: int | None = None

    @classmethod
    def _from_components(cls, components: _Components) -> DeviceSpecV2:
        # Components are already normalized; skip the conversions in __init__.
        obj = cls.__new__(cls)
        (obj._job, obj._replica, obj._task, obj._device_type, obj._device_index) = components
        obj._as_string = None
        obj._hash = None
        return obj

    @classmethod
    def from_string(cls, spec: str | None) -> DeviceSpecV2:
        """Parse a device string (``None`` means ``""``); raises ValueError if malformed."""
        if spec is None:
            spec = ""
        elif not isinstance(spec, str):
            raise TypeError(f"Device spec must be a string, got {type(spec).__name__}: {spec!r}")
        if cls is DeviceSpecV2:
            return _cached_v2(spec)
        return cls._from_components(_parse(spec))

    def parse_from_string(self, spec: str | None) -> DeviceSpecV2:
        """Return a new spec parsed from ``spec`` (TF2 semantics; V1 mutates in place)."""
        return type(self).from_string(spec)

    def to_string(self) -> str:
        """The canonical string, e.g. ``/job:ps/replica:0/task:1/device:GPU:0``."""
        s = self._as_string
        if s is None:
            s = self._as_string = _format(
                self._job, self._replica, self._task, self._device_type, self._device_index
            )
        return s

    def _components(self) -> _Components:
        return (self._job, self._replica, self._task, self._device_type, self._device_index)

    def _merged_components(self, dev: DeviceSpecV2) -> _Components:
        return (
            dev._job if dev._job is not None else self._job,
            dev._replica if dev._replica is not None else self._replica,
            dev._task if dev._task is not None else self._task,
            dev._device_type if dev._device_type is not None else self._device_type,
            dev._device_index if dev._device_index is not None else self._device_index,
        )

    def make_merged_spec(self, dev: DeviceSpecV2) -> DeviceSpecV2:
        """Return a new spec: fields set in ``dev`` win, the rest come from ``self``."""
        return type(self)._from_components(self._merged_components(dev))

    def replace(self, **kwargs: Any) -> DeviceSpecV2:
        """Return a copy with the given fields replaced (unknown names raise TypeError)."""
        init_kwargs = dict(
            job=self._job,
            replica=self._replica,
            task=self._task,
            device_type=self._device_type,
            device_index=self._device_index,
        )
        init_kwargs.update(kwargs)
        return type(self)(**init_kwargs)

    @property
    def job(self) -> str | None:
        return self._job

    @property
    def replica(self) -> int | None:
        return self._replica

    @property
    def task(self) -> int | None:
        return self._task

    @property
    def device_type(self) -> str | None:
        return self._device_type

    @property
    def device_index(self) -> int | None:
        return self._device_index

    def __eq__(self, other: object) -> bool:
        # Unlike TF (which requires ``isinstance(other, type(self))``), V1 and V2 specs
        # with the same canonical string compare equal.
        if not isinstance(other, DeviceSpecV2):
            return NotImplemented
        return self.to_string() == other.to_string()

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = hash(self.to_string())
        return h

    def __reduce__(self) -> tuple[Any, ...]:
        # Never pickle the cached hash: string hashes differ between processes.
        return type(self), self._components()

    def __repr__(self) -> str:
        return (
            f"<DeviceSpec(job={self._job}, replica={self._replica}, task={self._task}, "
            f"device_type={self._device_type}, device_index={self._device_index})>"
        )


class DeviceSpecV1(DeviceSpecV2):
    """TF1 ``DeviceSpec``: a :class:`DeviceSpecV2` with in-place mutation methods."""

    __slots__ = ()

    @DeviceSpecV2.job.setter
    def job(self, job: str | None) -> None:
        self._job = _to_str(job)
        self._as_string = self._hash = None

    @DeviceSpecV2.replica.setter
    def replica(self, replica: int | None) -> None:
        self._replica = _to_int(replica)
        self._as_string = self._hash = None

    @DeviceSpecV2.task.setter
    def task(self, task: int | None) -> None:
        self._task = _to_int(task)
        self._as_string = self._hash = None

    @DeviceSpecV2.device_type.setter
    def device_type(self, device_type: str | None) -> None:
        self._device_type = _to_device_type(device_type)
        self._as_string = self._hash = None

    @DeviceSpecV2.device_index.setter
    def device_index(self, device_index: int | None) -> None:
        self._device_index = _to_int(device_index)
        self._as_string = self._hash = None

    def _set_components(self, components: _Components) -> None:
        (self._job, self._replica, self._task, self._device_type,
         self._device_index) = components
        self._as_string = self._hash = None

    def parse_from_string(self, spec: str | None) -> DeviceSpecV1:
        """Replace all fields with those parsed from ``spec``; returns ``self``."""
        self._set_components(DeviceSpecV2.from_string(spec)._components())
        return self

    def merge_from(self, dev: DeviceSpecV2) -> None:
        """Merge ``dev`` into ``self`` in place (fields set in ``dev`` win)."""
        self._set_components(self._merged_components(dev))


DeviceSpec = DeviceSpecV1


@functools.lru_cache(maxsize=8192)
def _cached_v2(spec: str) -> DeviceSpecV2:
    return DeviceSpecV2._from_components(_parse(spec))


def is_device_spec(obj: object) -> bool:
    """True if ``obj`` is a DeviceSpec (V1 or V2)."""
    return isinstance(obj, DeviceSpecV2)


def check_valid(spec: str) -> None:
    """Raise ValueError if ``spec`` is not a valid device string."""
    DeviceSpecV2.from_string(spec)


@functools.lru_cache(maxsize=8192)
def _canonical_string(device: str) -> str:
    return _cached_v2(device).to_string()


def canonical_name(device: str | DeviceSpecV2 | None) -> str:
    """Canonical string for a device string or spec; ``""`` for ``None``."""
    if device is None:
        return ""
    if isinstance(device, DeviceSpecV2):
        return device.to_string()
    if not isinstance(device, str):
        raise TypeError(f"Device spec must be a string, got {type(device).__name__}: {device!r}")
    return _canonical_string(device)


class _HasDevice(Protocol):
    device: str | None


class MergeDevice:
    """Device function merging a spec into an op's device (TF's ``MergeDevice``).

    Fields already set on the op's current device win; unset ones are filled from
    the wrapped spec.  Called with an object that has a ``.device`` string.
    """

    __slots__ = ("_spec",)

    def __init__(self, spec: str | DeviceSpecV2 | None) -> None:
        if isinstance(spec, DeviceSpecV2):
            # Snapshot into an immutable V2 so later V1 mutations do not leak in.
            spec = (spec if type(spec) is DeviceSpecV2
                    else DeviceSpecV2._from_components(spec._components()))
        else:
            spec = DeviceSpecV2.from_string(spec)
        self._spec: DeviceSpecV2 = spec

    def __call__(self, node_def: _HasDevice) -> DeviceSpecV2:
        current = DeviceSpecV2.from_string(node_def.device or "")
        return self._spec.make_merged_spec(current)

    def shortcut_string_merge(self, node_def: _HasDevice) -> str:
        """Like ``__call__`` but returns the merged canonical string (cached)."""
        return _merge_to_string(self._spec, node_def.device or "")

    @property
    def is_null_merge(self) -> bool:
        """True when the wrapped spec sets nothing (its string form is empty)."""
        return not self._spec.to_string()

    @property
    def spec(self) -> DeviceSpecV2:
        """The wrapped (immutable) spec."""
        return self._spec

    def __repr__(self) -> str:
        return f"<MergeDevice (spec: {self._spec.to_string()})>"


@functools.lru_cache(maxsize=16384)
def _merge_to_string(spec: DeviceSpecV2, device: str) -> str:
    return spec.make_merged_spec(_cached_v2(device)).to_string()


def merge_device(spec: str | DeviceSpecV2 | None) -> MergeDevice:
    """Return a device function that merges ``spec`` into an op's current device."""
    return MergeDevice(spec)


def full_device_name(
    job: str = "localhost",
    replica: int = 0,
    task: int = 0,
    device_type: str = "CPU",
    index: int = 0,
) -> str:
    """Fully specified name, e.g. ``/job:localhost/replica:0/task:0/device:CPU:0``."""
    device_type = _to_device_type(device_type)
    return f"/job:{job}/replica:{int(replica)}/task:{int(task)}/device:{device_type}:{int(index)}"


def parse_full_name(name: str) -> DeviceSpecV1:
    """Parse a device name that must set every field (no ``*`` index), else ValueError."""
    spec = DeviceSpecV2.from_string(name)
    missing = [
        field
        for field, value in zip(
            ("job", "replica", "task", "device_type", "device_index"), spec._components()
        )
        if value is None or value == ""
    ]
    if missing:
        raise ValueError(
            f"Device name {name!r} is not fully specified (missing: {', '.join(missing)})."
        )
    return DeviceSpecV1._from_components(spec._components())
