"""PyTorch DistributedDataParallel baseline of `backplane bench train`.

The same model (`mlp`: 64-256-256-10 with ReLU; `cnn`: the LeNet-style
conv 3x3 16, max-pool 2, conv 3x3 32, max-pool 2, linear 64, linear 10 on
the 1x8x8 image), loss (cross-entropy), optimizer (AdamW, lr 2e-3, weight
decay 1e-2), data (sklearn's digits.csv.gz, pixels / 16, the training
split's size) and batch per rank as `backplane train --model MODEL`, on the
gloo backend, one thread per process. Prints one JSON object: samples/s
over the timed epochs (after one warm-up epoch).

usage: python _bench_train_ddp.py DIGITS_CSV_GZ RANKS BATCH_PER_RANK EPOCHS [MODEL]
(run by tools/backplane/bench/bench_train.c, with BACKPLANE_PYTHON, by path:
the baseline processes never import the backplane package)
"""
import gzip
import json
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

TRAIN = 1797 - 360


def load(path):
    with gzip.open(path, "rt") as f:
        data = np.loadtxt(f, delimiter=",", dtype=np.float32)
    x = torch.from_numpy(data[:TRAIN, :64] / 16.0)
    y = torch.from_numpy(data[:TRAIN, 64].astype(np.int64))
    return x, y


def make_model(name):
    nn = torch.nn
    if name == "cnn":
        return nn.Sequential(
            nn.Unflatten(1, (1, 8, 8)),
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))
    return nn.Sequential(
        nn.Linear(64, 256), nn.ReLU(),
        nn.Linear(256, 256), nn.ReLU(),
        nn.Linear(256, 10))


def worker(rank, ranks, path, batch, epochs, port, result, model_name):
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=ranks)
    torch.manual_seed(0)
    model = make_model(model_name)
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.AdamW(ddp.parameters(), lr=2e-3, weight_decay=1e-2)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = load(path)
    steps = TRAIN // (batch * ranks)
    g = torch.Generator().manual_seed(0)

    def epoch():
        order = torch.randperm(TRAIN, generator=g)
        for j in range(steps):
            idx = order[(j * ranks + rank) * batch:(j * ranks + rank + 1) * batch]
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(ddp(x[idx]), y[idx])
            loss.backward()
            opt.step()

    epoch()  # warm-up
    dist.barrier()
    start = time.perf_counter()
    for _ in range(epochs):
        epoch()
    dist.barrier()
    seconds = time.perf_counter() - start
    if rank == 0:
        result.put(epochs * steps * batch * ranks / seconds)
    dist.destroy_process_group()


def main():
    path, ranks, batch, epochs = sys.argv[1], int(sys.argv[2]), int(
        sys.argv[3]), int(sys.argv[4])
    model_name = sys.argv[5] if len(sys.argv) > 5 else "mlp"
    port = 29500 + os.getpid() % 1000
    # fork: the ranks share this process's torch import (a spawned rank
    # would import torch again, seconds each); nothing here started threads.
    ctx = mp.get_context("fork")
    result = ctx.Queue()
    procs = [ctx.Process(target=worker,
                         args=(r, ranks, path, batch, epochs, port, result,
                               model_name))
             for r in range(ranks)]
    for p in procs:
        p.start()
    rate = result.get(timeout=600)
    for p in procs:
        p.join()
    print(json.dumps({"samples_per_second": rate, "ranks": ranks,
                      "batch_per_rank": batch, "epochs": epochs,
                      "model": model_name}))


if __name__ == "__main__":
    main()
