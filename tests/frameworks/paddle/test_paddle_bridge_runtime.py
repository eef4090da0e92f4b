"""The bridge's runtime half under Paddle: device type `backplane` lists the
devices BACKPLANE_VISIBLE_DEVICES names, in its order; tensors are allocated
by Backplane's caching allocator (its statistics move), copied host <-> device,
device <-> device and between devices exactly, and Paddle's streams and events
work on Backplane streams and events."""
import os

os.environ["BACKPLANE_VCPU_DEVICES"] = "3"
os.environ["BACKPLANE_VISIBLE_DEVICES"] = "vcpu:2,vcpu:0"

import bridge_env  # noqa: E402,F401
import unittest  # noqa: E402

import numpy as np  # noqa: E402
import paddle  # noqa: E402


def place(index):
    return paddle.CustomPlace("backplane", index)


class BridgeRuntime(unittest.TestCase):
    def test_visible_devices_are_listed_in_order(self):
        self.assertEqual(paddle.device.get_all_custom_device_type(),
                         ["backplane"])
        self.assertEqual(sorted(paddle.device.get_available_custom_device()),
                         ["backplane:0", "backplane:1"])

    def test_round_trip_host_device_host(self):
        data = np.arange(1000, dtype=np.float32).reshape(10, 100) / 7.0
        x = paddle.to_tensor(data, place=place(0))
        self.assertEqual(str(x.place), "Place(backplane:0)")
        np.testing.assert_array_equal(x.numpy(), data)

    def test_copy_between_devices_and_within_one(self):
        data = np.linspace(-3, 3, 257).astype(np.float32)
        x = paddle.to_tensor(data, place=place(0))
        y = x._copy_to(place(1), True)
        z = y._copy_to(place(1), True)
        self.assertEqual(str(z.place), "Place(backplane:1)")
        np.testing.assert_array_equal(z.numpy(), data)

    def test_allocations_are_counted(self):
        paddle.device.synchronize()
        before = paddle.device.memory_allocated(place(1))
        keep = paddle.to_tensor(np.ones(1 << 16, np.float32), place=place(1))
        after = paddle.device.memory_allocated(place(1))
        self.assertGreaterEqual(after - before, (1 << 16) * 4)
        del keep

    def test_streams_and_events(self):
        paddle.set_device("backplane:0")
        stream = paddle.device.Stream()
        event = paddle.device.Event()
        with paddle.device.stream_guard(stream):
            x = paddle.to_tensor(np.full(64, 2.0, np.float32))
            y = x * x
            event.record(stream)
        event.synchronize()
        self.assertTrue(event.query())
        stream.synchronize()
        np.testing.assert_array_equal(y.numpy(), np.full(64, 4.0, np.float32))


if __name__ == "__main__":
    unittest.main()
