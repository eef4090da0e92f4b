"""Peer checks for the kernels beyond a LeNet's: pointwise math, comparisons,
logical and bitwise ops, where, addcmul/addcdiv, lerp, pow, clamp, more
activations (elu, softplus, mish, hardsigmoid), rounding and special
functions, reductions, indexing, recurrent layers (RNN, LSTM, GRU),
transposed convolution, group norm, losses, reflection and replication
padding, PReLU and GLU, pooling, upsampling, random fills and the
optimizers' foreach paths. Each is compared with PyTorch's CPU on random
shapes, contiguous and non-contiguous, forward and (where differentiable)
backward. Runs with
BACKPLANE_TORCH_FALLBACKS=error (set by CTest): an op that is not the
bridge's own kernel fails instead of passing on the CPU."""
import copy
import unittest

from torch_support import DEVICE, torch, torch_backplane

import torch.nn.functional as F

from peer_support import PeerTest, randn, views


def positive(*shape):
    return torch.rand(*shape) + 0.5


def unit(*shape):
    """Values in (-0.9, 0.9): inside every inverse function's domain."""
    return torch.rand(*shape) * 1.8 - 0.9


class PointwisePeerTest(PeerTest):
    def test_unary_math_forward_and_backward(self):
        cases = {
            torch.exp: randn, torch.expm1: randn, torch.log: positive,
            torch.log2: positive, torch.log10: positive, torch.log1p: positive,
            torch.sqrt: positive, torch.rsqrt: positive, torch.erf: randn,
            torch.erfinv: unit, torch.sin: randn, torch.cos: randn,
            torch.tan: unit, torch.asin: unit, torch.acos: unit,
            torch.atan: randn, torch.sinh: randn, torch.cosh: randn,
            torch.asinh: randn, torch.atanh: unit, torch.reciprocal: positive,
            torch.neg: randn, torch.abs: randn,
        }
        for fn, make in cases.items():
            for x in views(make(3, 5)):
                with self.subTest(op=fn.__name__, contiguous=x.is_contiguous()):
                    self.forward_backward(fn, x, rtol=1e-4, atol=1e-5)
        self.forward_backward(torch.acosh, positive(4) + 1.0)

    def test_unary_in_place_out_and_integral_inputs(self):
        for x in views(positive(4, 3)):
            d = x.to(DEVICE)
            d.sqrt_()
            self.same(d, x.sqrt())
            out = torch.empty(0, device=DEVICE)
            torch.exp(x.to(DEVICE), out=out)
            self.same(out, torch.exp(x))
        self.same(torch.sqrt(torch.arange(8).to(DEVICE)),
                  torch.sqrt(torch.arange(8)))
        i = torch.arange(-3, 5)
        for fn in (torch.exp, torch.abs, torch.neg, torch.floor,
                   torch.ceil, torch.sign, torch.sgn):
            with self.subTest(op=fn.__name__):
                self.same(fn(i.to(DEVICE)), fn(i), 1e-5, 1e-5)
        x = randn(6) * 3
        for fn in (torch.floor, torch.ceil, torch.sign):
            self.same(fn(x.to(DEVICE)), fn(x))
        nan = torch.tensor([1.0, float("nan"), 2.0])
        self.same(torch.isnan(nan.to(DEVICE)), torch.isnan(nan))

    def test_comparisons_tensor_scalar_in_place_and_out(self):
        ops = (torch.eq, torch.ne, torch.lt, torch.le, torch.gt, torch.ge)
        for a in views(torch.randint(-2, 3, (4, 5)).float()):
            for b in (torch.randint(-2, 3, (4, 5)).float(),
                      torch.randint(-2, 3, (5,)), torch.tensor(0.0)):
                for op in ops:
                    with self.subTest(op=op.__name__, b=tuple(b.shape)):
                        self.same(op(a.to(DEVICE), b.to(DEVICE)), op(a, b))
            for op in ops:
                self.same(op(a.to(DEVICE), 1), op(a, 1))
            d = a.to(DEVICE)
            d.lt_(0.5)
            self.same(d, a.clone().lt_(0.5))
            out = torch.empty(0, dtype=torch.bool, device=DEVICE)
            torch.ge(a.to(DEVICE), 0, out=out)
            self.same(out, torch.ge(a, 0))
        x = randn(7)
        self.same((x.to(DEVICE) > 0) & (x.to(DEVICE) < 1), (x > 0) & (x < 1))
        self.same((x.to(DEVICE) > 0) | (x.to(DEVICE) < -1), (x > 0) | (x < -1))
        self.same(~(x.to(DEVICE) > 0), ~(x > 0))
        self.same(torch.logical_and(x.to(DEVICE), x.to(DEVICE) > 0),
                  torch.logical_and(x, x > 0))
        self.same(torch.logical_or(x.to(DEVICE) > 1, x.to(DEVICE) < -1),
                  torch.logical_or(x > 1, x < -1))
        self.same(torch.logical_not(x.to(DEVICE) > 0), torch.logical_not(x > 0))
        i = torch.randint(0, 16, (5,))
        self.same(i.to(DEVICE) & 6, i & 6)
        self.same(i.to(DEVICE) | i.flip(0).to(DEVICE), i | i.flip(0))

    def test_where_and_masked_fill(self):
        for x in views(randn(4, 6)):
            y = randn(6)
            self.forward_backward(lambda a, b: torch.where(a > 0, a, b), x, y)
            d = x.to(DEVICE)
            self.same(torch.where(d > 0, d, 0.0), torch.where(x > 0, x, 0.0))
            d.masked_fill_(d < 0, -1.0)
            self.same(d, x.masked_fill(x < 0, -1.0))
        x = randn(3, 4)
        mask = torch.rand(3, 4) > 0.5
        self.forward_backward(lambda t: t.masked_fill(
            mask.to(t.device), 2.0), x)

    def test_addcmul_addcdiv_lerp(self):
        for a in views(randn(3, 4)):
            b, c = randn(3, 4), positive(4)
            for v in (1, 0.5):
                self.forward_backward(
                    lambda x, y, z: torch.addcmul(x, y, z, value=v), a, b, c)
                self.forward_backward(
                    lambda x, y, z: torch.addcdiv(x, y, z, value=v), a, b, c)
            self.forward_backward(lambda x, y: torch.lerp(x, y, 0.3), a, b)
            self.forward_backward(torch.lerp, a, b, torch.rand(3, 4))
            d = a.to(DEVICE)
            d.addcmul_(b.to(DEVICE), c.to(DEVICE), value=-2)
            d.addcdiv_(b.to(DEVICE), c.to(DEVICE), value=0.5)
            d.lerp_(b.to(DEVICE), 0.25)
            self.same(d, a.clone().addcmul_(b, c, value=-2)
                      .addcdiv_(b, c, value=0.5).lerp_(b, 0.25))

    def test_pow_clamp_maximum_minimum_remainder(self):
        for x in views(positive(3, 4)):
            self.forward_backward(lambda t: t ** 2, x)
            self.forward_backward(lambda t: t.pow(0.5), x)
            self.forward_backward(torch.pow, x, positive(4))
            self.forward_backward(lambda t: 2.0 ** t, x)
            self.forward_backward(lambda t: t.clamp(0.7, 1.2), x)
            self.forward_backward(lambda t: t.clamp(min=0.8), x)
            self.forward_backward(lambda t: t.clamp(max=0.9), x)
            self.forward_backward(torch.maximum, x, positive(3, 4))
            self.forward_backward(torch.minimum, x, positive(4))
            d = x.to(DEVICE)
            d.clamp_(max=1.0).pow_(3)
            self.same(d, x.clamp(max=1.0).pow(3))
        i = torch.arange(-6, 6)
        self.same(i.to(DEVICE) % 4, i % 4)
        self.same(torch.remainder(i.to(DEVICE), i.flip(0).to(DEVICE) + 13),
                  torch.remainder(i, i.flip(0) + 13))
        self.same(torch.clamp(i.to(DEVICE), -2, 3), torch.clamp(i, -2, 3))

    def test_more_activations_forward_and_backward(self):
        for x in views(randn(4, 6) * 4):
            for fn in (F.leaky_relu, lambda t: F.leaky_relu(t, 0.2), F.silu,
                       F.hardtanh, F.relu6, F.hardswish):
                self.forward_backward(fn, x)
            for fn in (lambda t: F.leaky_relu(t, inplace=True),
                       lambda t: F.silu(t, inplace=True),
                       lambda t: F.hardtanh(t, inplace=True),
                       lambda t: F.hardswish(t, inplace=True)):
                d = x.to(DEVICE)
                fn(d)
                self.same(d, fn(x.clone()))


    def test_rounding_and_special_functions(self):
        halves = torch.randint(-12, 12, (4, 6)) / 2 + randn(4, 6) * 0.2
        for x in views(halves):
            for fn in (torch.round, torch.trunc, torch.frac, torch.erfc):
                with self.subTest(op=fn.__name__,
                                  contiguous=x.is_contiguous()):
                    self.forward_backward(fn, x, rtol=1e-4, atol=1e-5)
            # lgamma's backward is digamma, digamma's polygamma(1, x).
            self.forward_backward(torch.lgamma, x, rtol=1e-4, atol=1e-5)
            self.forward_backward(torch.digamma, x, rtol=1e-4, atol=1e-4)
        x = randn(3, 4) * 3
        d = x.to(DEVICE)
        d.digamma_()
        self.same(d, x.digamma(), 1e-4, 1e-4)
        out = torch.empty(0, device=DEVICE)
        torch.digamma(x.to(DEVICE), out=out)
        self.same(out, x.digamma(), 1e-4, 1e-4)
        i = torch.arange(1, 6)
        self.same(torch.digamma(i.to(DEVICE)), torch.digamma(i), 1e-5, 1e-5)
        x = torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5])
        d = x.to(DEVICE)
        d.round_()
        self.same(d, x.round())  # halves to even
        out = torch.empty(0, device=DEVICE)
        torch.trunc(x.to(DEVICE), out=out)
        self.same(out, x.trunc())
        i = torch.arange(-3, 5)
        self.same(torch.round(i.to(DEVICE)), torch.round(i))

    def test_polygamma_forward_backward_in_place_and_out(self):
        x = torch.rand(4, 6) * 12 - 3.5  # negative arguments reflect
        for n in (1, 2, 3):
            for v in views(x):
                with self.subTest(n=n, contiguous=v.is_contiguous()):
                    self.forward_backward(lambda t: torch.polygamma(n, t), v,
                                          rtol=1e-4, atol=1e-4)
        self.same(torch.polygamma(0, x.to(DEVICE)), torch.digamma(x),
                  1e-4, 1e-4)
        d = x.to(DEVICE)
        d.polygamma_(2)
        self.same(d, x.polygamma(2), 1e-4, 1e-4)
        out = torch.empty(0, device=DEVICE)
        torch.polygamma(1, x.to(DEVICE), out=out)
        self.same(out, torch.polygamma(1, x), 1e-4, 1e-4)
        i = torch.arange(1, 6)
        self.same(torch.polygamma(1, i.to(DEVICE)), torch.polygamma(1, i),
                  1e-5, 1e-5)
        with self.assertRaisesRegex(RuntimeError, "n: expected n >= 0"):
            torch.polygamma(-1, x.to(DEVICE))

    def test_xlogy_forms_and_kl_div(self):
        x = randn(3, 4)
        x[0, :2] = 0
        y = torch.rand(4) + 0.1
        for v in views(x):
            self.forward_backward(torch.xlogy, v, y)
        special_x = torch.tensor([0.0, 0.0, 0.0, 1.0, float("nan"), 2.0])
        special_y = torch.tensor([0.0, float("nan"), -1.0, 0.0, 1.0, -1.0])
        torch.testing.assert_close(  # NaN where PyTorch's is
            torch.xlogy(special_x.to(DEVICE), special_y.to(DEVICE)).cpu(),
            torch.xlogy(special_x, special_y), equal_nan=True)
        d = x.to(DEVICE)
        self.same(torch.xlogy(d, 2.5), torch.xlogy(x, 2.5))
        self.same(torch.xlogy(d, torch.tensor(3.0)), torch.xlogy(x, 3.0))
        self.same(torch.xlogy(1.5, y.to(DEVICE)), torch.xlogy(1.5, y))
        self.same(torch.xlogy(torch.arange(4).to(DEVICE), y.to(DEVICE)),
                  torch.xlogy(torch.arange(4), y))
        d.xlogy_(y.to(DEVICE))
        self.same(d, x.clone().xlogy_(y))
        d = x.to(DEVICE)
        d.xlogy_(2.0)
        self.same(d, x.clone().xlogy_(2.0))
        out = torch.empty(0, device=DEVICE)
        torch.xlogy(x.to(DEVICE), y.to(DEVICE), out=out)
        self.same(out, torch.xlogy(x, y))
        torch.xlogy(0.5, y.to(DEVICE), out=out)
        self.same(out, torch.xlogy(0.5, y))
        logp = F.log_softmax(randn(4, 5), 1)
        target = F.softmax(randn(4, 5), 1)
        target[:, 0] = 0
        positive_target = F.softmax(randn(4, 5), 1)
        for reduction in ("batchmean", "sum", "none"):
            # target's gradient is NaN where it is 0 (0 / 0): not compared
            self.forward_backward(
                lambda a: F.kl_div(a, target.to(a.device),
                                   reduction=reduction), logp)
            self.forward_backward(
                lambda a, b: F.kl_div(a, b, reduction=reduction), logp,
                positive_target)

    def test_atan2_hypot_forms_and_backward(self):
        for a in views(randn(3, 4)):
            for b in (randn(3, 4), randn(4), torch.tensor(0.5)):
                with self.subTest(contiguous=a.is_contiguous(),
                                  b=tuple(b.shape)):
                    self.forward_backward(torch.atan2, a, b)
                    self.forward_backward(torch.hypot, a, b)
            b = positive(4) - 1
            d = a.to(DEVICE)
            d.atan2_(b.to(DEVICE))
            self.same(d, a.clone().atan2_(b))
            d.hypot_(b.to(DEVICE))
            self.same(d, a.clone().atan2_(b).hypot_(b))
            out = torch.empty(0, device=DEVICE)
            torch.hypot(a.to(DEVICE), b.to(DEVICE), out=out)
            self.same(out, torch.hypot(a, b))
            torch.atan2(a.to(DEVICE), b.to(DEVICE), out=out)
            self.same(out, torch.atan2(a, b))
        zeros = torch.tensor([0.0, -0.0, 0.0, -0.0, 1.0, float("inf")])
        other = torch.tensor([1.0, 1.0, -1.0, -1.0, 0.0, float("nan")])
        for fn in (torch.atan2, torch.hypot):
            torch.testing.assert_close(  # signed zeros, inf beside NaN
                fn(zeros.to(DEVICE), other.to(DEVICE)).cpu(),
                fn(zeros, other), equal_nan=True)
        i = torch.arange(-3, 3)
        self.same(torch.atan2(i.to(DEVICE), i.flip(0).to(DEVICE)),
                  torch.atan2(i, i.flip(0)))
        for dtype in (torch.float64, torch.bfloat16):
            a, b = randn(5, dtype=dtype), randn(5, dtype=dtype)
            self.same(torch.atan2(a.to(DEVICE), b.to(DEVICE)),
                      torch.atan2(a, b))
            self.same(torch.hypot(a.to(DEVICE), b.to(DEVICE)),
                      torch.hypot(a, b))

    def test_fmod_forms_integers_and_backward(self):
        for a in views(randn(3, 4) * 5):
            for b in (positive(3, 4) * 2, -positive(4), torch.tensor(1.5)):
                with self.subTest(contiguous=a.is_contiguous(),
                                  b=tuple(b.shape)):
                    self.forward_backward(torch.fmod, a, b)
            self.forward_backward(lambda t: torch.fmod(t, -1.25), a)
            d = a.to(DEVICE)
            d.fmod_(0.75)
            self.same(d, a.clone().fmod_(0.75))
            d.fmod_(torch.tensor([2.0, -3.0, 0.5, 1.0]).to(DEVICE))
            self.same(d, a.clone().fmod_(0.75).fmod_(
                torch.tensor([2.0, -3.0, 0.5, 1.0])))
            out = torch.empty(0, device=DEVICE)
            torch.fmod(a.to(DEVICE), 2, out=out)
            self.same(out, torch.fmod(a, 2))
        x = torch.tensor([5.5, -5.5, 1.0, float("inf"), -2.0])
        y = torch.tensor([2.0, 2.0, 0.0, 2.0, float("inf")])
        torch.testing.assert_close(torch.fmod(x.to(DEVICE), y.to(DEVICE)).cpu(),
                                   torch.fmod(x, y), equal_nan=True)
        i = torch.arange(-9, 9)
        j = torch.tensor([4, -4, 3, -3, 7, -1] * 3)
        for dtype in (torch.int64, torch.int32, torch.int8, torch.uint8):
            a, b = i.to(dtype) if dtype != torch.uint8 else i.abs(), j
            b = b.to(dtype) if dtype != torch.uint8 else b.abs().to(dtype)
            with self.subTest(dtype=dtype):
                self.same(torch.fmod(a.to(DEVICE), b.to(DEVICE)),
                          torch.fmod(a, b))
                self.same(torch.fmod(a.to(DEVICE), 3), torch.fmod(a, 3))
                self.same(torch.fmod(a.to(DEVICE), 2.5), torch.fmod(a, 2.5))
        big = torch.tensor([2 ** 62 + 5, -(2 ** 62) - 5])
        self.same(torch.fmod(big.to(DEVICE), 7), torch.fmod(big, 7))
        self.same(torch.fmod(torch.tensor([-128], dtype=torch.int8)
                             .to(DEVICE), -1),
                  torch.fmod(torch.tensor([-128], dtype=torch.int8), -1))
        # An integral fmod by zero raises, as PyTorch's CPU.
        for zero in (0, torch.tensor([1, 0]).to(DEVICE)):
            with self.assertRaisesRegex(RuntimeError, "ZeroDivisionError"):
                torch.fmod(torch.tensor([4, 5]).to(DEVICE), zero)
        with self.assertRaisesRegex(RuntimeError, "ZeroDivisionError"):
            torch.div(torch.tensor([4, 5]).to(DEVICE),
                      torch.tensor([1, 0]).to(DEVICE), rounding_mode="trunc")

    def test_div_rounding_modes(self):
        for a in views(randn(3, 4) * 5):
            b = randn(4)
            for mode in ("trunc", "floor"):
                with self.subTest(mode=mode, contiguous=a.is_contiguous()):
                    self.same(torch.div(a.to(DEVICE), b.to(DEVICE),
                                        rounding_mode=mode),
                              torch.div(a, b, rounding_mode=mode))
                    self.same(torch.div(a.to(DEVICE), -1.5, rounding_mode=mode),
                              torch.div(a, -1.5, rounding_mode=mode))
                    d = a.to(DEVICE)
                    d.div_(b.to(DEVICE), rounding_mode=mode)
                    self.same(d, a.clone().div_(b, rounding_mode=mode))
                    out = torch.empty(0, device=DEVICE)
                    torch.div(a.to(DEVICE), b.to(DEVICE), rounding_mode=mode,
                              out=out)
                    self.same(out, torch.div(a, b, rounding_mode=mode))
        i, j = torch.arange(-7, 8), torch.tensor([2, -3, 4, -5, 6] * 3)
        for mode in ("trunc", "floor"):
            self.same(torch.div(i.to(DEVICE), j.to(DEVICE), rounding_mode=mode),
                      torch.div(i, j, rounding_mode=mode))
        # remainder's backward divides with floor: it runs on the device too.
        self.forward_backward(torch.remainder, randn(3, 4) * 5,
                              positive(4) * 2)
        with self.assertRaisesRegex(RuntimeError, "rounding_mode"):
            torch.div(i.to(DEVICE), j.to(DEVICE), rounding_mode="round")

    def test_smooth_activations_forward_and_backward(self):
        for x in views(randn(4, 6) * 4):
            for fn in (F.elu, lambda t: F.elu(t, 0.5), F.selu, F.celu,
                       lambda t: F.celu(t, 2.0), F.softplus,
                       lambda t: F.softplus(t, 2.0, 3.0), F.mish,
                       F.hardsigmoid,
                       lambda t: F.elu(t * 1.0, inplace=True)):
                self.forward_backward(fn, x, rtol=1e-4, atol=1e-5)
            for fn in (lambda t: F.elu(t, inplace=True),
                       lambda t: F.mish(t, inplace=True),
                       lambda t: F.hardsigmoid(t, inplace=True)):
                d = x.to(DEVICE)
                fn(d)
                self.same(d, fn(x.clone()), 1e-4, 1e-5)

    def test_float_unary_ops_of_integral_inputs_give_float32(self):
        """Every floating unary op the bridge registers, of an integral or
        bool tensor, gives float32 computed from the integer values."""
        fns = (torch.exp, torch.expm1, torch.log, torch.log2, torch.log10,
               torch.log1p, torch.sqrt, torch.rsqrt, torch.erf, torch.erfc,
               torch.erfinv, torch.sin, torch.cos, torch.tan, torch.asin,
               torch.acos, torch.atan, torch.sinh, torch.cosh, torch.asinh,
               torch.acosh, torch.atanh, torch.reciprocal, torch.sigmoid,
               torch.tanh, torch.lgamma, torch.digamma)
        ints = torch.tensor([[-3, -1, 0], [1, 2, 7]])
        for dtype in (torch.int64, torch.int32, torch.uint8, torch.bool):
            x = ints.abs().to(dtype) if dtype == torch.uint8 else ints.to(dtype)
            for t in views(x):
                for fn in fns:
                    with self.subTest(op=fn.__name__, dtype=dtype,
                                      contiguous=t.is_contiguous()):
                        ours, cpu = fn(t.to(DEVICE)), fn(t)
                        self.assertEqual(ours.dtype, torch.float32)
                        torch.testing.assert_close(ours.cpu(), cpu, rtol=1e-5,
                                                   atol=1e-5, equal_nan=True)
        for fn in ("sigmoid_", "tanh_", "exp_", "sqrt_"):
            with self.subTest(op=fn), \
                    self.assertRaisesRegex(RuntimeError, "can't be cast"):
                getattr(ints.to(DEVICE), fn)()

    def test_clamp_promotes_with_its_bounds(self):
        u = torch.tensor([1, 200, 3, 90], dtype=torch.uint8)
        for t in views(u):
            lo, hi = torch.tensor([3]), torch.tensor([100])
            with self.subTest(contiguous=t.is_contiguous()):
                self.same(torch.clamp(t.to(DEVICE), lo.to(DEVICE),
                                      hi.to(DEVICE)), torch.clamp(t, lo, hi))
                self.same(torch.clamp(t.to(DEVICE), 3, 100),
                          torch.clamp(t, 3, 100))
                self.same(torch.clamp(t.to(DEVICE), 2.5),
                          torch.clamp(t, 2.5))
                self.same(torch.clamp(t.to(DEVICE), max=torch.tensor(50.0)),
                          torch.clamp(t, max=torch.tensor(50.0)))
                d = t.to(DEVICE)
                d.clamp_(lo.to(DEVICE))
                self.same(d, t.clone().clamp_(lo))
        b = torch.tensor([True, False, True])
        self.same(torch.clamp(b.to(DEVICE), 0, 1), torch.clamp(b, 0, 1))
        self.same(torch.clamp(b.to(DEVICE), torch.tensor([0]).to(DEVICE)),
                  torch.clamp(b, torch.tensor([0])))
        with self.assertRaisesRegex(RuntimeError, "Bool"):
            torch.clamp(b.to(DEVICE), torch.tensor([False]).to(DEVICE))
        with self.assertRaisesRegex(RuntimeError, "can't be cast"):
            torch.tensor([1, 2]).to(DEVICE).clamp_(0.5)
        x = randn(3, 4)
        self.same(torch.clamp(x.to(DEVICE), torch.tensor(0.5,
                                                         dtype=torch.float64)),
                  torch.clamp(x, torch.tensor(0.5, dtype=torch.float64)))

    def test_floor_divide_forms(self):
        for a in views(randn(3, 4) * 5):
            b = randn(4)
            with self.subTest(contiguous=a.is_contiguous()):
                self.same(torch.floor_divide(a.to(DEVICE), b.to(DEVICE)),
                          torch.floor_divide(a, b))
                self.same(torch.floor_divide(a.to(DEVICE), -1.5),
                          torch.floor_divide(a, -1.5))
                self.same(a.to(DEVICE) // 0.7, a // 0.7)
                d = a.to(DEVICE)
                d.floor_divide_(b.to(DEVICE)).floor_divide_(2)
                self.same(d, a.clone().floor_divide_(b).floor_divide_(2))
                out = torch.empty(0, device=DEVICE)
                torch.floor_divide(a.to(DEVICE), b.to(DEVICE), out=out)
                self.same(out, torch.floor_divide(a, b))
        i, j = torch.arange(-7, 8), torch.tensor([2, -3, 4, -5, 6] * 3)
        self.same(torch.floor_divide(i.to(DEVICE), j.to(DEVICE)),
                  torch.floor_divide(i, j))
        self.same(i.to(DEVICE) // 3, i // 3)
        u = torch.tensor([7, 200, 9], dtype=torch.uint8)
        self.same(u.to(DEVICE) // 2, u // 2)
        with self.assertRaisesRegex(RuntimeError, "ZeroDivisionError"):
            torch.floor_divide(i.to(DEVICE), 0)

    def test_threshold_forms_and_backward(self):
        for x in views(randn(4, 5)):
            with self.subTest(contiguous=x.is_contiguous()):
                self.forward_backward(lambda t: F.threshold(t, 0.1, 20.0), x)
                self.forward_backward(
                    lambda t: torch.threshold(t * 1.0, -0.5, -3.0), x)
                d = x.to(DEVICE)
                F.threshold(d, 0.2, -1.0, inplace=True)
                self.same(d, F.threshold(x, 0.2, -1.0))
                out = torch.empty(0, device=DEVICE)
                torch.threshold(x.to(DEVICE), 0.0, 5.0, out=out)
                self.same(out, torch.threshold(x, 0.0, 5.0))
        i = torch.arange(-4, 5)
        self.same(F.threshold(i.to(DEVICE), 1, 9), F.threshold(i, 1, 9))

    def test_bitwise_xor_forms(self):
        big = 2 ** 60 + 1
        for dtype in (torch.int64, torch.int32, torch.int8, torch.uint8,
                      torch.bool):
            a = torch.randint(0, 2 if dtype == torch.bool else 100, (3, 4))
            b = torch.randint(0, 2 if dtype == torch.bool else 100, (4,))
            a, b = a.to(dtype), b.to(dtype)
            s = True if dtype == torch.bool else 5
            for t in views(a):
                with self.subTest(dtype=dtype, contiguous=t.is_contiguous()):
                    self.same(torch.bitwise_xor(t.to(DEVICE), b.to(DEVICE)),
                              torch.bitwise_xor(t, b))
                    self.same(t.to(DEVICE) ^ s, t ^ s)
                    d = t.to(DEVICE)
                    d ^= b.to(DEVICE)
                    d.bitwise_xor_(s)
                    self.same(d, (t ^ b) ^ s)
                    out = torch.empty(0, dtype=dtype, device=DEVICE)
                    torch.bitwise_xor(t.to(DEVICE), b.to(DEVICE), out=out)
                    self.same(out, torch.bitwise_xor(t, b))
                    torch.bitwise_xor(t.to(DEVICE), s, out=out)
                    self.same(out, torch.bitwise_xor(t, s))
        x = torch.tensor([big, -big, -1])
        self.same(x.to(DEVICE) ^ torch.tensor([1, big, big]).to(DEVICE),
                  x ^ torch.tensor([1, big, big]))
        self.same(torch.tensor([1, 2], dtype=torch.uint8).to(DEVICE)
                  ^ torch.tensor([3, 4]).to(DEVICE),
                  torch.tensor([1, 2], dtype=torch.uint8)
                  ^ torch.tensor([3, 4]))

    def test_copysign_forms_signs_and_backward(self):
        for a in views(randn(3, 4) * 3):
            for b in (randn(3, 4), randn(4), torch.tensor(-0.0)):
                with self.subTest(contiguous=a.is_contiguous(),
                                  b=tuple(b.shape)):
                    self.forward_backward(torch.copysign, a, b)
            self.forward_backward(lambda t: torch.copysign(t, -0.0), a)
            d = a.to(DEVICE)
            d.copysign_(-1).copysign_(torch.tensor([1.0, -0.0, 0.0, -2.0])
                                       .to(DEVICE))
            self.same(d, a.clone().copysign_(-1).copysign_(
                torch.tensor([1.0, -0.0, 0.0, -2.0])))
            out = torch.empty(0, device=DEVICE)
            torch.copysign(a.to(DEVICE), -2.0, out=out)
            self.same(out, torch.copysign(a, -2.0))
        nan = float("nan")
        x = torch.tensor([1.0, 2.0, 0.0, nan, float("inf"), -3.0])
        y = torch.tensor([-0.0, -nan, -1.0, -1.0, -0.0, nan])
        ours, cpu = torch.copysign(x.to(DEVICE), y.to(DEVICE)).cpu(), \
            torch.copysign(x, y)
        torch.testing.assert_close(ours, cpu, equal_nan=True)
        self.assertEqual(torch.signbit(ours).tolist(),
                         torch.signbit(cpu).tolist())
        i = torch.tensor([3, -4, 0])
        self.same(torch.copysign(i.to(DEVICE), -1), torch.copysign(i, -1))
        self.same(torch.copysign(i.to(DEVICE), torch.tensor([-1, 1, -1])
                                 .to(DEVICE)),
                  torch.copysign(i, torch.tensor([-1, 1, -1])))

    def test_fmax_fmin_ignore_nan_forms_and_backward(self):
        nan = float("nan")
        a = torch.tensor([[1.0, nan, nan, -2.0], [0.5, 3.0, nan, -1.0]])
        b = torch.tensor([nan, -2.0, nan, 5.0])
        for t in views(a):
            for fn in (torch.fmax, torch.fmin):
                with self.subTest(op=fn.__name__,
                                  contiguous=t.is_contiguous()):
                    torch.testing.assert_close(
                        fn(t.to(DEVICE), b.to(DEVICE)).cpu(), fn(t, b),
                        equal_nan=True)
                    out = torch.empty(0, device=DEVICE)
                    fn(t.to(DEVICE), b.to(DEVICE), out=out)
                    torch.testing.assert_close(out.cpu(), fn(t, b),
                                               equal_nan=True)
        for x in views(randn(3, 4)):
            self.forward_backward(torch.fmax, x, randn(4))
            self.forward_backward(torch.fmin, x, randn(3, 4))
        i, j = torch.tensor([2 ** 60 + 1, -5, 7]), torch.tensor([2 ** 60, 3, 7])
        self.same(torch.fmax(i.to(DEVICE), j.to(DEVICE)), torch.fmax(i, j))
        self.same(torch.fmin(i.to(DEVICE), j.to(DEVICE)), torch.fmin(i, j))

    def test_nan_to_num_defaults_forms(self):
        nan, inf = float("nan"), float("inf")
        x = torch.tensor([[nan, inf, -inf, 1.5], [-0.5, nan, 3.0, -inf]])
        for dtype in (torch.float32, torch.float64, torch.float16):
            for t in views(x.to(dtype)):
                with self.subTest(dtype=dtype, contiguous=t.is_contiguous()):
                    self.same(torch.nan_to_num(t.to(DEVICE)),
                              torch.nan_to_num(t))
                    self.same(torch.nan_to_num(t.to(DEVICE), 1.0, 2.0, -3.0),
                              torch.nan_to_num(t, 1.0, 2.0, -3.0))
                    self.same(torch.nan_to_num(t.to(DEVICE), posinf=9.0),
                              torch.nan_to_num(t, posinf=9.0))
                    d = t.to(DEVICE)
                    d.nan_to_num_(neginf=-1.0)
                    self.same(d, t.clone().nan_to_num_(neginf=-1.0))
                    out = torch.empty(0, dtype=dtype, device=DEVICE)
                    torch.nan_to_num(t.to(DEVICE), nan=4.0, out=out)
                    self.same(out, torch.nan_to_num(t, nan=4.0))
        self.forward_backward(torch.nan_to_num, randn(3, 4))
        i = torch.tensor([-(2 ** 62), 0, 2 ** 62])
        self.same(torch.nan_to_num(i.to(DEVICE)), torch.nan_to_num(i))

    def test_log_sigmoid_forward_and_backward(self):
        for x in views(randn(4, 6) * 10):
            with self.subTest(contiguous=x.is_contiguous()):
                self.forward_backward(F.logsigmoid, x, rtol=1e-5, atol=1e-6)
                out = torch.empty(0, device=DEVICE)
                torch._C._nn.log_sigmoid(x.to(DEVICE), out=out)
                self.same(out, F.logsigmoid(x))
        extremes = torch.tensor([-200.0, -30.0, 0.0, 30.0, 200.0])
        self.forward_backward(F.logsigmoid, extremes)
        self.forward_backward(F.logsigmoid, extremes.double())
        self.forward_backward(lambda t: torch.nn.LogSigmoid()(t), randn(5))


class ReductionPeerTest(PeerTest):
    def test_max_min_amax_argmin(self):
        for x in views(randn(3, 4, 5)):
            d = x.to(DEVICE)
            self.same(d.max(), x.max())
            self.same(d.min(), x.min())
            for dim, keep in ((0, False), (2, True), (-1, False)):
                for ours, cpu in zip(d.max(dim, keep), x.max(dim, keep)):
                    self.same(ours, cpu)
                for ours, cpu in zip(d.min(dim, keep), x.min(dim, keep)):
                    self.same(ours, cpu)
            self.same(d.amax((0, 2)), x.amax((0, 2)))
            self.same(d.amax(1, keepdim=True), x.amax(1, keepdim=True))
            self.same(d.argmin(), x.argmin())
            self.same(d.argmin(1, keepdim=True), x.argmin(1, keepdim=True))
        self.forward_backward(lambda t: t.max(1)[0], randn(4, 5))
        self.forward_backward(lambda t: t.amax(0), randn(4, 5))

    def test_any_all_cumsum_norms(self):
        for x in views(randn(3, 6)):
            d = x.to(DEVICE)
            self.same((d > 0).any(), (x > 0).any())
            self.same((d > -3).all(), (x > -3).all())
            self.same((d > 0).any(1), (x > 0).any(1))
            self.same((d > 0).all(0, keepdim=True), (x > 0).all(0, keepdim=True))
            self.forward_backward(lambda t: torch.cumsum(t, 1), x)
            self.forward_backward(lambda t: torch.cumsum(t, 0), x)
            for ord_ in (2, 1, float("inf")):
                self.forward_backward(
                    lambda t: torch.linalg.vector_norm(t, ord_), x,
                    rtol=1e-4, atol=1e-5)
            self.forward_backward(lambda t: t.norm(dim=1), x, rtol=1e-4,
                                  atol=1e-5)
        i = torch.arange(10)
        self.same(torch.cumsum(i.to(DEVICE), 0), torch.cumsum(i, 0))

    def test_amin_forms_and_amax_out(self):
        for x in views(randn(3, 4, 5)):
            d = x.to(DEVICE)
            with self.subTest(contiguous=x.is_contiguous()):
                self.same(d.amin(), x.amin())
                self.same(d.amin((0, 2)), x.amin((0, 2)))
                self.same(d.amin(-1, keepdim=True), x.amin(-1, keepdim=True))
                for fn in (torch.amin, torch.amax):
                    out = torch.empty(0, device=DEVICE)
                    fn(d, 1, out=out)
                    self.same(out, fn(x, 1))
                    fn(d, (0, 1), True, out=out)
                    self.same(out, fn(x, (0, 1), True))
        i = torch.tensor([[2 ** 60 + 1, -3], [2 ** 60, 9]])
        self.same(i.to(DEVICE).amin(0), i.amin(0))
        self.forward_backward(lambda t: t.amin(0), randn(4, 5))
        ties = torch.tensor([[1.0, 1.0, 2.0], [0.0, 3.0, 0.0]])
        self.forward_backward(lambda t: t.amin(1), ties)

    def test_any_all_of_uint8_give_uint8(self):
        u = torch.tensor([[0, 3, 0], [0, 0, 0]], dtype=torch.uint8)
        for t in views(u):
            d = t.to(DEVICE)
            with self.subTest(contiguous=t.is_contiguous()):
                self.same(d.any(), t.any())
                self.same(d.all(), t.all())
                self.same(d.any(1), t.any(1))
                self.same(d.all(0, keepdim=True), t.all(0, keepdim=True))
        i = torch.tensor([[0, 3], [1, 2]])
        self.same(i.to(DEVICE).any(0), i.any(0))
        self.same(i.to(DEVICE).all(), i.all())

    def test_cumprod_forms_integers_and_backward(self):
        for x in views(randn(3, 6)):
            with self.subTest(contiguous=x.is_contiguous()):
                self.forward_backward(lambda t: torch.cumprod(t, 1), x,
                                      rtol=1e-4, atol=1e-5)
                self.forward_backward(lambda t: torch.cumprod(t, 0), x)
                out = torch.empty(0, device=DEVICE)
                torch.cumprod(x.to(DEVICE), -1, out=out)
                self.same(out, torch.cumprod(x, -1), 1e-4, 1e-5)
                self.same(torch.cumprod(x.to(DEVICE), 1, dtype=torch.float64),
                          torch.cumprod(x, 1, dtype=torch.float64))
        zeros = torch.tensor([[2.0, 0.0, 3.0, 0.5], [0.0, 0.0, 1.5, -2.0]])
        self.forward_backward(lambda t: torch.cumprod(t, 1), zeros)
        i = torch.tensor([3, 2 ** 40, -(2 ** 30), 7, 5])
        self.same(torch.cumprod(i.to(DEVICE), 0), torch.cumprod(i, 0))
        u = torch.tensor([200, 3, 2], dtype=torch.uint8)
        self.same(torch.cumprod(u.to(DEVICE), 0), torch.cumprod(u, 0))
        self.same(torch.cumprod(u.to(DEVICE), 0, dtype=torch.uint8),
                  torch.cumprod(u, 0, dtype=torch.uint8))

    def test_nansum_and_count_nonzero(self):
        nan = float("nan")
        x = torch.tensor([[1.0, nan, 2.5, -1.0], [nan, nan, 4.0, float("inf")],
                          [0.0, 3.0, -2.0, 1.0]])
        for t in views(x):
            d = t.to(DEVICE)
            with self.subTest(contiguous=t.is_contiguous()):
                self.same(d.nansum(), t.nansum())
                self.same(d.nansum(1), t.nansum(1))
                self.same(d.nansum((0, 1), keepdim=True),
                          t.nansum((0, 1), keepdim=True))
                self.same(d.nansum(0, dtype=torch.float64),
                          t.nansum(0, dtype=torch.float64))
                out = torch.empty(0, device=DEVICE)
                torch.nansum(d, 0, out=out)
                self.same(out, torch.nansum(t, 0))
                self.same(torch.count_nonzero(d), torch.count_nonzero(t))
                self.same(torch.count_nonzero(d, 1), torch.count_nonzero(t, 1))
                self.same(torch.count_nonzero(d, (0, 1)),
                          torch.count_nonzero(t, (0, 1)))
        self.forward_backward(lambda t: t.nansum(1), x)
        i = torch.tensor([[2 ** 60, 0, 3], [0, 0, -1]])
        self.same(i.to(DEVICE).nansum(), i.nansum())
        self.same(torch.count_nonzero(i.to(DEVICE), 0),
                  torch.count_nonzero(i, 0))
        b = torch.tensor([True, False, True])
        self.same(torch.count_nonzero(b.to(DEVICE)), torch.count_nonzero(b))

    def test_prod_std_var_logsumexp(self):
        for x in views(positive(3, 5)):
            d = x.to(DEVICE)
            self.same(d.prod(), x.prod(), 1e-4, 1e-5)
            self.same(d.prod(1), x.prod(1), 1e-4, 1e-5)
            self.same(d.prod(0, keepdim=True), x.prod(0, keepdim=True),
                      1e-4, 1e-5)
            self.forward_backward(lambda t: t.std(1), x, rtol=1e-4, atol=1e-5)
            self.forward_backward(lambda t: t.var(0, unbiased=False), x,
                                  rtol=1e-4, atol=1e-5)
            self.forward_backward(lambda t: t.var(), x, rtol=1e-4, atol=1e-5)
            self.forward_backward(lambda t: torch.var(t, 1, correction=2), x,
                                  rtol=1e-4, atol=1e-5)
            for fn in (torch.var_mean, torch.std_mean):
                for args in ((1,), ((0, 1),), ()):
                    with self.subTest(op=fn.__name__, args=args):
                        self.forward_backward(
                            lambda t: torch.stack(fn(t, *args)), x,
                            rtol=1e-4, atol=1e-5)
            self.forward_backward(lambda t: torch.logsumexp(t, 1), x,
                                  rtol=1e-4, atol=1e-5)
        i = torch.arange(1, 7).reshape(2, 3)
        self.same(i.to(DEVICE).prod(1), i.prod(1))

    def test_topk_and_sort(self):
        for x in views(randn(4, 9)):
            d = x.to(DEVICE)
            for largest in (True, False):
                for ours, cpu in zip(d.topk(3, largest=largest),
                                     x.topk(3, largest=largest)):
                    self.same(ours, cpu)
            for desc in (False, True):
                for ours, cpu in zip(d.sort(1, descending=desc),
                                     x.sort(1, descending=desc)):
                    self.same(ours, cpu)
            for ours, cpu in zip(d.sort(dim=0, stable=True),
                                 x.sort(dim=0, stable=True)):
                self.same(ours, cpu)
        self.forward_backward(lambda t: t.topk(2, dim=0)[0], randn(5, 3))
        self.forward_backward(lambda t: t.sort(1)[0], randn(3, 5))


    def test_median_kthvalue_ties_nans_and_backward(self):
        # Few distinct values: ties everywhere, so the indices are PyTorch's
        # tie rules, not chance.
        ties = torch.randint(0, 4, (6, 9)).float()
        ties[1, 3] = ties[4, 0] = ties[4, 7] = float("nan")
        for x in views(ties) + [ties.t()]:
            for dim in (0, 1, -1):
                for keepdim in (False, True):
                    with self.subTest(dim=dim, keepdim=keepdim,
                                      contiguous=x.is_contiguous()):
                        self.same_pair(torch.median(x.to(DEVICE), dim, keepdim),
                                       torch.median(x, dim, keepdim))
                        for k in (1, 3, x.shape[dim]):
                            self.same_pair(
                                torch.kthvalue(x.to(DEVICE), k, dim, keepdim),
                                torch.kthvalue(x, k, dim, keepdim))
        for x in (ties, ties[0], torch.arange(10.0), torch.tensor(2.5)):
            for fn in (torch.median, torch.nanmedian):
                torch.testing.assert_close(fn(x.to(DEVICE)).cpu(), fn(x),
                                           equal_nan=True)
        # nanmedian: lines with some NaNs, and lines of NaNs alone, whose
        # index is where the CPU's std::nth_element leaves it.
        nans = torch.randint(0, 3, (40, 33)).float()
        nans[torch.rand(40, 33) < 0.3] = float("nan")
        for n in range(1, 41):
            nans[n - 1, :n] = float("nan")
        for x in (nans, nans.t()):
            for dim in (0, 1):
                for keepdim in (False, True):
                    self.same_pair(
                        torch.nanmedian(x.to(DEVICE), dim, keepdim),
                        torch.nanmedian(x, dim, keepdim))
        torch.testing.assert_close(
            torch.nanmedian(nans[:5, :5].to(DEVICE)).cpu(),
            torch.nanmedian(nans[:5, :5]), equal_nan=True)
        i = torch.randint(-5, 5, (4, 7))
        self.same(torch.median(i.to(DEVICE)), torch.median(i))
        self.same_pair(torch.median(i.to(DEVICE), 1), torch.median(i, 1))
        self.same_pair(torch.kthvalue(i.to(DEVICE), 5), torch.kthvalue(i, 5))
        values = torch.empty(0, device=DEVICE)
        indices = torch.empty(0, dtype=torch.long, device=DEVICE)
        torch.median(ties.to(DEVICE), 0, out=(values, indices))
        self.same_pair((values, indices), torch.median(ties, 0))
        torch.kthvalue(ties.to(DEVICE), 2, 1, True, out=(values, indices))
        self.same_pair((values, indices), torch.kthvalue(ties, 2, 1, True))
        x = randn(5, 8)  # distinct values: each gradient is well defined
        for v in views(x):
            self.forward_backward(lambda t: torch.median(t, 1).values, v)
            self.forward_backward(lambda t: torch.kthvalue(t, 3, 0).values, v)
            self.forward_backward(torch.median, v)
            self.forward_backward(lambda t: torch.nanmedian(t, 0).values, v)

    def test_cummax_cummin_ties_nans_and_backward(self):
        ties = torch.randint(0, 3, (5, 8)).float()
        ties[2, 4] = ties[3, 0] = float("nan")
        for x in views(ties) + [ties.t()]:
            for dim in (0, 1, -1):
                for fn in (torch.cummax, torch.cummin):
                    with self.subTest(op=fn.__name__, dim=dim,
                                      contiguous=x.is_contiguous()):
                        self.same_pair(fn(x.to(DEVICE), dim), fn(x, dim))
        i = torch.randint(-3, 3, (3, 6))
        self.same_pair(torch.cummax(i.to(DEVICE), 1), torch.cummax(i, 1))
        self.same_pair(torch.cummin(torch.tensor(1.5).to(DEVICE), 0),
                       torch.cummin(torch.tensor(1.5), 0))
        for v in views(randn(4, 6)):
            self.forward_backward(lambda t: torch.cummax(t, 1).values, v)
            self.forward_backward(lambda t: torch.cummin(t, 0).values, v)

    def test_unique_sorted_inverse_counts_and_dims(self):
        x = torch.randint(-3, 4, (5, 6))
        empty = torch.tensor([], dtype=torch.long)
        for t in views(x) + [x.float(), x > 0, empty]:
            for inverse in (False, True):
                for counts in (False, True):
                    with self.subTest(dtype=t.dtype, inverse=inverse,
                                      counts=counts):
                        ours = torch.unique(t.to(DEVICE),
                                            return_inverse=inverse,
                                            return_counts=counts)
                        cpu = torch.unique(t, return_inverse=inverse,
                                           return_counts=counts)
                        for o, c in zip(ours if isinstance(ours, tuple)
                                        else (ours,),
                                        cpu if isinstance(cpu, tuple)
                                        else (cpu,)):
                            self.same(o, c)
        # sorted=False: PyTorch leaves the order unspecified (its CPU's is a
        # hash set's); ours is sorted, the same set.
        self.same(torch.unique(x.to(DEVICE), sorted=False),
                  torch.unique(x, sorted=False).sort().values)
        rows = torch.tensor([[1, 2], [0, 5], [1, 2], [0, 4]])
        for dim in (0, 1, -1):
            ours = torch.unique(rows.to(DEVICE), dim=dim, return_inverse=True,
                                return_counts=True)
            for o, c in zip(ours, torch.unique(rows, dim=dim,
                                               return_inverse=True,
                                               return_counts=True)):
                self.same(o, c)

    def same_pair(self, ours, cpu):
        """(values, indices) equal, NaN where PyTorch's is."""
        self.assertEqual(ours[0].device, torch.device(DEVICE))
        self.assertEqual(ours[0].shape, cpu[0].shape)
        torch.testing.assert_close(ours[0].cpu(), cpu[0], equal_nan=True)
        self.assertTrue(torch.equal(ours[1].cpu(), cpu[1]))


class IndexingPeerTest(PeerTest):
    def test_index_select_gather_scatter(self):
        for x in views(randn(5, 6)):
            idx = torch.tensor([4, 0, 2, 2])
            d = x.to(DEVICE)
            self.same(d.index_select(0, idx.to(DEVICE)), x.index_select(0, idx))
            self.same(d.index_select(1, idx.to(DEVICE)), x.index_select(1, idx))
            g = torch.randint(0, 6, (5, 3))
            self.forward_backward(lambda t: t.gather(1, g.to(t.device)), x)
            src = randn(5, 3)
            self.same(d.scatter(1, g.to(DEVICE), src.to(DEVICE)),
                      x.scatter(1, g, src))
            self.same(d.scatter(1, g.to(DEVICE), 7.0), x.scatter(1, g, 7.0))
            self.same(d.scatter_add(1, g.to(DEVICE), src.to(DEVICE)),
                      x.scatter_add(1, g, src))
            # index_select's backward is index_add_.
            self.forward_backward(
                lambda t: t.index_select(1, idx.to(t.device)), x)
            for alpha in (1, 0.5):
                self.same(d.index_add(1, idx.to(DEVICE),
                                      torch.ones(5, 4).to(DEVICE),
                                      alpha=alpha),
                          x.index_add(1, idx, torch.ones(5, 4), alpha=alpha))
        self.same(F.one_hot(torch.tensor([2, 0, 1]).to(DEVICE), 4),
                  F.one_hot(torch.tensor([2, 0, 1]), 4))

    def test_advanced_indexing_and_index_put(self):
        for x in views(randn(5, 4)):
            rows = torch.tensor([3, 1, 1])
            mask = x > 0
            self.forward_backward(lambda t: t[rows.to(t.device)], x)
            self.forward_backward(lambda t: t[:, rows.to(t.device)], x)
            self.forward_backward(lambda t: t[mask.to(t.device)], x)
            d = x.to(DEVICE)
            d[rows.to(DEVICE)] = 0.5
            expected = x.clone()
            expected[rows] = 0.5
            self.same(d, expected)
            d = x.to(DEVICE)
            d.index_put_((rows.to(DEVICE),), randn(4).to(DEVICE) * 0 + 1,
                         accumulate=True)
            expected = x.clone().index_put_((rows,), torch.ones(4),
                                            accumulate=True)
            self.same(d, expected)
            self.same(torch.masked_select(d, d > 0),
                      torch.masked_select(expected, expected > 0))
            self.same(torch.nonzero(d > 0), torch.nonzero(expected > 0))

    def test_embedding_forward_and_backward(self):
        weight = randn(10, 4)
        ids = torch.tensor([[1, 4, 4], [9, 0, 1]])
        self.forward_backward(lambda w: F.embedding(ids.to(w.device), w),
                              weight)
        self.forward_backward(lambda w: F.embedding(ids.to(w.device), w,
                                                    padding_idx=4), weight)

    def test_embedding_bag_modes_offsets_and_backward(self):
        ids = torch.tensor([1, 4, 4, 9, 0, 1, 7, 4])
        offsets = torch.tensor([0, 3, 3, 5])
        psw = torch.rand(8) + 0.5
        for weight in views(randn(10, 4)):
            for mode in ("sum", "mean", "max"):
                for padding_idx in (None, 4):
                    for last in (False, True):
                        off = torch.cat([offsets, torch.tensor([8])]) \
                            if last else offsets
                        with self.subTest(mode=mode, padding_idx=padding_idx,
                                          include_last_offset=last,
                                          contiguous=weight.is_contiguous()):
                            self.forward_backward(
                                lambda w: F.embedding_bag(
                                    ids.to(w.device), w, off.to(w.device),
                                    mode=mode, padding_idx=padding_idx,
                                    include_last_offset=last), weight)
            for padding_idx in (None, 4):  # per-sample weights (sum only)
                self.forward_backward(
                    lambda w, p: F.embedding_bag(ids.to(w.device), w,
                                                 offsets.to(w.device),
                                                 mode="sum",
                                                 per_sample_weights=p,
                                                 padding_idx=padding_idx),
                    weight, psw)
            # 2-d input: fixed-size bags. With scale_grad_by_freq torch
            # 1.13's CPU divides by the wrong index's count (pytorch issue
            # 190063): the peer is embedding's, which divides each row's
            # gradient by its own count, as CUDA's embedding_bag does.
            self.forward_backward(
                lambda w: F.embedding_bag(ids.view(2, 4).to(w.device), w,
                                          mode="mean",
                                          scale_grad_by_freq=True)
                if w.device.type != "cpu" else
                F.embedding(ids.view(2, 4), w, scale_grad_by_freq=True)
                .mean(1), weight)
        with torch.no_grad():  # _embedding_bag_forward_only
            weight = randn(10, 4)
            self.same(F.embedding_bag(ids.to(DEVICE), weight.to(DEVICE),
                                      offsets.to(DEVICE), mode="max"),
                      F.embedding_bag(ids, weight, offsets, mode="max"))

    def test_flip_roll_triangles_arange(self):
        for x in views(randn(4, 5)):
            self.forward_backward(lambda t: t.flip(1), x)
            self.forward_backward(lambda t: t.flip((0, 1)), x)
            self.forward_backward(lambda t: t.roll(2, 1), x)
            self.forward_backward(lambda t: t.roll((1, -1), (0, 1)), x)
            self.forward_backward(torch.tril, x)
            self.forward_backward(lambda t: torch.triu(t, 1), x)
        self.same(torch.arange(7, device=DEVICE), torch.arange(7))
        self.same(torch.arange(1.0, 2.0, 0.25, device=DEVICE),
                  torch.arange(1.0, 2.0, 0.25))

    def test_eye(self):
        self.same(torch.eye(4, device=DEVICE), torch.eye(4))
        for n, m in ((3, 5), (5, 3), (0, 2)):
            self.same(torch.eye(n, m, device=DEVICE), torch.eye(n, m))
        self.same(torch.eye(3, dtype=torch.int64, device=DEVICE),
                  torch.eye(3, dtype=torch.int64))
        wide = torch.full((4, 10), 7.0)
        dev_wide = wide.to(DEVICE)
        torch.eye(4, 5, out=dev_wide[:, ::2])  # a non-contiguous out
        torch.eye(4, 5, out=wide[:, ::2])
        self.same(dev_wide, wide)
        out = torch.empty(0, device=DEVICE)
        torch.eye(2, 3, out=out)
        self.same(out, torch.eye(2, 3))


def baddbmm_beta_zero_on_device(c, a, b):
    """baddbmm with beta 0 on the device; on the CPU the same value without
    it: torch 1.13's CPU baddbmm multiplies its uninitialized result by beta
    when beta is 0 (NaN * 0 is NaN), so it returns NaN now and then."""
    if c.device.type == "cpu":
        return torch.bmm(a, b) + c * 0
    return torch.baddbmm(c, a, b, beta=0)


class ShapePeerTest(PeerTest):
    def test_unfold_is_a_view_and_repeat_copies(self):
        x = randn(4, 6)
        d = x.to(DEVICE)
        u = d.unfold(1, 2, 2)
        self.assertEqual(u.storage().data_ptr(), d.storage().data_ptr())
        self.same(u, x.unfold(1, 2, 2))
        self.forward_backward(lambda t: t.repeat(2, 3), x)
        self.forward_backward(lambda t: t.t().repeat(1, 2, 1), x)

    def test_baddbmm(self):
        for beta, alpha in ((1, 1), (0.5, 2.0)):
            self.forward_backward(
                lambda c, a, b: torch.baddbmm(c, a, b, beta=beta, alpha=alpha),
                randn(2, 3, 5), randn(2, 3, 4), randn(2, 4, 5),
                rtol=1e-4, atol=1e-5)
        self.forward_backward(
            baddbmm_beta_zero_on_device, randn(2, 3, 5), randn(2, 3, 4),
            randn(2, 4, 5), rtol=1e-4, atol=1e-5)
        c, a, b = randn(2, 3, 5), randn(2, 3, 4), randn(2, 4, 5)
        d = c.to(DEVICE)
        d.baddbmm_(a.to(DEVICE), b.to(DEVICE), alpha=0.5)
        self.same(d, c.clone().baddbmm_(a, b, alpha=0.5), 1e-4, 1e-5)

    def test_addmv_and_mv(self):
        for beta, alpha in ((1, 1), (0.5, -2.0)):
            for c in (randn(5), randn(1)):
                self.forward_backward(
                    lambda c, m, v: torch.addmv(c, m, v, beta=beta,
                                                alpha=alpha),
                    c, randn(5, 4), randn(4), rtol=1e-4, atol=1e-5)
        m = randn(4, 5).t()  # a transposed matrix
        for v in views(randn(4)):
            self.forward_backward(torch.mv, m, v, rtol=1e-4, atol=1e-5)
        c, m, v = randn(5), randn(5, 3), randn(3)
        d = c.to(DEVICE)
        d.addmv_(m.to(DEVICE), v.to(DEVICE), beta=0.5)
        self.same(d, c.clone().addmv_(m, v, beta=0.5), 1e-4, 1e-5)
        out = torch.empty(0, device=DEVICE)
        torch.addmv(c.to(DEVICE), m.to(DEVICE), v.to(DEVICE), out=out)
        self.same(out, torch.addmv(c, m, v), 1e-4, 1e-5)

    def test_addbmm(self):
        for beta, alpha in ((1, 1), (0.5, 2.0)):
            for c in (randn(3, 5), randn(5)):
                self.forward_backward(
                    lambda c, a, b: torch.addbmm(c, a, b, beta=beta,
                                                 alpha=alpha),
                    c, randn(2, 3, 4), randn(2, 4, 5), rtol=1e-4, atol=1e-5)
        c, a, b = randn(3, 5), randn(2, 3, 4), randn(2, 4, 5)
        d = c.to(DEVICE)
        d.addbmm_(a.to(DEVICE), b.to(DEVICE), alpha=0.5)
        self.same(d, c.clone().addbmm_(a, b, alpha=0.5), 1e-4, 1e-5)
        out = torch.empty(0, device=DEVICE)
        torch.addbmm(c.to(DEVICE), a.to(DEVICE), b.to(DEVICE), out=out)
        self.same(out, torch.addbmm(c, a, b), 1e-4, 1e-5)

    def test_beta_zero_ignores_nan_and_inf_in_input(self):
        # PyTorch's rule: with beta 0, input is not read, so NaN and Inf
        # there do not reach the result.
        a, b = randn(2, 3, 4), randn(2, 4, 5)
        bad = torch.full((2, 3, 5), float("nan"))
        bad[1] = float("inf")
        ad, bd = a.to(DEVICE), b.to(DEVICE)
        self.same(torch.baddbmm(bad.to(DEVICE), ad, bd, beta=0),
                  torch.bmm(a, b), 1e-4, 1e-5)
        d = bad.to(DEVICE)
        d.baddbmm_(ad, bd, beta=0, alpha=2)
        self.same(d, 2 * torch.bmm(a, b), 1e-4, 1e-5)
        self.same(torch.addmm(bad[0].to(DEVICE), ad[0], bd[0], beta=0),
                  a[0] @ b[0], 1e-4, 1e-5)
        self.same(torch.addmm(bad[1, 0].to(DEVICE), ad[0], bd[0], beta=0),
                  a[0] @ b[0], 1e-4, 1e-5)  # a broadcast row of Inf
        self.same(torch.addmv(bad[0, :, 0].to(DEVICE), ad[0], bd[0, :, 0],
                              beta=0), a[0] @ b[0, :, 0], 1e-4, 1e-5)
        self.same(torch.addbmm(bad[0].to(DEVICE), ad, bd, beta=0),
                  torch.bmm(a, b).sum(0), 1e-4, 1e-5)


class NnPeerTest(PeerTest):
    def test_transposed_convolution(self):
        for stride, padding, out_pad, groups in ((1, 0, 0, 1), (2, 1, 1, 1),
                                                 (2, 0, 0, 2)):
            self.forward_backward(
                lambda x, w, b: F.conv_transpose2d(
                    x, w, b, stride=stride, padding=padding,
                    output_padding=out_pad, groups=groups),
                randn(2, 4, 5, 4), randn(4, 6 // groups, 3, 3), randn(6),
                rtol=1e-4, atol=1e-4)

    def test_recurrent_layers(self):
        """The fused RNN cells decompose into ops on column blocks of one
        gate buffer (GRU: an in-place mul of one block by its neighbour):
        outputs and the gradients of input and weights match the CPU's."""
        for cell in (torch.nn.RNN, torch.nn.LSTM, torch.nn.GRU):
            cpu = cell(4, 6, num_layers=2, batch_first=True)
            dev = copy.deepcopy(cpu).to(DEVICE)
            x = randn(3, 5, 4)
            x_cpu = x.clone().requires_grad_()
            x_dev = x.to(DEVICE).requires_grad_()
            out_cpu, out_dev = cpu(x_cpu)[0], dev(x_dev)[0]
            self.same(out_dev, out_cpu, rtol=1e-4, atol=1e-5)
            weight = torch.randn(out_cpu.shape)
            (out_cpu * weight).sum().backward()
            (out_dev * weight.to(DEVICE)).sum().backward()
            self.same(x_dev.grad, x_cpu.grad, rtol=1e-4, atol=1e-5)
            for c, d in zip(cpu.parameters(), dev.parameters()):
                self.same(d.grad, c.grad, rtol=1e-4, atol=1e-5)

    def test_reflection_and_replication_padding(self):
        for mode in ("reflect", "replicate"):
            for shape, pad in (((2, 3, 7), (2, 3)), ((3, 6, 5), (2, 2, 1, 1)),
                               ((2, 3, 6, 5), (1, 2, 3, 0)),
                               ((1, 2, 4, 5, 6), (1, 2, 0, 3, 2, 1)),
                               ((2, 3, 7), (-1, 2))):
                for x in views(randn(*shape)):
                    self.forward_backward(
                        lambda t: F.pad(t, pad, mode=mode), x)
        with self.assertRaisesRegex(RuntimeError, "diopiPad"):
            F.pad(randn(2, 3, 4).to(DEVICE), (4, 4), mode="reflect")

    def test_prelu_glu_and_huber_loss(self):
        for shape, slopes in (((2, 3, 4, 5), 3), ((2, 3, 4), 1), ((5, 3), 3),
                              ((6,), 1)):
            self.forward_backward(F.prelu, randn(*shape),
                                  torch.rand(slopes) * 0.5)
        for x in views(randn(4, 6, 8)):
            for dim in (0, 1, -1):
                self.forward_backward(lambda t: F.glu(t, dim), x)
        with self.assertRaisesRegex(RuntimeError, "even size"):
            F.glu(randn(3, 5).to(DEVICE))
        for reduction in ("mean", "sum", "none"):
            self.forward_backward(
                lambda a, b: F.huber_loss(a, b, reduction=reduction,
                                          delta=0.7),
                randn(4, 5), randn(4, 5))

    def test_3d_convolution_and_pooling(self):
        for stride, padding, dilation, groups in ((1, 1, 1, 1),
                                                  ((2, 1, 2), 0, (1, 2, 1), 2)):
            self.forward_backward(
                lambda x, w, b: F.conv3d(x, w, b, stride, padding, dilation,
                                         groups),
                randn(2, 4, 5, 6, 5), randn(6, 4 // groups, 3, 2, 3),
                randn(6), rtol=1e-4, atol=1e-4)
        x = randn(2, 3, 6, 5, 7)
        for t in views(x):
            self.forward_backward(lambda v: F.max_pool3d(v, 2), t)
        self.forward_backward(
            lambda v: F.max_pool3d(v, (3, 2, 3), 2, 1, (1, 1, 2), True), x)
        self.forward_backward(lambda v: F.max_pool3d(v, 2), randn(3, 4, 4, 6))
        for t in views(x):
            self.forward_backward(lambda v: F.avg_pool3d(v, 2), t)
        self.forward_backward(
            lambda v: F.avg_pool3d(v, 3, 2, 1, True, False), x)
        self.forward_backward(
            lambda v: F.avg_pool3d(v, 2, divisor_override=3), x)

    def test_cdist_forward_and_backward(self):
        for p in (0.0, 0.5, 1.0, 2.0, 3.0, float("inf")):
            with self.subTest(p=p):
                self.forward_backward(lambda a, b: torch.cdist(a, b, p),
                                      randn(2, 4, 5), randn(2, 3, 5),
                                      rtol=1e-4, atol=1e-4)
        self.forward_backward(lambda a, b: torch.cdist(a, b, 1.0),
                              randn(3, 4, 5), randn(3, 5), rtol=1e-4,
                              atol=1e-4)  # x2's batch dim broadcast

    def test_group_norm(self):
        for x in (randn(2, 6, 3, 4), randn(3, 4, 5)):
            self.forward_backward(
                lambda t, w, b: F.group_norm(t, 2, w, b),
                x, randn(x.shape[1]), randn(x.shape[1]), rtol=1e-4, atol=1e-4)

    def test_losses(self):
        x, y = randn(4, 5), randn(4, 5)
        p, t = torch.rand(4, 5) * 0.9 + 0.05, torch.rand(4, 5)
        for reduction in ("mean", "sum", "none"):
            self.forward_backward(
                lambda a, b: F.mse_loss(a, b, reduction=reduction), x, y)
            self.forward_backward(
                lambda a, b: F.smooth_l1_loss(a, b, reduction=reduction,
                                              beta=0.5), x, y)
            self.forward_backward(
                lambda a, b: F.binary_cross_entropy(a, b, reduction=reduction),
                p, t, rtol=1e-4, atol=1e-5)
        w = torch.rand(4, 5)
        self.forward_backward(
            lambda a: F.binary_cross_entropy(a, t.to(a.device),
                                             w.to(a.device)), p)
        self.forward_backward(
            lambda a: F.binary_cross_entropy_with_logits(a, t.to(a.device)),
            x, rtol=1e-4, atol=1e-5)

    def test_multi_margin_loss(self):
        target = torch.tensor([0, 3, 2, 4, 3, 1])
        w = torch.rand(5) + 0.5
        for x in views(randn(6, 5)):
            for reduction in ("mean", "sum", "none"):
                for p, margin in ((1, 1.0), (2, 0.7)):
                    for weight in (None, w):
                        with self.subTest(reduction=reduction, p=p,
                                          weighted=weight is not None,
                                          contiguous=x.is_contiguous()):
                            self.forward_backward(
                                lambda a: F.multi_margin_loss(
                                    a, target.to(a.device), p, margin,
                                    None if weight is None
                                    else weight.to(a.device),
                                    reduction=reduction), x)
        for t in (torch.tensor(2), torch.tensor([2])):  # one sample
            self.forward_backward(
                lambda a: F.multi_margin_loss(a, t.to(a.device),
                                              reduction="none"), randn(5))

    def test_pooling(self):
        x = randn(2, 3, 9, 8)
        for kernel, stride, padding, ceil, include in (
                (2, 2, 0, False, True), (3, 2, 1, False, False),
                (3, 2, 1, True, True)):
            self.forward_backward(
                lambda t: F.avg_pool2d(t, kernel, stride, padding, ceil,
                                       include), x)
        self.forward_backward(lambda t: F.avg_pool2d(t, 2, divisor_override=3),
                              x)
        for size in ((1, 1), (3, 4), (4, 3)):
            self.forward_backward(lambda t: F.adaptive_avg_pool2d(t, size), x)
            self.forward_backward(lambda t: F.adaptive_max_pool2d(t, size), x)

    def test_upsampling(self):
        x = randn(1, 2, 4, 5)
        self.forward_backward(
            lambda t: F.interpolate(t, scale_factor=2, mode="nearest"), x)
        self.forward_backward(
            lambda t: F.interpolate(t, size=(7, 9), mode="nearest"), x)
        for corners in (False, True):
            self.forward_backward(
                lambda t: F.interpolate(t, size=(7, 8), mode="bilinear",
                                        align_corners=corners), x,
                rtol=1e-4, atol=1e-5)


class RandomTest(PeerTest):
    def test_fills_have_the_distributions_asked_for(self):
        n = 1 << 14
        u = torch.empty(n, device=DEVICE).uniform_(-2, 3).cpu()
        self.assertGreaterEqual(float(u.min()), -2)
        self.assertLess(float(u.max()), 3)
        self.assertAlmostEqual(float(u.mean()), 0.5, delta=0.1)
        g = torch.empty(n, device=DEVICE).normal_(1.0, 2.0).cpu()
        self.assertAlmostEqual(float(g.mean()), 1.0, delta=0.1)
        self.assertAlmostEqual(float(g.std()), 2.0, delta=0.1)
        b = torch.empty(n, device=DEVICE).bernoulli_(0.3).cpu()
        self.assertTrue(bool(((b == 0) | (b == 1)).all()))
        self.assertAlmostEqual(float(b.mean()), 0.3, delta=0.05)
        r = torch.randint(3, 9, (n,), device=DEVICE).cpu()
        self.assertEqual(int(r.min()), 3)
        self.assertEqual(int(r.max()), 8)

    def test_manual_seed_repeats_device_draws(self):
        torch.manual_seed(3)
        a = torch.rand(100, device=DEVICE).cpu()
        torch.manual_seed(3)
        b = torch.rand(100, device=DEVICE).cpu()
        c = torch.rand(100, device=DEVICE).cpu()
        self.assertTrue(torch.equal(a, b))
        self.assertFalse(torch.equal(b, c))

    def draws(self, generator):
        """One draw of every random op on the device from `generator` (None:
        the default generator), as CPU tensors."""
        g = {"generator": generator} if generator is not None else {}
        weights = torch.tensor([[0.0, 1.0, 2.0, 3.0, 4.0],
                                [5.0, 0.0, 1.0, 0.0, 1.0]], device=DEVICE)
        out = [torch.empty(64, device=DEVICE).uniform_(-1, 1, **g),
               torch.empty(64, device=DEVICE).normal_(2, 3, **g),
               torch.empty(64, device=DEVICE).bernoulli_(0.4, **g),
               torch.bernoulli(torch.linspace(0, 1, 64).to(DEVICE), **g),
               torch.randint(0, 100, (64,), device=DEVICE, **g),
               torch.randperm(50, device=DEVICE, **g),
               torch.multinomial(weights, 3, **g),
               torch.multinomial(weights, 40, replacement=True, **g)]
        if generator is None:  # dropout draws from the default generator
            out.append(F.dropout(torch.ones(64, device=DEVICE), 0.5))
        return [t.cpu() for t in out]

    def assert_draws_equal(self, a, b, equal=True):
        for i, (x, y) in enumerate(zip(a, b)):
            with self.subTest(draw=i):
                self.assertEqual(torch.equal(x, y), equal)

    def test_device_generator_repeats_every_random_op_per_seed(self):
        g = torch_backplane.Generator(DEVICE)
        self.assertEqual(g.device, torch.device(DEVICE))
        self.assertEqual(g.manual_seed(7).initial_seed(), 7)
        first = self.draws(g)
        g.manual_seed(7)
        self.assert_draws_equal(first, self.draws(g))
        self.assert_draws_equal(first, self.draws(g), equal=False)
        other = torch_backplane.Generator(DEVICE).manual_seed(8)
        self.assert_draws_equal(first, self.draws(other), equal=False)

    def test_generator_state_round_trips(self):
        g = torch_backplane.Generator(DEVICE).manual_seed(3)
        self.draws(g)  # a state past the seed
        state = g.get_state()
        self.assertEqual((state.dtype, state.device, state.numel()),
                         (torch.uint8, torch.device("cpu"), 16))
        first = self.draws(g)
        g.set_state(state)
        self.assert_draws_equal(first, self.draws(g))
        copy = torch_backplane.Generator(DEVICE)
        copy.set_state(state)
        self.assert_draws_equal(first, self.draws(copy))
        saved = torch_backplane.get_rng_state(0)
        first = self.draws(None)
        torch_backplane.set_rng_state(saved, 0)
        self.assert_draws_equal(first, self.draws(None))
        with self.assertRaisesRegex(RuntimeError, "wrong size"):
            g.set_state(torch.zeros(3, dtype=torch.uint8))

    def test_torch_manual_seed_drives_the_default_generators(self):
        torch.manual_seed(5)
        first = self.draws(None)
        cpu_after = torch.rand(4)  # device draws leave the CPU's alone
        torch.manual_seed(5)
        self.assertTrue(torch.equal(torch.rand(4), cpu_after))
        self.assert_draws_equal(first, self.draws(None))
        self.assertEqual(torch_backplane.initial_seed(), 5)
        self.assertEqual(torch_backplane.default_generators[1].initial_seed(),
                         5)
        torch_backplane.manual_seed(6)
        self.assertEqual(torch_backplane.initial_seed(), 6)
        new_seed = torch.seed()
        self.assertEqual(torch_backplane.initial_seed(), new_seed)

    def test_samples_are_permutations_and_follow_weights(self):
        perm = torch.randperm(300, device=DEVICE).cpu()
        self.assertTrue(torch.equal(perm.sort().values, torch.arange(300)))
        weights = torch.tensor([0.0, 1.0, 3.0], device=DEVICE)
        picks = torch.multinomial(weights, 4000, replacement=True).cpu()
        self.assertEqual(int((picks == 0).sum()), 0)
        self.assertAlmostEqual(float((picks == 2).float().mean()), 0.75,
                               delta=0.05)
        rows = torch.multinomial(torch.ones(6, 8, device=DEVICE), 8).cpu()
        self.assertTrue(torch.equal(rows.sort(dim=1).values,
                                    torch.arange(8).expand(6, 8)))
        probs = torch.rand(5, 7)
        b = torch.bernoulli(probs.to(DEVICE)).cpu()
        self.assertTrue(bool(((b == 0) | (b == 1)).all()))
        ones = torch.empty(5, 7, device=DEVICE).bernoulli_(
            torch.ones(7, device=DEVICE)).cpu()
        self.assertTrue(bool((ones == 1).all()))

    def test_a_cpu_generator_is_refused_as_cuda_refuses_it(self):
        with self.assertRaisesRegex(
                RuntimeError, "Expected a 'privateuseone' device type for "
                "generator but found 'cpu'"):
            torch.rand(3, device=DEVICE, generator=torch.Generator())

    def test_dropout_and_initializers_run_on_the_device(self):
        x = torch.ones(4096, device=DEVICE)
        y = F.dropout(x, 0.25, training=True).cpu()
        kept = y != 0
        self.assertAlmostEqual(float(kept.float().mean()), 0.75, delta=0.05)
        self.assertTrue(torch.allclose(y[kept], torch.full_like(y[kept],
                                                                 1 / 0.75)))
        layer = torch.nn.Linear(64, 32).to(DEVICE)
        torch.nn.init.kaiming_uniform_(layer.weight)
        torch.nn.init.normal_(layer.bias, std=0.01)
        self.assertLessEqual(float(layer.weight.abs().max().cpu()),
                             (6 / 64) ** 0.5)


class OptimizerPeerTest(PeerTest):
    def run_steps(self, device, make, steps=4):
        torch.manual_seed(11)
        model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(),
                                    torch.nn.Linear(5, 3))
        model.to(device)
        optimizer = make(model.parameters())
        data, target = randn(8, 6), randn(8, 3)
        for _ in range(steps):
            optimizer.zero_grad()
            loss = F.mse_loss(model(data.to(device)), target.to(device))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
        return [p.detach().cpu() for p in model.parameters()]

    def test_optimizers_foreach_and_not_match_the_cpu(self):
        makes = {
            "adam": lambda p, f: torch.optim.Adam(p, lr=0.01, foreach=f),
            "adamw": lambda p, f: torch.optim.AdamW(p, lr=0.01,
                                                    weight_decay=0.1,
                                                    foreach=f),
            "adam_amsgrad": lambda p, f: torch.optim.Adam(
                p, lr=0.01, amsgrad=True, foreach=f),
            "sgd": lambda p, f: torch.optim.SGD(p, lr=0.1, momentum=0.9,
                                                nesterov=True,
                                                weight_decay=0.01, foreach=f),
            "rmsprop": lambda p, f: torch.optim.RMSprop(p, lr=0.01,
                                                        foreach=f),
            # foreach Adamax calls exp_inf.new() and torch.max(..., out=)
            "adamax": lambda p, f: torch.optim.Adamax(p, lr=0.01, foreach=f),
            "rmsprop_centered": lambda p, f: torch.optim.RMSprop(
                p, lr=0.01, momentum=0.5, centered=True, foreach=f),
            "adagrad": lambda p, f: torch.optim.Adagrad(
                p, lr=0.1, lr_decay=0.01, weight_decay=0.1, foreach=f),
            "nadam": lambda p, f: torch.optim.NAdam(p, lr=0.01, foreach=f),
            "radam": lambda p, f: torch.optim.RAdam(p, lr=0.01, foreach=f),
            "adadelta": lambda p, f: torch.optim.Adadelta(p, lr=1.0,
                                                          foreach=f),
        }
        for name, make in makes.items():
            for foreach in (False, True):
                with self.subTest(optimizer=name, foreach=foreach):
                    ours = self.run_steps(DEVICE, lambda p: make(p, foreach))
                    cpu = self.run_steps("cpu", lambda p: make(p, foreach))
                    for o, c in zip(ours, cpu):
                        torch.testing.assert_close(o, c, rtol=1e-4,
                                                   atol=1e-5)


class LegacyConstructorTest(PeerTest):
    """Tensor.new, which torch 1.13 refuses for privateuseone tensors
    itself: torch_backplane gives it its legacy meanings there."""

    def test_tensor_new_keeps_dtype_and_device(self):
        x = torch.ones(2, 3, dtype=torch.float64, device=DEVICE)
        cases = {
            "empty": (x.new(), (0,)),
            "sizes": (x.new(2, 5), (2, 5)),
            "size object": (x.new(torch.Size([4])), (4,)),
        }
        for name, (t, shape) in cases.items():
            with self.subTest(case=name):
                self.assertEqual(tuple(t.shape), shape)
                self.assertEqual(t.dtype, torch.float64)
                self.assertEqual(t.device, x.device)
        data = x.new([1.5, -2.0])
        self.assertEqual(data.cpu().tolist(), [1.5, -2.0])
        self.assertEqual(data.dtype, torch.float64)
        self.assertIs(x.new(x), x)
        self.assertEqual(x.new().long().dtype, torch.int64)
        self.assertEqual(torch.ones(2).new(3).shape, (3,))  # the CPU's own

    def test_max_and_min_by_dim_into_outs(self):
        x = randn(4, 6)
        for fn in (torch.max, torch.min):
            with self.subTest(fn=fn.__name__):
                values = torch.empty(0, device=DEVICE)
                indices = torch.empty(0, dtype=torch.long, device=DEVICE)
                fn(x.to(DEVICE), 1, keepdim=True, out=(values, indices))
                want = fn(x, 1, keepdim=True)
                torch.testing.assert_close(values.cpu(), want.values)
                torch.testing.assert_close(indices.cpu(), want.indices)


if __name__ == "__main__":
    unittest.main()
