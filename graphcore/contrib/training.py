"""``tf.contrib.training``: the load-balancing ps strategy of ``replica_device_setter``."""

# ruff: noqa: F401
from graphcore.train.load_balancing import GreedyLoadBalancingStrategy, byte_size_load_fn
