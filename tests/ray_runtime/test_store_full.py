"""Object store pressure that Ray cannot absorb: a tensor that Ray can neither put into
its object store nor spill is a ResourceExhaustedError naming the tensor and the
sending task (ray_runtime/actors.py), never a hang or an InternalError.  (A tensor
larger than the store that Ray can spill is test_multinode.py's case.)"""

import numpy as np
import pytest
import ray

from graphcore import errors
from ray_runtime import actors


class _FullPeer:
    """A peer actor handle whose ``deliver`` calls fail as Ray's do when the object
    store and its spill space are full."""

    class _Method:
        def remote(self, *args):
            raise ray.exceptions.ObjectStoreFullError("Failed to put object: store full")

    deliver = _Method()


@pytest.mark.parametrize("final", [False, True])
def test_a_tensor_the_store_cannot_take_is_resource_exhausted(final):
    impl = actors.TaskActorImpl("ps", 0, "store-full")
    box = actors._RemoteRendezvous(2, {0: _FullPeer(), 1: _FullPeer()}, impl, "step",
                                   names={0: "big/read:0", 1: "other:0"})
    box.send(0, np.ones(1 << 20, np.float32))
    with pytest.raises(errors.ResourceExhaustedError) as info:
        box.flush(final=final)
    message = info.value.message
    assert "big/read:0" in message and "/job:ps/replica:0/task:0" in message
    assert "4194304 bytes" in message and "ObjectStoreFullError" in message
