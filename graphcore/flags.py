"""``tf.flags`` (TF1): absl.flags with TF's old keyword names and implicit parsing."""

# ruff: noqa: F401, F403
from graphcore.platform.flags import *
from graphcore.platform.flags import (
    FLAGS,
    DEFINE_bool,
    DEFINE_boolean,
    DEFINE_float,
    DEFINE_integer,
    DEFINE_string,
)
