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
