"""A phi kernel the bridge lacks (heaviside, the step function, a rarely
used op it has no plan to register): with Paddle's CPU fallback off it
fails with an error naming the kernel and the device; with the fallback on
it runs on Paddle's CPU, and under BACKPLANE_PADDLE_FALLBACKS=1 the bridge
prints each such call with its count and a summary at exit. A static graph
run by the legacy-IR executor falls back whatever the flag says; the bridge
counts that too."""
import bridge_env  # noqa: F401
import os
import subprocess
import sys
import unittest

import numpy as np
import paddle

# A small training step through the ops that used to fall back to Paddle's
# CPU (split, stack, max, abs, clip, dropout, where, log_softmax + nll_loss,
# sqrt, square, pow, exp, cumsum, an Assign initializer, slice
# assignments with positive and negative steps, and their gradients): run before the counted heavisides, it must
# add no fallback.
TRAINING_STEP = """
import numpy as np, paddle
import paddle.nn.functional as F
paddle.set_device("backplane:0")
paddle.seed(0)  # the dropout masks: the same run every time
rng = np.random.RandomState(0)
data = paddle.to_tensor(rng.randn(16, 8).astype(np.float32))
label = paddle.to_tensor(rng.randint(0, 4, (16,)).astype(np.int64))
a, b = paddle.nn.Linear(4, 16), paddle.nn.Linear(4, 16)
head = paddle.nn.Linear(16, 4, bias_attr=paddle.ParamAttr(
    initializer=paddle.nn.initializer.Assign(np.zeros(4, np.float32))))
params = a.parameters() + b.parameters() + head.parameters()
opt = paddle.optimizer.Adam(0.01, parameters=params)
losses = []
for _ in range(3):
    left, right = paddle.split(data, 2, axis=1)
    h = paddle.stack([a(left), b(right)], 0)
    h = paddle.max(h, axis=0) + paddle.abs(h).mean(0)
    h = F.dropout(paddle.clip(h, -2.0, 2.0), 0.2)
    h = paddle.where(h > 0, h, 0.1 * h) * 1
    h = h + 0.01 * paddle.cumsum(h, axis=1)
    h[:, :2] = h[:, 2:4] ** 2
    h[:, ::-4] = h[:, 4:8] * 0.5
    loss = F.nll_loss(F.log_softmax(head(h), -1), label)
    loss = loss + 1e-3 * paddle.sqrt(paddle.square(a.weight).sum() + 1) \
        + 1e-3 * paddle.exp(-b.weight.pow(2)).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    losses.append(float(loss))
assert all(np.isfinite(losses)) and losses[-1] < losses[0], losses
print("training step ok")
"""

SCRIPT = """
import numpy as np, paddle
paddle.set_device("backplane:0")
x = paddle.to_tensor(np.array([-1, 0, 2], dtype=np.float32))
w = paddle.to_tensor(np.array([5, 6, 7], dtype=np.float32))
for _ in range(3):
    y = paddle.heaviside(x, w)
np.testing.assert_array_equal(y.numpy(), [0, 6, 1])
print("heaviside ok")
"""

STATIC_SCRIPT = """
import numpy as np, paddle
paddle.enable_static()
main = paddle.static.Program()
with paddle.static.program_guard(main):
    x = paddle.static.data("x", [3], "float32")
    w = paddle.static.data("w", [3], "float32")
    y = paddle.heaviside(x, w)
exe = paddle.static.Executor(paddle.CustomPlace("backplane", 0))
out, = exe.run(main, feed={"x": np.array([-1, 0, 2], dtype=np.float32),
                           "w": np.array([5, 6, 7], dtype=np.float32)},
               fetch_list=[y])
np.testing.assert_array_equal(out, [0, 6, 1])
print("heaviside ok")
"""


def run_with_fallback(script=SCRIPT, **extra):
    env = dict(os.environ, FLAGS_enable_api_kernel_fallback="1",
               GLOG_minloglevel="0")
    env.pop("BACKPLANE_PADDLE_FALLBACKS", None)
    env.update(extra)
    return subprocess.run([sys.executable, "-c", script], env=env,
                          capture_output=True, text=True, timeout=120)


class Fallbacks(unittest.TestCase):
    def test_missing_kernel_without_fallback_names_kernel_and_device(self):
        paddle.set_device("backplane:0")
        x = paddle.to_tensor(np.arange(3, dtype=np.float32))
        with self.assertRaises(Exception) as caught:
            paddle.heaviside(x, x)
        text = str(caught.exception)
        self.assertIn("`heaviside`", text)
        self.assertIn("backplane", text)
        self.assertIn("float32", text)

    def test_each_fallback_is_counted_and_printed(self):
        out = run_with_fallback(TRAINING_STEP + SCRIPT,
                                BACKPLANE_PADDLE_FALLBACKS="1")
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertIn("training step ok", out.stdout)
        self.assertIn("heaviside ok", out.stdout)
        lines = [line for line in out.stderr.splitlines()
                 if line.startswith("backplane paddle bridge: fallback")]
        self.assertEqual(lines, [
            "backplane paddle bridge: fallback 1: heaviside (float32) ran on "
            "Paddle's CPU (1 time)",
            "backplane paddle bridge: fallback 2: heaviside (float32) ran on "
            "Paddle's CPU (2 times)",
            "backplane paddle bridge: fallback 3: heaviside (float32) ran on "
            "Paddle's CPU (3 times)"])
        self.assertIn("backplane paddle bridge: 3 fallbacks to Paddle's CPU: "
                      "heaviside (float32) 3", out.stderr)

    def test_a_static_graph_fallback_is_counted(self):
        # The legacy-IR executor (FLAGS_enable_pir_api=0, the executor of
        # Paddle's OpTest) ignores FLAGS_enable_api_kernel_fallback; it
        # names the operator (elementwise_heaviside), not the phi kernel.
        out = run_with_fallback(STATIC_SCRIPT, BACKPLANE_PADDLE_FALLBACKS="1",
                                FLAGS_enable_api_kernel_fallback="0",
                                FLAGS_enable_pir_api="0")
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertIn("heaviside ok", out.stdout)
        self.assertIn("backplane paddle bridge: fallback 1: "
                      "elementwise_heaviside (float32) ran on Paddle's CPU "
                      "(1 time)", out.stderr)
        self.assertIn("backplane paddle bridge: 1 fallback to Paddle's CPU: "
                      "elementwise_heaviside (float32) 1", out.stderr)

    def test_fallbacks_are_silent_without_the_variable(self):
        out = run_with_fallback()
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertIn("heaviside ok", out.stdout)
        self.assertNotIn("backplane paddle bridge", out.stderr)

    def test_a_log_level_that_hides_them_is_reported(self):
        out = run_with_fallback(BACKPLANE_PADDLE_FALLBACKS="1",
                                GLOG_minloglevel="2")
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertIn("needs GLOG_minloglevel=0 (it is 2)", out.stderr)


if __name__ == "__main__":
    unittest.main()
