#!/usr/bin/python3
"""PyTorch's side of `backplane bench ops`: times the same op cases on the
CPU with the same thread count, in the same run. Run by the bench as
    /usr/bin/python3 scripts/bench_ops_torch.py THREADS REPS < cases
where each line of `cases` is "NAME OP DIM,DIM,... [DIM,DIM,...]" (the
input shapes). Prints one line per case: "NAME MEDIAN_SECONDS". Exits 3 if
torch cannot be imported (the bench then reports no PyTorch baseline).
"""
import os
import statistics
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    sys.exit(3)


def make(op, shapes):
    """A closure running `op` once on fresh random inputs, writing into a
    preallocated output where PyTorch has an out= form (conv2d and
    layer_norm have none: they allocate theirs, from PyTorch's allocator).
    Each is the reference library's case: same op, shapes, dim and
    attributes (conv2d: stride 1, padding 1, no bias; layer_norm: over the
    last dim, no weight or bias, eps 1e-5; sum: over dim 0)."""
    t = [torch.randn(s) for s in shapes]
    if op == "mm":
        out = torch.empty(shapes[0][0], shapes[1][1])
        return lambda: torch.mm(t[0], t[1], out=out)
    if op in ("add", "mul"):
        out = torch.empty(shapes[0])
        fn = torch.add if op == "add" else torch.mul
        return lambda: fn(t[0], t[1], out=out)
    if op == "relu":
        out = torch.empty(shapes[0])
        return lambda: torch.clamp(t[0], min=0, out=out)
    if op == "copy":
        out = torch.empty(shapes[0])
        return lambda: out.copy_(t[0])
    if op == "softmax":
        # torch.softmax has no out= form; its kernel's (aten::_softmax.out)
        # writes into `out` like the reference library's call does.
        out = torch.empty(shapes[0])
        return lambda: torch._softmax(t[0], -1, False, out=out)
    if op == "sum":
        out = torch.empty(shapes[0][1:])
        return lambda: torch.sum(t[0], 0, out=out)
    if op == "conv2d":
        return lambda: F.conv2d(t[0], t[1], padding=1)
    if op == "layer_norm":
        return lambda: F.layer_norm(t[0], shapes[0][-1:])
    raise SystemExit(f"unknown op {op}")


def describe_isa():
    """PyTorch's instruction sets, for the bench's log (stderr): ATen's
    kernels as PyTorch reports them, oneDNN's and OpenBLAS's caps."""
    aten = next((line.split(":", 1)[1].strip()
                 for line in torch.__config__.show().splitlines()
                 if "CPU capability usage" in line), "unknown")
    print(f"bench ops: PyTorch {torch.__version__}: ATen {aten}, oneDNN "
          f"{os.environ.get('DNNL_MAX_CPU_ISA', 'native')}, OpenBLAS core "
          f"{os.environ.get('OPENBLAS_CORETYPE', 'native')}", file=sys.stderr)


def main():
    threads, reps = int(sys.argv[1]), int(sys.argv[2])
    torch.set_num_threads(threads)
    describe_isa()
    for line in sys.stdin:
        fields = line.split()
        if not fields:
            continue
        name, op = fields[0], fields[1]
        shapes = [[int(d) for d in f.split(",")] for f in fields[2:]]
        run = make(op, shapes)
        run()  # warm-up
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        print(f"{name} {statistics.median(times):.9f}", flush=True)


if __name__ == "__main__":
    with torch.no_grad():
        main()
