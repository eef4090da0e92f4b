"""The MNIST-style MLP example (examples/paddle/mnist_mlp.py: paddle.nn,
paddle.optimizer, dygraph) trains on `backplane` over vcpu with every kernel
the bridge's (no CPU fallback): the first steps' losses equal Paddle CPU's
from the same initial weights, and a few epochs on the digits reach a test
accuracy far above chance. The same script trains over opencl:0 where an
OpenCL platform exists (skipped, saying so, where none does)."""
import os
import subprocess
import sys

import bridge_env
import unittest

import numpy as np
import paddle

sys.path.insert(0, bridge_env.EXAMPLES)
import mnist_mlp  # noqa: E402


def momentum(parameters):
    return paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9,
                                     parameters=parameters)


def losses_from(device, state, x, y, steps, make_optimizer=momentum):
    paddle.set_device(device)
    model = mnist_mlp.MNIST()
    model.set_state_dict(state)
    optimizer = make_optimizer(model.parameters())
    losses = []
    for _ in range(steps):
        loss = paddle.nn.functional.cross_entropy(
            model(paddle.to_tensor(x)), paddle.to_tensor(y))
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
        losses.append(float(loss))
    return losses


def first_batch_and_weights():
    (x, y), _ = mnist_mlp.digits()
    paddle.set_device("cpu")
    paddle.seed(3)
    state = {k: v.numpy() for k, v in mnist_mlp.MNIST().state_dict().items()}
    return x[:128], y[:128], state


class MlpOnBackplane(unittest.TestCase):
    def test_first_steps_match_paddle_cpu(self):
        x, y, state = first_batch_and_weights()
        cpu = losses_from("cpu", state, x, y, 5)
        bridge = losses_from("backplane:0", state, x, y, 5)
        np.testing.assert_allclose(bridge, cpu, rtol=1e-4, atol=1e-5)
        self.assertLess(cpu[-1], cpu[0])

    def test_adam_and_adamw_match_paddle_cpu(self):
        x, y, state = first_batch_and_weights()
        for make in (
                lambda p: paddle.optimizer.Adam(learning_rate=0.01,
                                                parameters=p),
                lambda p: paddle.optimizer.AdamW(learning_rate=0.01,
                                                 weight_decay=0.05,
                                                 parameters=p)):
            cpu = losses_from("cpu", state, x, y, 5, make)
            bridge = losses_from("backplane:0", state, x, y, 5, make)
            np.testing.assert_allclose(bridge, cpu, rtol=1e-4, atol=1e-5)
            self.assertLess(cpu[-1], cpu[0])

    def test_trains_to_high_accuracy(self):
        losses, accuracy = mnist_mlp.train("backplane:1", epochs=3)
        self.assertLess(np.mean(losses[-5:]), np.mean(losses[:5]))
        self.assertGreaterEqual(accuracy, 0.85)

    def test_trains_over_opencl(self):
        env = dict(os.environ, BACKPLANE_VISIBLE_DEVICES="opencl:0")
        out = subprocess.run(
            [sys.executable, os.path.join(bridge_env.EXAMPLES, "mnist_mlp.py"),
             "--epochs", "2"], env=env, capture_output=True, text=True,
            timeout=100)
        if ("opencl has no device" in out.stderr
                or 'device type "opencl"' in out.stderr):
            self.skipTest("no OpenCL device: " + out.stderr.strip()[-200:])
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        accuracy = float(out.stdout.split("test accuracy")[-1])
        self.assertGreaterEqual(accuracy, 0.8)


if __name__ == "__main__":
    unittest.main()
