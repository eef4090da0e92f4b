"""The Python side of `backplane bench python`: prints one line per case,
"<case> <value> <unit> <baseline> <baseline value>", medians of REPS runs
of a timed loop after a warm-up. PyTorch's CPU tensors are the baseline in
the same run (0 when torch cannot be imported).

Usage: bench_python.py REPS   (PYTHONPATH must reach the backplane package)
"""
import sys
import timeit

import numpy as np

import backplane

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 7
try:
    import torch
except ImportError:
    torch = None


def per_call_ns(stmt, number):
    stmt()  # warm-up
    timer = timeit.Timer(stmt)
    runs = sorted(timer.timeit(number) / number for _ in range(REPS))
    return runs[len(runs) // 2] * 1e9


def main():
    calls = 200000 if REPS > 2 else 2000
    trips = 50000 if REPS > 2 else 500
    noop = backplane._backplane._noop
    ours = per_call_ns(noop, calls)
    theirs = per_call_ns(torch.is_grad_enabled, calls) if torch else 0
    print(f"no-op_call {ours:.1f} ns/call torch.is_grad_enabled {theirs:.1f}")

    stream = backplane.current_stream(backplane.device("vcpu:0"))
    ours = per_call_ns(stream.query, calls)
    print(f"Stream.query_idle {ours:.1f} ns/call none 0")

    a = np.ones(256, np.float32)  # 1 KiB

    def via_backplane():
        return np.from_dlpack(backplane.from_dlpack(a))

    def via_torch():
        return np.from_dlpack(torch.from_dlpack(a))

    assert via_backplane().ctypes.data == a.ctypes.data  # no copy
    ours = per_call_ns(via_backplane, trips)
    theirs = per_call_ns(via_torch, trips) if torch else 0
    print(f"dlpack_round_trip_numpy {ours:.1f} ns/trip "
          f"numpy->torch->numpy {theirs:.1f}")


if __name__ == "__main__":
    main()
