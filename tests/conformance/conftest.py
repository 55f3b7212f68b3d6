"""Fixtures of the TensorFlow reference tier."""

import pytest


@pytest.fixture(scope="module")
def tf_control_flow_v1():
    """TF builds TF1 control flow (Switch/Merge/Enter/Exit, TensorArrayV3) in the test's
    module, as TF 1.x graph mode does, instead of TF 2's functional While/If."""
    control_flow_util = pytest.importorskip("tensorflow.python.ops.control_flow_util")
    saved = control_flow_util.ENABLE_CONTROL_FLOW_V2
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
    try:
        yield
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved


@pytest.fixture
def tf_v1_tensorshape():
    """TF's TensorShape as TF1's (V2 behaviour off): Dimension objects, unknown dims
    printed ``?`` -- ``(?, 2)`` -- as graphcore's shapes print."""
    tf_ref = pytest.importorskip("tensorflow")
    tf_ref.compat.v1.disable_v2_tensorshape()
    try:
        yield
    finally:
        tf_ref.compat.v1.enable_v2_tensorshape()
