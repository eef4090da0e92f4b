"""Failures inside bridge kernels reach Python as Paddle exceptions that name
the phi kernel, the Paddle device, the Backplane device behind it (as the
runtime names it after BACKPLANE_VISIBLE_DEVICES: the second vcpu device,
listed first, is vcpu:0) and Backplane's own message; a device allocation beyond the device's memory fails with an error,
not a crash, and the process goes on."""
import os

os.environ["BACKPLANE_VISIBLE_DEVICES"] = "vcpu:1,vcpu:0"
os.environ["BACKPLANE_VCPU_MEMORY"] = "64M"

import bridge_env  # noqa: E402,F401
import unittest  # noqa: E402

import numpy as np  # noqa: E402
import paddle  # noqa: E402


class KernelErrors(unittest.TestCase):
    def setUp(self):
        paddle.set_device("backplane:0")

    def test_unsupported_mode_names_kernel_and_devices(self):
        logits = paddle.to_tensor(np.ones((4, 3), np.float32))
        soft = paddle.to_tensor(np.full((4, 3), 1 / 3, np.float32))
        with self.assertRaises(Exception) as caught:
            paddle.nn.functional.cross_entropy(logits, soft, soft_label=True)
        text = str(caught.exception)
        self.assertIn("backplane kernel cross_entropy_with_softmax", text)
        self.assertIn("backplane:0 (vcpu:0)", text)
        self.assertIn("soft_label=1", text)

    def test_op_library_message_reaches_python(self):
        with self.assertRaises(Exception) as caught:
            paddle.uniform([8], min=1.0, max=0.0)
        text = str(caught.exception)
        self.assertIn("backplane kernel uniform", text)
        self.assertIn("diopiUniformInp", text)
        self.assertIn("expected from <= to", text)

    def test_out_of_memory_is_an_error_and_the_device_goes_on(self):
        with self.assertRaises(Exception) as caught:
            paddle.full([128, 1024, 1024], 1.0, dtype="float32")
        self.assertIn("memory", str(caught.exception).lower())
        y = paddle.to_tensor(np.arange(4, dtype=np.float32)) * 2
        np.testing.assert_array_equal(y.numpy(), [0, 2, 4, 6])


if __name__ == "__main__":
    unittest.main()
