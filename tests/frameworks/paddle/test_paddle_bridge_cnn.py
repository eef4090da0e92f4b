"""The LeNet-style CNN example (examples/paddle/lenet_digits.py: conv2d,
batch_norm, max pool2d, flatten, linear, momentum) on `backplane` over vcpu,
every kernel the bridge's (no CPU fallback): from the same initial weights the
first steps' losses and the trained weights equal Paddle CPU's, and training
on the digits reaches at least 95 % test accuracy, over vcpu and over opencl:0
where an OpenCL platform exists (skipped, saying so, where none does)."""
import os
import subprocess
import sys

import bridge_env
import unittest

import numpy as np
import paddle

sys.path.insert(0, bridge_env.EXAMPLES)
import lenet_digits  # noqa: E402
import mnist_mlp  # noqa: E402


def run(device, state, x, y, steps):
    paddle.set_device(device)
    model = lenet_digits.LeNet()
    model.set_state_dict(state)
    optimizer = paddle.optimizer.Momentum(
        learning_rate=0.05, momentum=0.9, parameters=model.parameters())
    losses = []
    for _ in range(steps):
        loss = paddle.nn.functional.cross_entropy(
            model(paddle.to_tensor(x)), paddle.to_tensor(y))
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
        losses.append(float(loss))
    return losses, {k: v.numpy() for k, v in model.state_dict().items()}


class CnnOnBackplane(unittest.TestCase):
    def test_first_steps_match_paddle_cpu(self):
        (x, y), _ = mnist_mlp.digits()
        x, y = lenet_digits.images(x[:64]), y[:64]
        paddle.set_device("cpu")
        paddle.seed(5)
        state = {k: v.numpy()
                 for k, v in lenet_digits.LeNet().state_dict().items()}
        cpu_losses, cpu_state = run("cpu", state, x, y, 4)
        losses, trained = run("backplane:0", state, x, y, 4)
        np.testing.assert_allclose(losses, cpu_losses, rtol=1e-4, atol=1e-5)
        for name, value in cpu_state.items():
            np.testing.assert_allclose(trained[name], value, rtol=1e-3,
                                       atol=1e-4, err_msg=name)

    def test_reaches_95_percent(self):
        losses, accuracy = lenet_digits.train("backplane:1", epochs=8)
        self.assertGreaterEqual(accuracy, 0.95)

    def test_reaches_95_percent_over_opencl(self):
        env = dict(os.environ, BACKPLANE_VISIBLE_DEVICES="opencl:0")
        out = subprocess.run(
            [sys.executable, os.path.join(bridge_env.EXAMPLES,
                                          "lenet_digits.py")],
            env=env, capture_output=True, text=True, timeout=100)
        if ("opencl has no device" in out.stderr
                or 'device type "opencl"' in out.stderr):
            self.skipTest("no OpenCL device: " + out.stderr.strip()[-200:])
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertIn("backplane: ", out.stdout)
        accuracy = float(out.stdout.split("test accuracy")[-1].split(",")[0])
        self.assertGreaterEqual(accuracy, 0.95)


if __name__ == "__main__":
    unittest.main()
