"""tf.queue: the queue classes (graphcore.ops.queue_ops)."""

from graphcore.ops.queue_ops import (
    FIFOQueue,
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
)

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase",
           "RandomShuffleQueue"]
