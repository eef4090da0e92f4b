import json

import numpy as np

import backplane


def test_trace_writes_the_block_as_chrome_json(dev0, tmp_path):
    path = tmp_path / "out.json"
    with backplane.trace(str(path)) as profile:
        t = backplane.from_numpy(np.ones(1024, np.float32), device=dev0)
        backplane.to_numpy(t)
    assert profile.event_count > 0
    events = json.loads(path.read_text())["traceEvents"]
    names = {e["name"] for e in events}
    assert {"h2d", "d2h"} <= names
