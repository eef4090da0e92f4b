"""An ordinary PyTorch training script, as PyTorch's examples write them: a
LeNet-style CNN on scikit-learn's 8x8 digits, nn.Module, torch.optim,
DataLoader. Only --device says where it runs; with --ddp it runs under
torch.distributed (one process per device, DistributedDataParallel).

    python train_digits.py --device privateuseone:0   # after import torch_backplane
    python train_digits.py --device cpu
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from torch.utils.data import DataLoader, TensorDataset


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
    """Trains and returns (per-step losses, test accuracy)."""
    torch.manual_seed(seed)
    train_set, test_set = datasets()
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
    args = parser.parse_args()
    if args.device.startswith("privateuseone"):
        import torch_backplane  # noqa: F401 (registers the device)
    losses, accuracy = train(args.device, args.epochs,
                             optimizer=args.optimizer, log_steps=5)
    print(f"final loss {losses[-1]:.4f} test accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
