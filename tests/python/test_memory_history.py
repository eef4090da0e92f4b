"""backplane.memory: the allocator history records each Tensor's device
allocation and free with its size, stream, time and Python line; the
summary, the picture and `backplane memory SNAPSHOT` read the dump back."""
import json
import subprocess
import sys

import pytest

import backplane
import backplane.memory as memory


@pytest.fixture
def dev():
    memory.record_history(0)
    yield backplane.device("vcpu:0")
    memory.record_history(0)


def blocks(history):
    return [e for e in history["events"] if e["action"] in ("alloc", "free")]


def test_records_a_tensor_alloc_and_free_with_its_python_lines(dev):
    memory.record_history(64)
    assert memory.is_recording()
    t = backplane.empty((250,), "float32", dev)  # 1000 bytes
    alloc_line = sys._getframe().f_lineno - 1
    address = t.data_ptr()
    del t
    free_line = sys._getframe().f_lineno - 1
    events = blocks(memory.snapshot())
    assert [(e["action"], e["size"]) for e in events] == [("alloc", 1000),
                                                          ("free", 1000)]
    assert all(int(e["address"], 16) == address for e in events)
    assert all(e["device"] == "vcpu:0" for e in events)
    here = "test_memory_history.py:{} " \
        "test_records_a_tensor_alloc_and_free_with_its_python_lines"
    assert events[0]["caller"] == here.format(alloc_line)[:63]
    assert events[1]["caller"] == here.format(free_line)[:63]
    # On the device's default stream, freed in its order.
    assert events[0]["stream"] is not None
    assert events[1]["stream"] == events[0]["stream"]
    assert events[0]["time_ns"] <= events[1]["time_ns"]


def test_summary_and_the_command_mark_the_peak_per_stream(dev, tmp_path):
    s1, s2 = backplane.Stream(dev), backplane.Stream(dev)
    memory.record_history(64)
    with s1:
        a = backplane.empty((250,), "float32", dev)      # 1000 bytes
    with s2:
        b = backplane.empty((750,), "float32", dev)      # 3000 bytes
    del a
    with s1:
        c = backplane.empty((125,), "float32", dev)      # 500 bytes
    path = tmp_path / "history.json"
    memory.dump_snapshot(str(path))
    del b, c
    summary = memory.summary(str(path))
    device = summary["devices"][0]
    assert device["device"] == "vcpu:0"
    assert (device["allocs"], device["frees"]) == (3, 1)
    assert device["peak_bytes"] == 4000
    assert device["live_bytes"] == 3500
    assert sorted((s["peak_bytes"], s["live_bytes"])
                  for s in device["streams"]) == [(1000, 500), (3000, 3000)]
    assert memory.to_svg(str(path)).startswith("<svg")

    cli = [sys.executable, "-m", "backplane", "memory", str(path)]
    out = subprocess.run(cli + ["--json"], capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out)["devices"][0]["peak_bytes"] == 4000
    svg = tmp_path / "history.svg"
    subprocess.run(cli + ["--svg", str(svg)], capture_output=True, check=True)
    assert svg.read_text().startswith("<svg")


def test_ring_keeps_the_last_events(dev):
    memory.record_history(2)
    kept = [backplane.empty((n,), "uint8", dev) for n in (100, 200, 300)]
    history = memory.snapshot()
    assert history["max_events"] == 2 and history["dropped"] >= 1
    assert [e["size"] for e in blocks(history)][-2:] == [200, 300]
    del kept


def test_pytorch_spellings_record_and_dump(dev, tmp_path):
    memory._record_memory_history(max_entries=16)
    t = backplane.empty((4,), "float32", dev)
    path = tmp_path / "snapshot.json"
    memory._dump_snapshot(str(path))
    assert [e["size"] for e in blocks(json.loads(path.read_text()))] == [16]
    memory._record_memory_history(enabled=None)
    assert not memory.is_recording()
    del t


def test_bad_input_raises_value_errors():
    with pytest.raises(ValueError, match="max_events"):
        memory.record_history(-1)
    with pytest.raises(ValueError, match="not a memory history snapshot"):
        memory.summary({"chunks": []})
