import json

import numpy as np

import backplane


def test_trace_writes_the_block_as_chrome_json(dev0, tmp_path):
    path = tmp_path / "out.json"
    with backplane.trace(str(path)) as profile:
        # 4 MiB: above one staging chunk, so the copies run on the device
        # stream (a small copy to an idle stream runs on the calling thread).
        t = backplane.from_numpy(np.ones(1 << 20, np.float32), device=dev0)
        backplane.to_numpy(t)
    assert profile.event_count > 0
    events = json.loads(path.read_text())["traceEvents"]
    names = {e["name"] for e in events}
    # The staged host-to-device copy runs on the device's stream; reading back
    # into pageable NumPy memory waits for the stream and copies on the host.
    assert "h2d" in names


def test_ranges_nest_in_the_trace(dev0, tmp_path):
    path = tmp_path / "ranges.json"
    with backplane.trace(str(path)):
        with backplane.range("outer"):
            assert backplane.range_push("inner") == 1
            backplane.to_numpy(
                backplane.from_numpy(np.ones(16, np.float32), device=dev0))
            assert backplane.range_pop() == 1
    assert backplane.range_pop() == -1  # none open
    events = json.loads(path.read_text())["traceEvents"]
    slices = {e["name"]: e for e in events
              if e.get("ph") == "X" and e.get("cat") == "range"}
    outer, inner = slices["outer"], slices["inner"]
    assert outer["tid"] == inner["tid"] and outer["pid"] == inner["pid"]
    assert outer["ts"] <= inner["ts"]
    assert inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"]
