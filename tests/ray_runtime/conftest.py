"""One local Ray cluster for the whole test session (num_cpus=2, small object store)."""

import pytest

ray = pytest.importorskip("ray")


@pytest.fixture(scope="session")
def ray_cluster():
    if not ray.is_initialized():
        ray.init(num_cpus=2, object_store_memory=128 * 1024 * 1024, include_dashboard=False,
                 log_to_driver=False, namespace="graphcore")
    yield ray
    ray.shutdown()


@pytest.fixture
def cluster_name(request):
    """A cluster name of this test's own, so tests never share task actors."""
    return "t-" + request.node.name.replace("[", "-").replace("]", "")[:60]


@pytest.fixture(autouse=True)
def _kill_test_actors(ray_cluster, cluster_name):
    yield
    import ray_runtime

    ray_runtime.shutdown_cluster(cluster_name, jobs={"ps": 4, "worker": 4, "chief": 1})
