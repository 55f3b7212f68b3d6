"""``tf.debugging``: assertions and numeric checks, gathered from the op modules.

Not here: enable/disable_check_numerics, the traceback-filtering switches and
get/set_log_device_placement (eager-time instrumentation), and ``experimental``."""

# ruff: noqa: F401, I001
from graphcore.ops.check_ops import (
    assert_equal, assert_greater, assert_greater_equal, assert_integer, assert_less,
    assert_less_equal, assert_near, assert_negative, assert_non_negative,
    assert_non_positive, assert_none_equal, assert_positive, assert_proper_iterable,
    assert_rank, assert_rank_at_least, assert_rank_in, assert_same_float_dtype,
    assert_scalar, assert_type, check_numerics, is_non_decreasing, is_numeric_tensor,
    is_strictly_increasing,
)
from graphcore.ops.check_shapes import assert_all_finite, assert_shapes
from graphcore.ops.control_flow_ops import Assert
from graphcore.ops.elementwise_ops import is_finite, is_inf, is_nan
