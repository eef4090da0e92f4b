"""The Python side of `backplane bench python`: prints one line per case,
"<case> <value> <unit> <baseline> <baseline value>", medians of REPS runs
of a timed loop after a warm-up. PyTorch's CPU tensors are the baseline in
the same run (0 when torch cannot be imported).

Usage: python -m backplane._bench_python REPS [KERNELS]   (run by the
command with the interpreter that started it, BACKPLANE_PYTHON). With KERNELS (the conformance kernel library), also the enqueue
cost of an empty kernel's launch from Python; `backplane bench python`
measures bp_launch from C as its baseline.
"""
import sys
import time
import timeit

import numpy as np

import backplane

REPS = int(sys.argv[1]) if len(sys.argv) > 1 else 7
KERNELS = sys.argv[2] if len(sys.argv) > 2 else ""
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

    if KERNELS:
        print(f"kernel_launch {launch_ns(200000 if REPS > 2 else 2000):.1f} "
              "ns/launch none 0")


def launch_ns(launches):
    """Median ns of one Function.launch of the empty kernel on an explicit
    stream, drained outside the timed part (as C's baseline)."""
    dev = backplane.device("vcpu:0")
    with backplane.load_module(KERNELS, device=dev) as module:
        launch, stream = module["empty_kernel"].launch, backplane.Stream(dev)
        runs = []
        for _ in range(REPS + 1):  # the first warms up
            start = time.perf_counter_ns()
            for _ in range(launches):
                launch(stream=stream)
            runs.append((time.perf_counter_ns() - start) / launches)
            stream.synchronize()
        runs = sorted(runs[1:])
        return runs[len(runs) // 2]


if __name__ == "__main__":
    main()
