"""An ordinary PyTorch training script, as PyTorch's examples write them: a
LeNet-style CNN on scikit-learn's 8x8 digits, nn.Module, torch.optim,
DataLoader. Only --device says where it runs; with --backend it runs under
torchrun (one process per device, DistributedDataParallel, the ranks from
torchrun's environment: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT).

    python train_digits.py --device privateuseone:0
    python train_digits.py --device cpu
    torchrun --nproc_per_node 2 train_digits.py --device privateuseone \
        --backend backplane
"""
import argparse
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 2 * 2, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), dim=1)


def datasets():
    digits = load_digits()
    images = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1)
    images = (images / 16.0 - 0.3) / 0.4  # about zero mean, unit variance
    labels = torch.tensor(digits.target, dtype=torch.int64)
    # A fixed shuffle, then 80 % to train on and 20 % to test on.
    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(1))
    images, labels = images[order], labels[order]
    split = len(labels) * 4 // 5
    return (TensorDataset(images[:split], labels[:split]),
            TensorDataset(images[split:], labels[split:]))


def train(device, epochs=6, batch_size=32, lr=0.05, seed=0, sampler=None,
          wrap=None, optimizer="sgd", log_steps=0):
    """Trains and returns (per-step losses, test accuracy). sampler: a
    function of the training set giving its sampler; wrap: one of the model
    giving the module to train (DistributedDataParallel)."""
    torch.manual_seed(seed)
    train_set, test_set = datasets()
    sampler = sampler(train_set) if sampler is not None else None
    model = LeNet().to(device)
    if wrap is not None:
        model = wrap(model)
    if optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=lr / 20,
                                foreach=False)
    loader = DataLoader(train_set, batch_size=batch_size,
                        shuffle=sampler is None, sampler=sampler,
                        generator=torch.Generator().manual_seed(seed))
    losses = []
    for epoch in range(epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        model.train()
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            opt.zero_grad()
            loss = F.nll_loss(model(images), labels)
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if log_steps and len(losses) <= log_steps:
                print(f"step {len(losses)} loss {losses[-1]:.6f}")
    model.eval()
    correct = 0
    with torch.no_grad():
        for images, labels in DataLoader(test_set, batch_size=256):
            pred = model(images.to(device)).argmax(dim=1).cpu()
            correct += int((pred == labels).sum())
    return losses, correct / len(test_set)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--optimizer", default="sgd")
    parser.add_argument("--backend", help="torch.distributed backend")
    parser.add_argument("--json", action="store_true",
                        help="print the losses and accuracy as JSON")
    args = parser.parse_args()
    device, sampler, wrap = args.device, None, None
    if device.startswith("privateuseone"):
        import torch_backplane  # registers the device and the backend
    if args.backend:
        import torch.distributed as dist
        rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        local_rank = int(os.environ.get("LOCAL_RANK", rank))
        if device.startswith("privateuseone"):
            torch_backplane.set_device(local_rank)
            device = f"privateuseone:{local_rank}"
        dist.init_process_group(args.backend)
        sampler = lambda data: DistributedSampler(data, world, rank, seed=0)
        wrap = DistributedDataParallel
    losses, accuracy = train(device, args.epochs, optimizer=args.optimizer,
                             sampler=sampler, wrap=wrap,
                             log_steps=0 if args.json else 5)
    if args.json:
        print(json.dumps({"losses": losses, "accuracy": accuracy}))
    else:
        print(f"final loss {losses[-1]:.4f} test accuracy {accuracy:.3f}")
    if args.backend:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
