"""The load report's arithmetic and table (ray_runtime/load.py); the counters themselves
are checked on a live cluster by test_embedding.py."""

from ray_runtime.load import LoadReport, TaskLoad


def test_since_subtracts_traffic_and_keeps_bytes_held():
    before = LoadReport([TaskLoad("/job:ps/replica:0/task:0", 100, 2, 1000, 500, 10)])
    after = LoadReport([TaskLoad("/job:ps/replica:0/task:0", 300, 3, 5000, 2500, 30),
                        TaskLoad("/job:ps/replica:0/task:1", 64, 1, 80, 40, 2)])
    delta = after.since(before)
    assert delta == [TaskLoad("/job:ps/replica:0/task:0", 300, 3, 4000, 2000, 20),
                     TaskLoad("/job:ps/replica:0/task:1", 64, 1, 80, 40, 2)]
    assert (delta[0].bytes_in_per_step, delta[0].bytes_out_per_step) == (200.0, 100.0)
    assert TaskLoad("t", 0, 0, 5, 5, 0).bytes_in_per_step == 0.0


def test_report_prints_one_row_per_task():
    report = LoadReport([TaskLoad("/job:ps/replica:0/task:0", 3 * 2**20, 4, 8192, 4096, 4)])
    lines = str(report).splitlines()
    assert lines[0].split() == ["task", "held", "vars", "steps", "in/step", "out/step"]
    assert lines[1].split() == ["/job:ps/replica:0/task:0", "3.0", "MB", "4", "4", "2.0",
                                "KB", "1.0", "KB"]
