"""An MNIST-style MLP trained with paddle.nn and paddle.optimizer in dygraph,
the way PaddleCustomDevice's custom_cpu MNIST example trains, on the
`backplane` device. The data are the 8x8 digits that Debian's python3-sklearn
ships (sklearn.datasets.load_digits): nothing is downloaded.

    CUSTOM_DEVICE_ROOT=<build>/lib/backplane/paddle python mnist_mlp.py
"""
import argparse

import numpy as np
import paddle
from sklearn.datasets import load_digits


class MNIST(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(64, 128)
        self.fc2 = paddle.nn.Linear(128, 64)
        self.fc3 = paddle.nn.Linear(64, 10)
        self.relu = paddle.nn.ReLU()

    def forward(self, x):
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def digits(test_fraction=0.25, seed=0):
    data = load_digits()
    x = (data.data / 16.0).astype("float32")
    y = data.target.astype("int64")
    order = np.random.RandomState(seed).permutation(len(x))
    x, y = x[order], y[order]
    split = int(len(x) * (1 - test_fraction))
    return (x[:split], y[:split]), (x[split:], y[split:])


def train(device, epochs=3, batch_size=64, lr=0.1, seed=1):
    paddle.set_device(device)
    paddle.seed(seed)
    (x_train, y_train), (x_test, y_test) = digits()
    model = MNIST()
    optimizer = paddle.optimizer.Momentum(
        learning_rate=lr, momentum=0.9, parameters=model.parameters())
    loss_fn = paddle.nn.CrossEntropyLoss()
    losses = []
    for epoch in range(epochs):
        for start in range(0, len(x_train), batch_size):
            x = paddle.to_tensor(x_train[start:start + batch_size])
            y = paddle.to_tensor(y_train[start:start + batch_size])
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
            losses.append(float(loss))
        print(f"epoch {epoch}: loss {losses[-1]:.4f}", flush=True)
    model.eval()
    logits = model(paddle.to_tensor(x_test)).numpy()
    accuracy = float((logits.argmax(axis=1) == y_test).mean())
    print(f"test accuracy {accuracy:.4f}")
    return losses, accuracy


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="backplane")
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    train(args.device, args.epochs)
