"""Unit tests for graphcore.framework.device (no TensorFlow needed)."""

import pickle
import subprocess
import sys

import pytest

from graphcore.framework import device as dev
from graphcore.framework.device import DeviceSpec, DeviceSpecV1, DeviceSpecV2


@pytest.mark.parametrize(
    "spec, expected, fields",
    [
        ("", "", (None, None, None, None, None)),
        ("/job:ps/replica:0/task:1/device:GPU:0", "/job:ps/replica:0/task:1/device:GPU:0",
         ("ps", 0, 1, "GPU", 0)),
        ("/cpu:0", "/device:CPU:0", (None, None, None, "CPU", 0)),
        ("/gpu:1", "/device:GPU:1", (None, None, None, "GPU", 1)),
        ("/device:CPU:*", "/device:CPU:*", (None, None, None, "CPU", None)),
        ("/device:gpu:*", "/device:GPU:*", (None, None, None, "GPU", None)),
        ("/device:tpu:1", "/device:tpu:1", (None, None, None, "tpu", 1)),
        ("/tpu:1", "/device:TPU:1", (None, None, None, "TPU", 1)),
        ("/gpu", "/device:GPU:*", (None, None, None, "GPU", None)),
        ("CPU:0", "/device:CPU:0", (None, None, None, "CPU", 0)),
        ("job:ps", "/job:ps", ("ps", None, None, None, None)),
        ("//job:ps/", "/job:ps", ("ps", None, None, None, None)),
        ("/job:ps/job:worker", "/job:worker", ("worker", None, None, None, None)),
        ("/job:", "/job:", ("", None, None, None, None)),
        ("/task:2/cpu:1", "/task:2/device:CPU:1", (None, None, 2, "CPU", 1)),
        ("/task:01", "/task:1", (None, None, 1, None, None)),
        ("/device:MyDev:3", "/device:MyDev:3", (None, None, None, "MyDev", 3)),
        ("/job:localhost/device:cpu:0", "/job:localhost/device:CPU:0",
         ("localhost", None, None, "CPU", 0)),
    ],
)
def test_parse_and_format(spec, expected, fields):
    for cls in (DeviceSpecV1, DeviceSpecV2):
        d = cls.from_string(spec)
        assert type(d) is cls
        assert d.to_string() == expected
        assert (d.job, d.replica, d.task, d.device_type, d.device_index) == fields
        # Canonical strings are fixed points.
        assert cls.from_string(expected).to_string() == expected
    assert dev.canonical_name(spec) == expected


@pytest.mark.parametrize(
    "spec, message",
    [
        ("/foo:bar", "Unknown attribute 'foo' is encountered while parsing the device spec: "
                     "'/foo:bar'."),
        ("/job:a/b", "Unknown attribute 'b'"),
        ("/device:CPU", "Unknown attribute 'device'"),
        ("/device:GPU:0:1", "Unknown attribute 'device'"),
        ("/job:ps:1", "Unknown attribute 'job'"),
        ("/Job:ps", "Unknown attribute 'Job'"),
        ("localhost", "Unknown attribute 'localhost'"),
        ("/task:x", "invalid literal for int() with base 10: 'x'"),
        ("/replica:*", "invalid literal"),
        ("/device:GPU:x", "invalid literal"),
        ("/cpu:0/gpu:1", "Multiple device types are not allowed while parsing the device spec: "
                         "/cpu:0/gpu:1."),
        ("/device:CPU:0/device:GPU:0", "Multiple device types"),
    ],
)
def test_malformed(spec, message):
    for cls in (DeviceSpecV1, DeviceSpecV2):
        with pytest.raises(ValueError) as info:
            cls.from_string(spec)
        assert message in str(info.value)
    with pytest.raises(ValueError):
        dev.check_valid(spec)
    with pytest.raises(ValueError):
        dev.canonical_name(spec)


def test_non_string_rejected():
    with pytest.raises(TypeError):
        DeviceSpec.from_string(3)
    assert DeviceSpec.from_string(None).to_string() == ""


def test_constructor_normalizes():
    d = DeviceSpec(job="ps", replica="1", task="3", device_type="gpu", device_index="2")
    assert (d.job, d.replica, d.task, d.device_type, d.device_index) == ("ps", 1, 3, "GPU", 2)
    assert DeviceSpec(device_type="Cpu").to_string() == "/device:Cpu:*"
    assert DeviceSpec(device_index=2).to_string() == ""  # index without type prints nothing
    assert DeviceSpec(replica=0).to_string() == "/replica:0"
    assert DeviceSpec(job=3).job == "3"


def test_merge():
    a = DeviceSpec.from_string("/job:ps/device:GPU:1")
    b = DeviceSpec.from_string("/device:CPU:*")
    merged = a.make_merged_spec(b)
    assert type(merged) is DeviceSpecV1
    assert merged.to_string() == "/job:ps/device:CPU:1"
    assert b.make_merged_spec(a).to_string() == "/job:ps/device:GPU:1"
    assert a.to_string() == "/job:ps/device:GPU:1"  # untouched
    assert type(DeviceSpecV2.from_string("/cpu:0").make_merged_spec(a)) is DeviceSpecV2
    a.merge_from(DeviceSpec(task=4, device_index=0))
    assert a.to_string() == "/job:ps/task:4/device:GPU:0"


def test_v1_setters_and_parse_from_string():
    d = DeviceSpec.from_string("/job:ps")
    h = hash(d)
    d.job = "w"
    d.device_type = "gpu"
    assert d.to_string() == "/job:w/device:GPU:*"
    assert hash(d) != h and hash(d) == hash("/job:w/device:GPU:*")
    d.device_index = 1
    d.replica = "2"
    d.task = 0
    assert d.to_string() == "/job:w/replica:2/task:0/device:GPU:1"
    assert d.parse_from_string("/task:3") is d
    assert d.to_string() == "/task:3"
    # Mutating a V1 parsed object never affects later parses of the same string.
    e = DeviceSpec.from_string("/job:ps")
    e.job = "changed"
    assert DeviceSpec.from_string("/job:ps").job == "ps"
    assert DeviceSpecV2.from_string("/job:ps").job == "ps"


def test_v2_is_immutable_and_cached():
    d = DeviceSpecV2.from_string("/job:ps/cpu:0")
    assert DeviceSpecV2.from_string("/job:ps/cpu:0") is d
    with pytest.raises(AttributeError):
        d.job = "x"
    with pytest.raises(AttributeError):
        d.merge_from(d)
    other = d.parse_from_string("/gpu:0")
    assert other is not d and other.to_string() == "/device:GPU:0"
    assert d.to_string() == "/job:ps/device:CPU:0"


def test_replace():
    d = DeviceSpec.from_string("/job:ps/device:GPU:1")
    r = d.replace(job="x", device_index=None)
    assert type(r) is DeviceSpecV1 and r.to_string() == "/job:x/device:GPU:*"
    assert d.to_string() == "/job:ps/device:GPU:1"
    with pytest.raises(TypeError):
        d.replace(foo=1)


def test_eq_hash_repr():
    assert DeviceSpec("ps") == DeviceSpec(job="ps")
    assert DeviceSpec("ps") == DeviceSpecV2(job="ps")
    assert DeviceSpec("ps") != DeviceSpec("w")
    assert DeviceSpec("ps") != "/job:ps"
    assert hash(DeviceSpec("ps")) == hash(DeviceSpecV2("ps")) == hash("/job:ps")
    assert len({DeviceSpecV2.from_string("/cpu:0"), DeviceSpecV2(device_type="CPU",
                                                                 device_index=0)}) == 1
    assert repr(DeviceSpec("ps")) == (
        "<DeviceSpec(job=ps, replica=None, task=None, device_type=None, device_index=None)>"
    )


def test_pickle_roundtrip_and_hash_across_processes():
    d = DeviceSpec.from_string("/job:ps/replica:0/task:1/device:GPU:0")
    hash(d)
    for obj in (d, DeviceSpecV2.from_string(d.to_string())):
        back = pickle.loads(pickle.dumps(obj))
        assert type(back) is type(obj) and back == obj and hash(back) == hash(obj)
    code = (
        "import pickle,sys; d=pickle.loads(sys.stdin.buffer.read()); "
        "print(hash(d)==hash(d.to_string()), d.to_string())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], input=pickle.dumps(d), capture_output=True, check=True
    ).stdout.decode()
    assert out.split() == ["True", "/job:ps/replica:0/task:1/device:GPU:0"]


def test_canonical_name():
    assert dev.canonical_name(None) == ""
    assert dev.canonical_name("/cpu:0") == "/device:CPU:0"
    assert dev.canonical_name(DeviceSpecV2(job="a")) == "/job:a"
    assert dev.is_device_spec(DeviceSpec()) and not dev.is_device_spec("/cpu:0")


class _Node:
    def __init__(self, device):
        self.device = device


def test_merge_device():
    m = dev.merge_device("/job:ps/device:GPU:0")
    assert not m.is_null_merge
    # Fields already set on the op win; unset ones come from the spec.
    assert m(_Node("/job:worker/task:2")).to_string() == "/job:worker/task:2/device:GPU:0"
    assert m.shortcut_string_merge(_Node("/job:worker/task:2")) == (
        "/job:worker/task:2/device:GPU:0"
    )
    assert m(_Node(None)).to_string() == "/job:ps/device:GPU:0"
    assert m.shortcut_string_merge(_Node("")) == "/job:ps/device:GPU:0"
    assert m.shortcut_string_merge(_Node("/cpu:*")) == "/job:ps/device:CPU:0"
    assert dev.merge_device("").is_null_merge
    assert dev.merge_device(None).is_null_merge
    assert dev.merge_device(DeviceSpec()).is_null_merge
    assert dev.merge_device(DeviceSpec(device_index=1)).is_null_merge  # as in TF


def test_merge_device_snapshots_v1_spec():
    spec = DeviceSpec(job="ps")
    m = dev.merge_device(spec)
    spec.job = "changed"
    assert m.shortcut_string_merge(_Node("")) == "/job:ps"
    assert m(_Node("")).to_string() == "/job:ps"


def test_full_names():
    assert dev.full_device_name() == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert dev.full_device_name("worker", 1, 2, "gpu", 3) == (
        "/job:worker/replica:1/task:2/device:GPU:3"
    )
    d = dev.parse_full_name("/job:worker/replica:1/task:2/device:GPU:3")
    assert (d.job, d.replica, d.task, d.device_type, d.device_index) == ("worker", 1, 2, "GPU", 3)
    assert dev.parse_full_name("/job:a/replica:0/task:0/cpu:0").to_string() == (
        "/job:a/replica:0/task:0/device:CPU:0"
    )
    for bad in ["/job:a/replica:0/task:0/device:CPU:*", "/job:a/task:0/device:CPU:0",
                "/replica:0/task:0/device:CPU:0", "/job:/replica:0/task:0/device:CPU:0",
                "/job:a/replica:0/task:0", "", "/foo:bar"]:
        with pytest.raises(ValueError):
            dev.parse_full_name(bad)
