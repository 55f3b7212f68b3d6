"""Public ``tf.errors`` namespace: error codes and ``OpError`` subclasses."""

from graphcore.framework.errors import *  # noqa: F403
from graphcore.framework.errors import __all__  # noqa: F401
