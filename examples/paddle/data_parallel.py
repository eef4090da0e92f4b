"""paddle.DataParallel over Backplane devices, one process per device:

    PADDLE_XCCL_BACKEND=backplane CUSTOM_DEVICE_ROOT=<build>/lib/backplane/paddle \
        python -m paddle.distributed.launch --devices 0,1 data_parallel.py

Each rank trains the MNIST-style MLP on its half of every batch; gradients
are averaged by the bridge's xccl slots (bp_comm all-reduce). Rank 0 prints
the losses of the full batch, which equal a one-device run's. With --single
it is that one-device run.
"""
import argparse
import json

import numpy as np
import paddle
import paddle.distributed as dist

from mnist_mlp import MNIST, digits


def losses(steps, single, batch_size=64):
    (x, y), _ = digits()
    paddle.seed(7)
    if single:
        paddle.set_device("backplane:0")
        model, rank, world = MNIST(), 0, 1
    else:
        dist.init_parallel_env()
        rank, world = dist.get_rank(), dist.get_world_size()
        model = paddle.DataParallel(MNIST())
    optimizer = paddle.optimizer.SGD(learning_rate=0.1,
                                     parameters=model.parameters())
    shard = batch_size // world
    result = []
    for step in range(steps):
        start = step * batch_size + rank * shard
        xb = paddle.to_tensor(x[start:start + shard])
        yb = paddle.to_tensor(y[start:start + shard])
        loss = paddle.nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
        if not single:
            dist.all_reduce(loss)
        result.append(float(loss) / world)
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--single", action="store_true")
    args = parser.parse_args()
    result = losses(args.steps, args.single)
    if args.single or dist.get_rank() == 0:
        print("LOSSES " + json.dumps(result), flush=True)
