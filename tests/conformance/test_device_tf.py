"""Reference tier: compare graphcore's DeviceSpec and errors with TensorFlow's."""

import itertools

import pytest

from graphcore import errors as gc_errors
from graphcore.framework import device as gc_device

tf = pytest.importorskip("tensorflow")

DEVICE_STRINGS = [
    "",
    "/job:ps/replica:0/task:1/device:GPU:0",
    "/job:worker/replica:2/task:3/device:CPU:0",
    "/job:ps",
    "job:ps",
    "/job:ps/",
    "//job:ps",
    "/job:",
    "/job:/task:0",
    "/job:*",
    "/job:ps/job:worker",
    "/replica:1",
    "/replica:-1",
    "/task:01",
    "/task:+1",
    "/task:2/cpu:1",
    "/cpu:0",
    "/gpu:1",
    "/cpu:*",
    "/cpu",
    "/GPU",
    "/tpu:0",
    "CPU:0",
    "gpu:0",
    "/device:CPU:*",
    "/device:gpu:*",
    "/device:tpu:1",
    "/device:XLA_GPU:0",
    "/device:MyDev:3",
    "/device:GPU:-1",
    "/job:localhost/device:cpu:0",
    "/job:ps/replica:0/task:1/device:GPU:0/",
    "/job:ps/task:0/device:CPU:0",
    # Malformed:
    "/foo:bar",
    "/job:a/b",
    "/job:ps:1",
    "/Job:ps",
    "localhost",
    "/task:x",
    "/replica:x",
    "/replica:*",
    "/task:*",
    "/task:1.0",
    "/device:GPU:x",
    "/cpu:x",
    "/device:CPU",
    "/device:",
    "/device:GPU:0:1",
    "/xla_cpu:0",
    "/cpu:0/gpu:1",
    "/device:CPU:0/device:GPU:0",
    "/task:x/foo:bar",
]

VALID = []
for _s in DEVICE_STRINGS:
    try:
        tf.DeviceSpec.from_string(_s)
        VALID.append(_s)
    except ValueError:
        pass

PAIRS = [
    (gc_device.DeviceSpecV1, tf.compat.v1.DeviceSpec),
    (gc_device.DeviceSpecV2, tf.DeviceSpec),
    (gc_device.DeviceSpec, tf.compat.v1.DeviceSpec),
]


def _fields(d):
    return (d.job, d.replica, d.task, d.device_type, d.device_index)


def _outcome(fn):
    try:
        return ("ok", fn())
    except ValueError as e:
        return ("ValueError", str(e))


@pytest.mark.parametrize("spec", DEVICE_STRINGS)
@pytest.mark.parametrize("ours, theirs", PAIRS, ids=["v1", "v2", "default"])
def test_parse_matches_tf(spec, ours, theirs):
    def run(cls):
        d = cls.from_string(spec)
        return d.to_string(), _fields(d)

    assert _outcome(lambda: run(ours)) == _outcome(lambda: run(theirs))


def test_table_has_malformed_entries():
    assert 10 < len(VALID) < len(DEVICE_STRINGS) - 10


@pytest.mark.parametrize("kwargs", [
    {}, {"job": "ps"}, {"job": ""}, {"job": "ps", "replica": "1"}, {"task": "3"},
    {"device_type": "cpu"}, {"device_type": "Cpu"}, {"device_type": "gpu", "device_index": 0},
    {"device_type": "TPU", "device_index": "2"}, {"device_index": 2}, {"device_type": ""},
    {"job": "w", "replica": 0, "task": 0, "device_type": "CPU", "device_index": 0},
])
@pytest.mark.parametrize("ours, theirs", PAIRS, ids=["v1", "v2", "default"])
def test_constructor_matches_tf(kwargs, ours, theirs):
    a, b = ours(**kwargs), theirs(**kwargs)
    assert a.to_string() == b.to_string()
    assert _fields(a) == _fields(b)
    assert repr(a) == repr(b)


@pytest.mark.parametrize("ours, theirs", PAIRS, ids=["v1", "v2", "default"])
def test_make_merged_spec_matches_tf(ours, theirs):
    for x, y in itertools.product(VALID, repeat=2):
        mine = ours.from_string(x).make_merged_spec(ours.from_string(y))
        ref = theirs.from_string(x).make_merged_spec(theirs.from_string(y))
        assert (mine.to_string(), _fields(mine)) == (ref.to_string(), _fields(ref)), (x, y)


def test_merge_from_and_parse_from_string_match_tf_v1():
    for x, y in itertools.product(VALID, repeat=2):
        mine, ref = gc_device.DeviceSpec.from_string(x), tf.compat.v1.DeviceSpec.from_string(x)
        mine.merge_from(gc_device.DeviceSpec.from_string(y))
        ref.merge_from(tf.compat.v1.DeviceSpec.from_string(y))
        assert mine.to_string() == ref.to_string(), (x, y)
        assert mine.parse_from_string(y).to_string() == ref.parse_from_string(y).to_string()


@pytest.mark.parametrize("ours, theirs", PAIRS, ids=["v1", "v2", "default"])
def test_replace_matches_tf(ours, theirs):
    for x in VALID:
        for kwargs in ({"job": "j"}, {"device_index": None}, {"device_type": "gpu"},
                       {"task": 7, "replica": None}):
            assert (ours.from_string(x).replace(**kwargs).to_string()
                    == theirs.from_string(x).replace(**kwargs).to_string())


def test_v1_setters_match_tf():
    mine, ref = gc_device.DeviceSpec.from_string("/job:ps"), tf.compat.v1.DeviceSpec("ps")
    for attr, value in [("job", "w"), ("device_type", "gpu"), ("device_index", "1"),
                        ("replica", 2), ("task", "0"), ("device_index", None), ("job", None)]:
        setattr(mine, attr, value)
        setattr(ref, attr, value)
        assert (mine.to_string(), _fields(mine)) == (ref.to_string(), _fields(ref))


def test_equality_and_hash_match_tf_within_a_class():
    for x, y in itertools.product(VALID[:15], repeat=2):
        for ours, theirs in PAIRS:
            assert (ours.from_string(x) == ours.from_string(y)) == (
                theirs.from_string(x) == theirs.from_string(y)
            )
    assert hash(gc_device.DeviceSpecV2("ps")) == hash(tf.DeviceSpec("ps"))


class _Node:
    def __init__(self, device):
        self.device = device


def test_canonical_name_and_merge_device_match_tf():
    tf_device = pytest.importorskip("tensorflow.python.framework.device")
    for x in VALID:
        assert gc_device.canonical_name(x) == tf_device.canonical_name(x)
    assert gc_device.canonical_name(None) == tf_device.canonical_name(None)
    for x, y in itertools.product(VALID, repeat=2):
        mine, ref = gc_device.merge_device(x), tf_device.merge_device(x)
        assert mine.is_null_merge == ref.is_null_merge, x
        assert mine(_Node(y)).to_string() == ref(_Node(y)).to_string(), (x, y)
        assert mine.shortcut_string_merge(_Node(y)) == ref.shortcut_string_merge(_Node(y))


# --- errors ----------------------------------------------------------------------------

CODE_NAMES = [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
]


@pytest.mark.parametrize("name", CODE_NAMES)
def test_error_codes_match_tf(name):
    assert getattr(gc_errors, name) == getattr(tf.errors, name)


def test_error_classes_match_tf():
    tf_classes = {
        name for name in dir(tf.errors)
        if isinstance(getattr(tf.errors, name), type)
        and issubclass(getattr(tf.errors, name), tf.errors.OpError)
    }
    ours = {
        name for name in dir(gc_errors)
        if isinstance(getattr(gc_errors, name), type)
        and issubclass(getattr(gc_errors, name), gc_errors.OpError)
    }
    assert ours == tf_classes
    for name in tf_classes - {"OpError"}:
        theirs = getattr(tf.errors, name)(None, None, "m")
        mine = getattr(gc_errors, name)(None, None, "m")
        assert mine.error_code == theirs.error_code
        assert str(mine) == str(theirs) == "m"
        assert mine.experimental_payloads == theirs.experimental_payloads
        assert mine.args == theirs.args
        code = theirs.error_code
        assert (gc_errors.exception_type_from_error_code(code).__name__
                == tf.compat.v1.errors.exception_type_from_error_code(code).__name__)
        assert gc_errors.error_code_from_exception_type(type(mine)) == (
            tf.compat.v1.errors.error_code_from_exception_type(type(theirs))
        )


def test_make_specific_exception_matches_tf():
    errors_impl = pytest.importorskip("tensorflow.python.framework.errors_impl")
    from graphcore.framework.errors import _make_specific_exception

    for code in range(1, 17):
        mine = _make_specific_exception(None, None, "msg", code)
        ref = errors_impl._make_specific_exception(None, None, "msg", code)
        assert type(mine).__name__ == type(ref).__name__
        assert mine.error_code == ref.error_code
