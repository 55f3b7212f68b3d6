"""A PNG of a Chrome trace (what ``python -m bench --trace PATH`` writes): one row per
thread, grouped by process (task), each complete event a bar coloured by its kind, the
longest ones labelled.  Needs Pillow.

    python -m bench.trace_picture TRACE.json OUT.png [--width 1600] [--min-us 0]
"""

from __future__ import annotations

import argparse
import json
from typing import Any

# Span kinds of ray_runtime.tracing, and kernels ("Op": anything else).
COLORS = {"RayCall": (230, 159, 0), "RaySubmit": (213, 94, 0), "RayWait": (204, 204, 204),
          "Queue": (204, 121, 167), "Handoff": (240, 228, 66), "Serialize": (0, 158, 115),
          "Deserialize": (86, 180, 233), "ClientStep": (230, 230, 230),
          "LocalRun": (190, 190, 190)}
KERNEL = (0, 114, 178)


def render(trace: dict[str, Any], out: str, width: int = 1600, min_us: float = 0.0) -> None:
    from PIL import Image, ImageDraw

    events = trace["traceEvents"]
    procs = {e["pid"]: e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e["ph"] == "M" and e["name"] == "thread_name"}
    spans = [e for e in events if e["ph"] == "X" and e.get("dur", 0) >= min_us]
    if not spans:
        raise ValueError("the trace holds no complete events")
    t0 = min(e["ts"] for e in spans)
    t1 = max(e["ts"] + e["dur"] for e in spans)
    rows = sorted({(e["pid"], e["tid"]) for e in spans})
    label_w, row_h, top = 330, 18, 30
    height = top + row_h * (len(rows) + len({p for p, _ in rows})) + 30
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    scale = (width - label_w - 10) / max(t1 - t0, 1.0)
    draw.text((label_w, 8), f"one step: {(t1 - t0) / 1000:.2f} ms; ticks every ms", fill="black")
    for ms in range(int((t1 - t0) // 1000) + 1):
        x = label_w + ms * 1000 * scale
        draw.line([(x, top - 4), (x, height - 20)], fill=(235, 235, 235))
    y = top
    row_y: dict[tuple[int, int], int] = {}
    last_pid = None
    for pid, tid in rows:
        if pid != last_pid:
            draw.text((4, y + 3), procs.get(pid, str(pid)), fill="black")
            y += row_h
            last_pid = pid
        draw.text((14, y + 3), threads.get((pid, tid), str(tid))[:48], fill=(80, 80, 80))
        row_y[(pid, tid)] = y
        y += row_h
    for e in sorted(spans, key=lambda e: -e["dur"]):  # short ones drawn on top
        x0 = label_w + (e["ts"] - t0) * scale
        x1 = max(x0 + 1, x0 + e["dur"] * scale)
        ry = row_y[(e["pid"], e["tid"])]
        color = COLORS.get(e["name"], KERNEL)
        draw.rectangle([x0, ry + 2, x1, ry + row_h - 3], fill=color, outline=(60, 60, 60))
        text = e["args"].get("name", e["name"]) if e["name"] in COLORS else e["name"]
        if x1 - x0 > 7 * len(text[:40]):
            draw.text((x0 + 2, ry + 3), text[:40], fill="black")
    x = label_w
    for kind, color in [*COLORS.items(), ("kernel", KERNEL)]:
        draw.rectangle([x, height - 16, x + 10, height - 6], fill=color)
        draw.text((x + 13, height - 18), kind, fill="black")
        x += 20 + 7 * len(kind)
    img.save(out)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.trace_picture")
    p.add_argument("trace")
    p.add_argument("out")
    p.add_argument("--width", type=int, default=1600)
    p.add_argument("--min-us", type=float, default=0.0, help="leave out shorter events")
    args = p.parse_args(argv)
    with open(args.trace) as f:
        render(json.load(f), args.out, args.width, args.min_us)


if __name__ == "__main__":
    main()
