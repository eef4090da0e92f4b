"""The ordinary PyTorch training script (train_digits.py) on a Backplane
device: a LeNet-style CNN on scikit-learn's digits reaches >= 95 % test
accuracy on privateuseone:0 (vcpu) with every op on the device
(BACKPLANE_TORCH_FALLBACKS=error, set by CTest), and its losses follow the
same script on PyTorch's CPU device within 1e-4 over the first steps."""
import unittest

from torch_support import DEVICE, torch, torch_backplane

import train_digits

STEPS_COMPARED = 20


class TrainTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)
        cls.losses, cls.accuracy = train_digits.train(DEVICE)

    def test_cnn_reaches_95_percent_on_the_device(self):
        self.assertGreaterEqual(self.accuracy, 0.95)

    def test_losses_match_the_cpu_run(self):
        cpu_losses, _ = train_digits.train("cpu", epochs=1)
        for step, (ours, cpu) in enumerate(
                zip(self.losses[:STEPS_COMPARED],
                    cpu_losses[:STEPS_COMPARED])):
            self.assertAlmostEqual(ours, cpu, delta=1e-4,
                                   msg=f"step {step + 1}")

    def test_no_op_fell_back_to_the_cpu(self):
        self.assertEqual(torch_backplane.fallback_counts(), {})


if __name__ == "__main__":
    unittest.main()
