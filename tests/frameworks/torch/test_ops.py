"""Peer checks: every aten kernel the bridge registers, on the device and on
PyTorch's CPU, on random shapes, contiguous and through non-contiguous views
(transposes, slices with steps, broadcasts), forward and, through autograd,
backward. Runs with BACKPLANE_TORCH_FALLBACKS=error (set by CTest), so an op
that is not the bridge's own kernel fails instead of passing on the CPU."""
import unittest

from torch_support import DEVICE, torch

import torch.nn.functional as F

from peer_support import PeerTest, randn, views


class KernelPeerTest(PeerTest):
    def test_views_are_metadata(self):
        x = torch.arange(24.0).reshape(2, 3, 4)
        d = x.to(DEVICE)
        for f in (lambda t: t.view(6, 4), lambda t: t.reshape(4, 6),
                  lambda t: t.t() if t.dim() == 2 else t.transpose(0, 2),
                  lambda t: t.permute(2, 0, 1), lambda t: t[:, 1:, ::2],
                  lambda t: t[0].expand(5, 3, 4), lambda t: t.unsqueeze(1),
                  lambda t: t.as_strided((3, 2), (1, 4), 2),
                  lambda t: torch.flatten(t, 1)):
            v = f(d)
            self.assertEqual(v.storage().data_ptr(), d.storage().data_ptr())
            self.same(v, f(x))

    def test_copy_and_fill(self):
        for x in views(randn(5, 6)):
            d = torch.empty(5, 6, device=DEVICE)
            d.copy_(x.to(DEVICE))
            self.same(d, x.contiguous())
            d.t().copy_(x.t().to(DEVICE))
            self.same(d, x.contiguous())
        d = torch.zeros(4, 3, device=DEVICE)
        d[:, 1].fill_(3.0)
        expected = torch.zeros(4, 3)
        expected[:, 1] = 3.0
        self.same(d, expected)
        d.zero_()
        self.same(d, torch.zeros(4, 3))

    def test_arithmetic_with_broadcasting_and_scalars(self):
        for a in views(randn(4, 5)):
            for b in (randn(4, 5), randn(5), randn(4, 1), torch.tensor(2.5)):
                da, db = a.to(DEVICE), b.to(DEVICE)
                self.same(da + db, a + b)
                self.same(torch.add(da, db, alpha=0.5),
                          torch.add(a, b, alpha=0.5))
                self.same(da - db, a - b)
                self.same(da * db, a * b)
                self.same(da / db, a / b)
            self.same(a.to(DEVICE) * 3, a * 3)
            self.same(a.to(DEVICE) + 1.5, a + 1.5)
            self.same(a.to(DEVICE) / 4, a / 4)
            self.same(a.to(DEVICE) - 2, a - 2)
        i = torch.arange(6).reshape(2, 3)
        self.same(i.to(DEVICE) + i.to(DEVICE), i + i)
        self.same(i.to(DEVICE) / 2, i / 2)

    def test_in_place_arithmetic(self):
        a, b = randn(3, 4), randn(4)
        d = a.to(DEVICE)
        d.add_(b.to(DEVICE), alpha=2)
        d.mul_(0.5)
        d.sub_(b.to(DEVICE))
        d.div_(3)
        expected = a.clone()
        expected.add_(b, alpha=2).mul_(0.5).sub_(b).div_(3)
        self.same(d, expected)

    def test_activations_forward_and_backward(self):
        for x in views(randn(3, 7)):
            for fn in (torch.relu, torch.sigmoid, torch.tanh, F.gelu,
                       lambda t: F.gelu(t, approximate="tanh")):
                self.forward_backward(fn, x)
            for fn in (torch.relu_, torch.sigmoid_, torch.tanh_):
                d = x.to(DEVICE)
                fn(d)
                self.same(d, fn(x.clone()))

    def test_matrix_products(self):
        a, b, c = randn(5, 3), randn(3, 4), randn(4)
        for x in views(a):
            self.forward_backward(torch.mm, x, b)
            self.forward_backward(lambda m, n, bias: torch.addmm(
                bias, m, n, beta=0.5, alpha=2.0), x, b, c)
        self.forward_backward(lambda m, n: torch.mm(m.t(), n),
                              randn(3, 5), randn(3, 4))
        self.forward_backward(torch.bmm, randn(2, 3, 4), randn(2, 4, 5))
        self.forward_backward(F.linear, randn(6, 3), randn(4, 3), randn(4))
        self.forward_backward(torch.matmul, randn(2, 5, 3), randn(3, 4))
        self.forward_backward(torch.matmul, randn(2, 5, 3), randn(2, 3, 4))

    def test_convolution(self):
        for stride, padding, groups in ((1, 0, 1), (2, 1, 1), (1, 1, 2)):
            self.forward_backward(
                lambda x, w, b: F.conv2d(x, w, b, stride=stride,
                                         padding=padding, groups=groups),
                randn(2, 4, 7, 6), randn(6, 4 // groups, 3, 3), randn(6),
                rtol=1e-4, atol=1e-4)
        self.forward_backward(lambda x, w: F.conv2d(x, w, dilation=2),
                              randn(1, 2, 9, 9), randn(3, 2, 3, 3),
                              rtol=1e-4, atol=1e-4)

    def test_max_pool(self):
        for kernel, stride, padding, ceil in ((2, 2, 0, False),
                                              (3, 2, 1, False),
                                              (3, 2, 0, True)):
            self.forward_backward(
                lambda x: F.max_pool2d(x, kernel, stride, padding,
                                       ceil_mode=ceil),
                randn(2, 3, 9, 8))
        d = randn(1, 2, 6, 6)
        out, idx = F.max_pool2d(d.to(DEVICE), 2, return_indices=True)
        _, idx_cpu = F.max_pool2d(d, 2, return_indices=True)
        self.assertTrue(torch.equal(idx.cpu(), idx_cpu))

    def test_batch_norm_training_and_evaluation(self):
        x, w, b = randn(4, 3, 5, 5), randn(3), randn(3)
        for training in (True, False):
            mean_cpu, var_cpu = randn(3), torch.rand(3) + 0.5
            mean_dev, var_dev = mean_cpu.to(DEVICE), var_cpu.to(DEVICE)

            def bn(t, weight, bias):
                on_device = t.device.type != "cpu"
                return F.batch_norm(t, mean_dev if on_device else mean_cpu,
                                    var_dev if on_device else var_cpu,
                                    weight, bias, training=training,
                                    momentum=0.1, eps=1e-5)
            self.forward_backward(bn, x, w, b, rtol=1e-4, atol=1e-4)
            # Training updates the running statistics in place.
            self.same(mean_dev, mean_cpu, 1e-4, 1e-4)
            self.same(var_dev, var_cpu, 1e-4, 1e-4)

    def test_layer_norm(self):
        for x in views(randn(4, 6)):
            self.forward_backward(lambda t, w, b: F.layer_norm(t, (6,), w, b),
                                  x, randn(6), randn(6), rtol=1e-4, atol=1e-4)
        self.forward_backward(lambda t: F.layer_norm(t, (3, 4)),
                              randn(2, 3, 4), rtol=1e-4, atol=1e-4)

    def test_softmax_and_losses(self):
        for x in views(randn(6, 10)):
            self.forward_backward(lambda t: F.log_softmax(t, dim=1), x)
            self.forward_backward(lambda t: F.softmax(t, dim=-1), x)
            self.forward_backward(lambda t: F.softmax(t, dim=0), x)
        target = torch.randint(0, 10, (6,))
        for reduction in ("mean", "sum", "none"):
            self.forward_backward(
                lambda t: F.nll_loss(F.log_softmax(t, 1), target.to(t.device),
                                     reduction=reduction), randn(6, 10))
            self.forward_backward(
                lambda t: F.cross_entropy(t, target.to(t.device),
                                          reduction=reduction), randn(6, 10))

    def test_reductions(self):
        for x in views(randn(3, 4, 5)):
            d = x.to(DEVICE)
            self.same(d.sum(), x.sum())
            self.same(d.sum(1), x.sum(1))
            self.same(d.sum((0, 2), keepdim=True), x.sum((0, 2), keepdim=True))
            self.same(d.mean(), x.mean())
            self.same(d.mean(-1), x.mean(-1))
            self.same(d.mean((0, 1), keepdim=True),
                      x.mean((0, 1), keepdim=True))
            self.same(d.argmax(), x.argmax())
            self.same(d.argmax(1), x.argmax(1))
            self.same(d.argmax(2, keepdim=True), x.argmax(2, keepdim=True))
        i = torch.arange(12).reshape(3, 4)
        self.same(i.to(DEVICE).sum(0), i.sum(0))
        self.forward_backward(lambda t: t.sum(0), randn(4, 3))
        self.forward_backward(lambda t: t.mean(1, keepdim=True), randn(4, 3))

    def test_missing_op_names_itself(self):
        with self.assertRaisesRegex(NotImplementedError, "aten::"):
            torch.igamma(torch.ones(3, device=DEVICE),
                         torch.ones(3, device=DEVICE))


if __name__ == "__main__":
    unittest.main()
