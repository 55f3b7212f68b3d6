"""Reference tier: the TypeSpec family (TensorSpec, SparseTensorSpec, IndexedSlicesSpec,
TensorArraySpec, type_spec_from_value) against TF's — equality, compatibility, the most
specific common type, specs of values. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


def _shape(s):
    return None if s.dims is None else [None if d is None else int(d) for d in s.as_list()]


def _facts(lib):
    TS, SS = lib.TensorSpec, lib.SparseTensorSpec
    with lib.Graph().as_default():
        x = lib.placeholder(lib.float32, [None, 3], name="x")
        sp = lib.SparseTensor([[0, 1]], [2.0], [3, 4])
        specs = {
            "from_tensor": lib.TensorSpec.from_tensor(x),
            "from_tensor_named": lib.TensorSpec.from_tensor(x, name="y"),
            "of_float": lib.type_spec_from_value(1.5),
            "of_list": lib.type_spec_from_value([[1, 2]]),
            "of_array": lib.type_spec_from_value(np.zeros((2,), np.float64)),
            "of_tensor": lib.type_spec_from_value(x),
            "of_sparse": lib.type_spec_from_value(sp),
        }
        facts = {k: (type(v).__name__, _shape(v.shape), v.dtype.name,
                     getattr(v, "name", None)) for k, v in specs.items()}
    facts["eq"] = [TS([2, 3]) == TS([2, 3]), TS([2, 3]) == TS([2, None]),
                   TS([None], name="a") == TS([None]), TS(None) == TS(None),
                   TS([2], lib.int32) == TS([2]), SS([2, 2]) == SS([2, 2]),
                   SS([2], lib.int64) == SS([2])]
    facts["compatible"] = [TS([None, 3]).is_compatible_with(TS([5, 3])),
                           TS([None, 3]).is_compatible_with(TS([5, 4])),
                           TS(None).is_compatible_with(TS([1, 2, 3])),
                           TS([2], lib.int32).is_compatible_with(TS([2])),
                           TS([2], name="a").is_compatible_with(TS([2], name="b")),
                           TS([2]).is_compatible_with(np.zeros(2, np.float32)),
                           SS([None, 4]).is_compatible_with(SS([3, 4])),
                           TS([2]).is_compatible_with(SS([2]))]
    common = TS([2, 3], name="a").most_specific_compatible_type(TS([2, 4], name="a"))
    facts["common"] = (_shape(common.shape), common.name)
    facts["shapes"] = [_shape(TS([None, 3]).shape), _shape(TS(None).shape)]
    facts["specs_differ"] = len({TS([2]), TS([2]), TS([3])})
    return facts


def test_type_specs_behave_as_tf():
    assert _facts(tf) == _facts(tf1)
