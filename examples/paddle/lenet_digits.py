"""A LeNet-style CNN on the 8x8 digits of Debian's python3-sklearn, in
Paddle dygraph, on the `backplane` device (or any Paddle device):

    CUSTOM_DEVICE_ROOT=<build>/lib/backplane/paddle python lenet_digits.py
"""
import argparse
import time

import numpy as np
import paddle

from mnist_mlp import digits


class LeNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.features = paddle.nn.Sequential(
            paddle.nn.Conv2D(1, 8, 3, padding=1), paddle.nn.BatchNorm2D(8),
            paddle.nn.ReLU(), paddle.nn.MaxPool2D(2, 2),
            paddle.nn.Conv2D(8, 16, 3, padding=1), paddle.nn.ReLU(),
            paddle.nn.MaxPool2D(2, 2))
        self.flatten = paddle.nn.Flatten()
        self.classifier = paddle.nn.Sequential(
            paddle.nn.Linear(16 * 2 * 2, 64), paddle.nn.ReLU(),
            paddle.nn.Linear(64, 10))

    def forward(self, x):
        return self.classifier(self.flatten(self.features(x)))


def images(x):
    return x.reshape(-1, 1, 8, 8)


def train(device, epochs=8, batch_size=32, lr=0.02, seed=2):
    paddle.set_device(device)
    paddle.seed(seed)
    (x_train, y_train), (x_test, y_test) = digits()
    x_train, x_test = images(x_train), images(x_test)
    model = LeNet()
    optimizer = paddle.optimizer.Momentum(
        learning_rate=lr, momentum=0.9, parameters=model.parameters())
    losses = []
    start = time.perf_counter()
    for epoch in range(epochs):
        model.train()
        for i in range(0, len(x_train), batch_size):
            x = paddle.to_tensor(x_train[i:i + batch_size])
            y = paddle.to_tensor(y_train[i:i + batch_size])
            loss = paddle.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
            losses.append(float(loss))
    seconds = time.perf_counter() - start
    model.eval()
    logits = model(paddle.to_tensor(x_test)).numpy()
    accuracy = float((logits.argmax(axis=1) == y_test).mean())
    samples = epochs * len(x_train)
    print(f"{device}: loss {losses[-1]:.4f}, test accuracy {accuracy:.4f}, "
          f"{samples / seconds:.0f} samples/s")
    return losses, accuracy


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="backplane")
    parser.add_argument("--epochs", type=int, default=8)
    args = parser.parse_args()
    train(args.device, args.epochs)
