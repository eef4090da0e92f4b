"""Data-parallel training of the digits MLP from Python, through Backplane's
standard ops and all-reduce over two vcpu devices: the model of `backplane
train` (64-256-256-10, ReLU, cross-entropy, AdamW lr 2e-3, weight decay
1e-2, global batch 64, 20 epochs, 360 test samples held out).

Every step, each rank runs forward and backward on its half of the batch on
its own device; the gradients are averaged with one all-reduce per
parameter; AdamW updates each rank's identical copy. Prints the test
accuracy. Run: PYTHONPATH=build/python /usr/bin/python3 examples/python/train_digits.py
"""
import argparse
import gzip
import math
import sys

import numpy as np

import backplane
from backplane import ops

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
SIZES = [64, 256, 256, 10]
TEST = 360


def load(path, seed):
    with gzip.open(path, "rt") as f:
        data = np.loadtxt(f, delimiter=",", dtype=np.int64)
    x = (data[:, :64] / 16.0).astype(np.float32)
    y = data[:, 64].astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    test, train = order[:TEST], order[TEST:]
    return x[train], y[train], x[test], y[test]


def init_params(seed):
    """PyTorch's nn.Linear initialization: uniform(+-1/sqrt(fan_in))."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(SIZES, SIZES[1:]):
        bound = 1.0 / math.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)))
        params.append(rng.uniform(-bound, bound, fan_out))
    return [p.astype(np.float32) for p in params]


class Rank:
    """One rank's parameters, optimizer state and activations on a device."""

    def __init__(self, device, comm, params, batch):
        self.device, self.comm = device, comm
        self.params = [backplane.from_numpy(p, device=device) for p in params]
        self.grads = [backplane.zeros(p.shape, "float32", device)
                      for p in params]
        self.exp_avg = [backplane.zeros(p.shape, "float32", device)
                        for p in params]
        self.exp_avg_sq = [backplane.zeros(p.shape, "float32", device)
                           for p in params]
        self.acts = [backplane.empty((batch, n), "float32", device)
                     for n in SIZES[1:]]
        self.relus = [backplane.empty((batch, n), "float32", device)
                      for n in SIZES[1:-1]]
        self.grad_acts = [backplane.empty((batch, n), "float32", device)
                          for n in SIZES[1:]]
        self.loss = backplane.empty((), "float32", device)
        self.one = backplane.from_numpy(np.ones((), np.float32), device)

    def forward(self, x):
        h = x
        for layer in range(3):
            w, b = self.params[2 * layer], self.params[2 * layer + 1]
            ops.linear(self.acts[layer], h, w, b)
            if layer < 2:
                ops.relu(self.relus[layer], self.acts[layer])
                h = self.relus[layer]
        return self.acts[2]

    def step(self, x, y):
        logits = self.forward(x)
        ops.cross_entropy_loss(self.loss, logits, y, None, "mean", -100, 0.0)
        ops.cross_entropy_loss_backward(self.grad_acts[2], self.one, logits,
                                        y, None, "mean", -100, 0.0)
        for layer in (2, 1, 0):
            inp = x if layer == 0 else self.relus[layer - 1]
            grad_in = None if layer == 0 else self.grad_acts[layer - 1]
            ops.linear_backward(grad_in, self.grads[2 * layer],
                                self.grads[2 * layer + 1],
                                self.grad_acts[layer], inp,
                                self.params[2 * layer])
            if layer > 0:  # through the ReLU below
                ops.threshold_backward(grad_in, grad_in, self.acts[layer - 1],
                                       0.0)

    def adamw(self, step, lr, weight_decay):
        for p, g, m, v in zip(self.params, self.grads, self.exp_avg,
                              self.exp_avg_sq):
            ops.adamw(p, g, m, v, None, lr, 0.9, 0.999, 1e-8, weight_decay,
                      step, False)




def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=DIGITS)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--weight-decay", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    devices = [d for d in backplane.devices() if d.type == "vcpu"][:2]
    if len(devices) < 2:
        sys.exit("needs two devices (BACKPLANE_VCPU_DEVICES=2)")
    per_rank = args.batch // len(devices)
    train_x, train_y, test_x, test_y = load(args.data, args.seed)
    comms = backplane.comm.init_all(devices)
    params = init_params(args.seed)
    ranks = [Rank(d, c, params, per_rank) for d, c in zip(devices, comms)]

    order_rng = np.random.default_rng(args.seed + 1)
    steps = len(train_y) // args.batch
    step = 0
    for epoch in range(args.epochs):
        order = order_rng.permutation(len(train_y))
        losses = []
        for s in range(steps):
            step += 1
            batch = order[s * args.batch:(s + 1) * args.batch]
            for r, rank in enumerate(ranks):
                shard = batch[r * per_rank:(r + 1) * per_rank]
                x = backplane.from_numpy(train_x[shard], rank.device)
                y = backplane.from_numpy(train_y[shard], rank.device)
                rank.step(x, y)
            with backplane.comm.group():  # one thread drives both ranks
                for rank in ranks:
                    for g in rank.grads:
                        rank.comm.all_reduce(g, op="avg")
            for rank in ranks:
                rank.adamw(step, args.lr, args.weight_decay)
            losses.append(float(backplane.to_numpy(ranks[0].loss)))
        print(f"epoch {epoch + 1:2d}: loss {np.mean(losses):.4f}")

    # Test accuracy on rank 0 (both ranks hold the same parameters).
    rank = ranks[0]
    correct = 0
    for s in range(0, len(test_y) - per_rank + 1, per_rank):
        x = backplane.from_numpy(test_x[s:s + per_rank], rank.device)
        logits = backplane.to_numpy(rank.forward(x))
        correct += int((logits.argmax(1) == test_y[s:s + per_rank]).sum())
    evaluated = (len(test_y) // per_rank) * per_rank
    p0 = [backplane.to_numpy(p) for p in ranks[0].params]
    p1 = [backplane.to_numpy(p) for p in ranks[1].params]
    same = all(np.array_equal(a, b) for a, b in zip(p0, p1))
    print(f"ranks hold identical parameters: {same}")
    print(f"test accuracy: {100.0 * correct / evaluated:.2f}% "
          f"({correct}/{evaluated})")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
