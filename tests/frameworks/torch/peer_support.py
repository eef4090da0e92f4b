"""What the peer tests share: random inputs, their non-contiguous views, and
PeerTest, whose checks compare an op on the device with PyTorch's CPU."""
import unittest

from torch_support import DEVICE, torch

RTOL, ATOL = 1e-5, 1e-5


def randn(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=dtype)


def views(t):
    """t itself, and the same values as a non-contiguous view."""
    wide = torch.empty(*t.shape[:-1], t.shape[-1] * 2, dtype=t.dtype)
    wide[..., ::2] = t
    return [t, wide[..., ::2]]


class PeerTest(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(7)

    def same(self, ours, cpu, rtol=RTOL, atol=ATOL):
        self.assertEqual(ours.device, torch.device(DEVICE))
        self.assertEqual(ours.dtype, cpu.dtype)
        self.assertEqual(ours.shape, cpu.shape)
        torch.testing.assert_close(ours.cpu(), cpu, rtol=rtol, atol=atol)

    def forward_backward(self, fn, *inputs, rtol=RTOL, atol=ATOL):
        """fn on CPU leaves and on device copies of them: outputs and the
        gradients of sum(out * random weights) match."""
        cpu = [x.clone().requires_grad_(x.is_floating_point())
               for x in inputs]
        dev = [x.detach().to(DEVICE).requires_grad_(x.is_floating_point())
               for x in inputs]
        out_cpu, out_dev = fn(*cpu), fn(*dev)
        self.same(out_dev, out_cpu, rtol, atol)
        weight = torch.randn(out_cpu.shape)
        (out_cpu * weight).sum().backward()
        (out_dev * weight.to(DEVICE)).sum().backward()
        for c, d in zip(cpu, dev):
            if c.grad is not None:
                self.same(d.grad, c.grad, rtol, atol)
