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
        x = paddle.to_tensor(np.ones((1, 5, 5, 3), np.float32))
        w = paddle.to_tensor(np.ones((2, 3, 3, 3), np.float32))
        with self.assertRaises(Exception) as caught:
            paddle.nn.functional.conv2d(x, w, data_format="NHWC")
        text = str(caught.exception)
        self.assertIn("backplane kernel conv2d", text)
        self.assertIn("backplane:0 (vcpu:0)", text)
        self.assertIn("data_format NHWC: only NCHW is supported", text)

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


    def test_new_kernel_families_raise_backplane_messages(self):
        # One failure a family's kernel (not Paddle's InferMeta) finds: the
        # exception names the kernel and carries Backplane's text.
        x = paddle.ones([2, 3])
        cases = [
            (lambda: paddle.clip(x, 1.0, 0.0), "backplane kernel clip",
             "expected min <= max, got min 1 and max 0"),
            (lambda: paddle.expand(x, [4, 3]), "backplane kernel expand",
             "diopiExpand: input: shape [2, 3] does not broadcast to [4, 3]"),
            (lambda: x.__setitem__(slice(0, 2), paddle.ones([4])),
             "backplane kernel set_value_with_tensor",
             "shape [4] does not broadcast to [2, 3]"),
            (lambda: x.__setitem__(slice(None, None, -1),
                                   paddle.ones([4])),
             "backplane kernel set_value_with_tensor",
             "diopiExpand: input: shape [4] does not broadcast to [2, 3]"),
            (lambda: paddle._C_ops.dropout(x, None, 1.5, False,
                                           "upscale_in_train", 0, False),
             "backplane kernel dropout", "p: 1.5 is outside [0, 1]"),
            (lambda: paddle._C_ops.assign_value_(
                paddle.empty([2, 2]), [2, 2], paddle.float32, [1.0, 2.0, 3.0],
                paddle.CustomPlace("backplane", 0)),
             "backplane kernel assign_value",
             "values: expected 4 (the shape's element count), got 3"),
        ]
        for call, kernel, message in cases:
            with self.assertRaises(OSError) as caught:
                call()
            self.assertIn(kernel + " on backplane:0 (vcpu:0)",
                          str(caught.exception))
            self.assertIn(message, str(caught.exception))
        np.testing.assert_array_equal((x * 2).numpy(), np.full((2, 3), 2))


if __name__ == "__main__":
    unittest.main()
