"""The allocator history: what the program allocated and freed on its
devices, and when (like torch.cuda.memory._record_memory_history and
_dump_snapshot).

    import backplane.memory
    backplane.memory.record_history(max_events=100000)
    ...                                   # allocate, compute, free
    backplane.memory.dump_snapshot("history.json")
    backplane.memory.summary()["devices"][0]["peak_bytes"]

While recording, every device allocation and free of the runtime (Tensors,
op scratch, C code in the process), every chunk the allocators take from a
plugin or give back, and every allocation that fails for memory is kept in
a ring of the last max_events: action, device, address, size, stream, time,
thread and caller (for a Tensor, the Python file:line that made or dropped
it). `backplane memory history.json` prints the summary and
`--svg FILE` draws it; BACKPLANE_MEMORY_HISTORY=FILE records a whole run.
The format is in docs/allocator.md ("History").
"""
import json as _json
import os as _os
import sys as _sys

from . import _backplane

__all__ = ["record_history", "is_recording", "snapshot", "dump_snapshot",
           "summary", "to_svg"]

_PACKAGE = _os.path.dirname(_os.path.abspath(__file__)) + _os.sep


def record_history(max_events=65536):
    """Records the next allocator events in a ring of the last max_events
    (the events so far are discarded); 0 or None stops recording and
    discards them."""
    _backplane._memory_history_record(int(max_events or 0))


def is_recording():
    """Whether the runtime records its allocator history."""
    return _backplane._memory_history_recording()


def snapshot():
    """The recorded history as a dict (oldest event first)."""
    return _json.loads(_backplane._memory_history_snapshot())


def dump_snapshot(path):
    """Writes the recorded history to path as JSON."""
    text = _backplane._memory_history_snapshot()
    with open(path, "w") as f:
        f.write(text + "\n")


def summary(history=None):
    """Per device: events by action, the peak of live bytes (bytes, time,
    event index), what is live at the end, and per stream its peak and live
    bytes. history: a snapshot (dict, JSON text or a path); None: the
    recorded one."""
    return _json.loads(_backplane._memory_history_summary(_text(history)))


def to_svg(history=None):
    """The history (as summary() takes it) drawn as SVG text: per device
    live bytes over time, per stream, reserved bytes and the peak."""
    return _backplane._memory_snapshot_svg(_text(history))


def _text(history):
    if history is None:
        return _backplane._memory_history_snapshot()
    if isinstance(history, dict):
        return _json.dumps(history)
    if isinstance(history, str) and history.lstrip().startswith("{"):
        return history
    with open(history) as f:
        return f.read()


def _record_memory_history(enabled="all", max_entries=65536, **_ignored):
    """PyTorch's spelling: enabled None stops, anything else records."""
    record_history(0 if enabled is None else max_entries)


def _dump_snapshot(filename="dump_snapshot.json"):
    """PyTorch's spelling of dump_snapshot."""
    dump_snapshot(filename)


def _caller_label():
    """'file.py:12 function' of the innermost frame outside this package
    (what the extension names as an event's caller), at most 63 bytes."""
    frame = _sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    if frame is None:
        return "python"
    code = frame.f_code
    label = (f"{_os.path.basename(code.co_filename)}:{frame.f_lineno} "
             f"{code.co_name}")
    return label.encode()[:63].decode(errors="ignore")
