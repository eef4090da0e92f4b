"""`backplane bench torch`'s measurements (tools/backplane/bench/
bench_torch.c runs this file with the PyTorch bridge on PYTHONPATH; it
never imports the backplane package). One line per case:
    <case> <value> <unit> <baseline> <baseline value>
- cnn_step: the training step of bench train's LeNet-style CNN
  (_bench_train_ddp.make_model, batch 64, SGD), samples/s on
  privateuseone:0 beside PyTorch's CPU;
- small_op: a 1-element add followed by a synchronize, ns, beside the same
  add on PyTorch's CPU (which needs no synchronize);
- ddp_step: the same step under DistributedDataParallel with 2 processes,
  samples/s (both ranks), on the backplane backend beside gloo on the CPU
  (not with --quick: four more Python processes are too slow for a test).
The two sides of a case run alternately, rep by rep (DDP: run by run), so
both see the same machine load, and each side reports its best rep: on a
shared machine the best is the rep least disturbed by other work.
Usage: python _bench_torch.py REPS [--quick]"""
import os
import socket
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

# A sibling file, found through the script's directory (sys.path[0]).
from _bench_train_ddp import make_model

BATCH = 64


def stepper(device, wrap=None):
    """The training step of one model on `device`, ready to time."""
    torch.manual_seed(0)
    model = make_model("cnn").to(device)
    if wrap is not None:
        model = wrap(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images = torch.randn(BATCH, 64).to(device)
    labels = torch.randint(0, 10, (BATCH,)).to(device)

    def step():
        opt.zero_grad()
        F.cross_entropy(model(images), labels).backward()
        opt.step()
    return step


def timed(run, count, sync):
    """Seconds per call of run, count calls, queued work included."""
    start = time.perf_counter()
    for _ in range(count):
        run()
    sync()
    return (time.perf_counter() - start) / count


def alternate(sides, count, reps):
    """[best seconds per call] for each (run, sync) in sides, their reps
    interleaved."""
    for run, sync in sides:
        for _ in range(3):
            run()
        sync()
    best = [float("inf")] * len(sides)
    for _ in range(reps):
        for i, (run, sync) in enumerate(sides):
            best[i] = min(best[i], timed(run, count, sync))
    return best


def step_rate(device, steps, reps, wrap=None, sync=lambda: None):
    """Samples/s of the training step on one device (a DDP rank)."""
    (seconds,) = alternate([(stepper(device, wrap), sync)], steps, reps)
    return BATCH / seconds


def add_one(device, sync):
    x = torch.ones(1, device=device)

    def run():
        x + 1
        sync()
    return run


def ddp_worker(backend, steps, reps):
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    rank = int(os.environ["RANK"])
    device, sync = "cpu", lambda: None
    if backend == "backplane":
        import torch_backplane
        torch_backplane.set_device(rank)
        device = f"privateuseone:{rank}"
        sync = lambda: torch_backplane.synchronize(rank)  # noqa: E731
    dist.init_process_group(backend)
    rate = step_rate(device, steps, reps, DistributedDataParallel, sync)
    if rank == 0:
        print(rate * int(os.environ["WORLD_SIZE"]))
    dist.destroy_process_group()


def ddp_rate(backend, steps, reps):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2",
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                   OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen(
            [sys.executable, __file__, "--ddp-worker", backend, str(steps),
             str(reps)], env=env, stdout=subprocess.PIPE, text=True))
    outputs = [p.communicate()[0] for p in procs]
    if any(p.returncode != 0 for p in procs):
        raise RuntimeError(f"DDP on {backend} failed")
    return float(outputs[0].strip().splitlines()[-1])


def main():
    if sys.argv[1] == "--ddp-worker":
        ddp_worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    import torch_backplane
    reps = int(sys.argv[1])
    quick = "--quick" in sys.argv
    steps = 5 if quick else 30
    sync = lambda: torch_backplane.synchronize(0)  # noqa: E731
    ours, cpu = alternate([(stepper("privateuseone:0"), sync),
                           (stepper("cpu"), lambda: None)], steps, reps)
    print(f"cnn_step {BATCH / ours:.1f} samples/s pytorch_cpu "
          f"{BATCH / cpu:.1f}", flush=True)
    count = 200 if quick else 5000
    ours, cpu = alternate([(add_one("privateuseone:0", sync), sync),
                           (add_one("cpu", lambda: None), lambda: None)],
                          count, reps)
    print(f"small_op {ours * 1e9:.0f} ns pytorch_cpu {cpu * 1e9:.0f}",
          flush=True)
    if quick:
        return
    ours = gloo = 0.0
    for _ in range(2):
        ours = max(ours, ddp_rate("backplane", steps, reps))
        gloo = max(gloo, ddp_rate("gloo", steps, reps))
    print(f"ddp_step {ours:.1f} samples/s gloo_cpu {gloo:.1f}", flush=True)


if __name__ == "__main__":
    main()
