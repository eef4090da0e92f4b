"""The kernels transformers and CNNs ask for first, against Paddle CPU
(forward, and backward through paddle.grad), with Paddle's CPU fallback off:
indexing (embedding, gather, index_select, masked_select, one_hot),
activations, elementwise math, logic, norms and reductions, tril/triu,
flip/roll/tile/pad, bmm, depthwise and transposed convolution,
interpolation, group_norm; what the bridge refuses, refused by name; and
two small models trained three steps whose losses match Paddle CPU's."""
import bridge_env  # noqa: F401
import unittest

import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F

rng = np.random.RandomState(0)


def r(*shape, dtype=np.float32):
    return rng.randn(*shape).astype(dtype)


def run(device, fn, arrays, grad):
    paddle.set_device(device)
    xs = [paddle.to_tensor(a, stop_gradient=not (
        grad and np.issubdtype(a.dtype, np.floating))) for a in arrays]
    out = fn(*xs)
    if not grad:
        return [out.numpy()]
    inputs = [x for x in xs if not x.stop_gradient]
    # A loss that weighs every output element differently.
    weights = paddle.to_tensor(
        np.linspace(0.5, 1.5, out.size).reshape(out.shape).astype(
            out.numpy().dtype))
    grads = paddle.grad([(out * weights).sum()], inputs)
    return [out.numpy()] + [g.numpy() for g in grads]


class Kernels(unittest.TestCase):
    def same(self, fn, *arrays, grad=True, rtol=1e-5, atol=1e-5):
        cpu = run("cpu", fn, arrays, grad)
        bridge = run("backplane:0", fn, arrays, grad)
        self.assertEqual(len(cpu), len(bridge))
        for c, b in zip(cpu, bridge):
            self.assertEqual(c.shape, b.shape)
            np.testing.assert_allclose(b, c, rtol=rtol, atol=atol)

    def refused(self, kernel, attribute, fn, *arrays):
        paddle.set_device("backplane:0")
        with self.assertRaises(Exception) as caught:
            fn(*[paddle.to_tensor(a) for a in arrays])
        text = str(caught.exception)
        self.assertIn(f"backplane kernel {kernel} ", text)
        self.assertIn(attribute, text)

    def test_embedding_gather_index_select(self):
        ids = paddle.to_tensor([[1, 2, 1], [9, 0, 1]])
        w = r(10, 4)
        self.same(lambda t: F.embedding(ids, t), w)
        # padding_idx rows read as zeros and take no gradient.
        self.same(lambda t: F.embedding(ids, t, padding_idx=1), w)
        x = r(6, 3)
        self.same(lambda t: paddle.gather(t, paddle.to_tensor([5, 0, 5])), x)
        self.same(lambda t: paddle.gather(t, paddle.to_tensor([2, 0]),
                                          axis=1), x)
        self.same(lambda t: paddle.gather(t, paddle.to_tensor(2)), x)
        self.same(lambda t: paddle.index_select(
            t, paddle.to_tensor([2, 0, 2]), axis=-1), x)
        self.same(lambda t: paddle.gather(t, paddle.to_tensor([1, 0])),
                  rng.randint(0, 9, (4, 3)), grad=False)
        self.same(lambda t: paddle.masked_select(t, t > 0), x)
        self.same(lambda t: F.one_hot(t, 5), rng.randint(0, 5, (4, 3)),
                  grad=False)

    def test_scatter_and_index_sample(self):
        x = r(5, 3)
        for index, overwrite in (([1, 3], True), ([1, 3, 1], True),
                                 ([1, 3, 1], False)):
            self.same(lambda t, u: paddle.scatter(
                t, paddle.to_tensor(index), u, overwrite=overwrite), x,
                r(len(index), 3))
        self.same(lambda t: paddle.index_sample(
            t, paddle.to_tensor([[0, 4], [1, 1], [3, 2]])), r(3, 5))

    def test_activations(self):
        x = r(50) * 4
        for fn in (F.silu, F.swish, F.hardswish, F.hardsigmoid, F.relu6,
                   lambda t: F.hardsigmoid(t, 0.2, 0.3),
                   lambda t: F.leaky_relu(t, 0.1), lambda t: F.elu(t, 0.7),
                   lambda t: F.softplus(t, 2, 5)):
            self.same(fn, x)

    def test_elementwise_math(self):
        pos = rng.uniform(0.5, 2, 40).astype(np.float32)
        for fn in (paddle.rsqrt, paddle.log, paddle.reciprocal):
            self.same(fn, pos)
        x = r(40) * 3
        for fn in (paddle.sin, paddle.cos, lambda t: paddle.floor(t) * t):
            self.same(fn, x)
        # Ties round to even, as Paddle's CPU kernel rounds them.
        self.same(lambda t: paddle.round(t) * t,
                  np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.3, -1.7],
                           np.float32))

    def test_maximum_minimum_split_ties(self):
        self.same(paddle.maximum, r(5, 4), r(4))
        self.same(paddle.minimum, r(5, 4), r(5, 1))
        a = np.array([1, 2, 5], np.float32)
        b = np.array([1, 3, 4], np.float32)
        self.same(paddle.maximum, a, b)
        self.same(paddle.minimum, a, b)
        self.same(paddle.maximum, rng.randint(-5, 5, (6,)),
                  rng.randint(-5, 5, (6,)), grad=False)

    def test_logic_and_finiteness(self):
        self.same(lambda a, b: paddle.logical_or(
            paddle.logical_and(a > 0, b > 0), paddle.logical_not(a > b)),
            r(5, 4), r(4), grad=False)
        v = np.array([1, np.nan, np.inf, -np.inf, 0], np.float32)
        for fn in (paddle.isnan, paddle.isinf, paddle.isfinite):
            self.same(fn, v, grad=False)

    def test_norms_and_reductions(self):
        x = r(3, 4, 5)
        self.same(lambda t: paddle.linalg.norm(t, axis=1), x)
        self.same(lambda t: paddle.linalg.norm(t), x)
        self.same(lambda t: paddle.linalg.norm(t, p=1, axis=-1,
                                               keepdim=True), x)
        self.same(lambda t: paddle.linalg.norm(t, p=3, axis=0), x)
        self.same(lambda t: paddle.linalg.norm(t, p=float("inf"), axis=2), x)
        self.same(lambda t: paddle.logsumexp(t, axis=1), x)
        self.same(lambda t: paddle.logsumexp(t, axis=[0, 2], keepdim=True), x)
        self.same(paddle.logsumexp, x)
        self.same(lambda t: paddle.std(t, 1), x)
        # The global-norm clip's sum of squares; its [1] output times a
        # [] one (the [] operand's gradient summed from [1]).
        self.same(lambda t: paddle._C_ops.squared_l2_norm(t) * t.sum(), x)

    def test_sort_and_topk_gradients(self):
        x = r(4, 5)
        self.same(lambda t: paddle.sort(t, 1), x)
        self.same(lambda t: paddle.sort(t, 0, descending=True), x)
        self.same(lambda t: paddle.topk(t, 2, 1)[0], x)
        self.same(lambda t: paddle.topk(t, 3, 0, largest=False)[0], x)

    def test_rearrangements(self):
        x = r(3, 4, 5)
        self.same(lambda t: paddle.tril(t, -1) + paddle.triu(t, 1) * 2, x)
        self.same(lambda t: paddle.flip(t, [0, 2]), x)
        self.same(lambda t: paddle.roll(t, [1, -2], [1, 2]), x)
        self.same(lambda t: paddle.roll(t, 7), x)
        self.same(lambda t: paddle.tile(t, [2, 1, 3]), x)
        self.same(lambda t: paddle.tile(t, [2, 1, 1, 2]), x)
        self.same(lambda t: paddle.bmm(t, t.transpose([0, 2, 1])), x,
                  rtol=1e-4)
        for start, end, step, dtype in ((0, 5, 1, "int64"),
                                        (10, 1, -3, "int32"),
                                        (0, 1, 0.25, "float32")):
            self.same(lambda: paddle.arange(start, end, step, dtype),
                      grad=False)

    def test_pad_every_mode(self):
        x = r(2, 3, 5, 5)
        for mode in ("constant", "reflect", "replicate", "circular"):
            self.same(lambda t: F.pad(t, [1, 2, 2, 1], mode=mode, value=0.5),
                      x)

    def test_convolutions_and_interpolation(self):
        x = r(2, 4, 5, 5)
        self.same(lambda t, w: F.conv2d(t, w, groups=4, padding=1), x,
                  r(4, 1, 3, 3), rtol=1e-4, atol=1e-4)
        self.same(lambda t, w: F.conv2d_transpose(
            t, w, stride=2, padding=1, output_padding=1), x, r(4, 3, 3, 3),
            rtol=1e-4, atol=1e-4)
        self.same(lambda t, w: F.conv2d_transpose(
            t, w, stride=2, padding=1, groups=2, output_size=[10, 10]), x,
            r(4, 3, 3, 3), rtol=1e-4, atol=1e-4)
        y = r(2, 3, 5, 4)
        for kw in ({"size": (7, 9), "mode": "bilinear"},
                   {"size": (7, 9), "mode": "bilinear",
                    "align_corners": True},
                   {"scale_factor": 2, "mode": "bilinear"},
                   {"scale_factor": 2, "mode": "nearest"},
                   {"size": (7, 9), "mode": "nearest"}):
            self.same(lambda t: F.interpolate(t, **kw), y, rtol=1e-4)

    def test_group_norm(self):
        x = r(4, 6, 5, 2)
        # Paddle hands the kernel x's gradient in y's memory.
        self.same(lambda t, w, b: F.group_norm(t, 3, weight=w, bias=b), x,
                  r(6), r(6), rtol=1e-4, atol=1e-4)
        # No x gradient wanted: the scale's and bias's alone.
        self.same(lambda w, b: F.group_norm(paddle.to_tensor(x), 3, weight=w,
                                            bias=b), r(6), r(6), rtol=1e-4,
                  atol=1e-4)

    def test_instance_norm(self):
        self.same(lambda t, w, b: F.instance_norm(t, weight=w, bias=b),
                  r(2, 3, 4, 5), r(3), r(3), rtol=1e-4, atol=1e-4)
        self.same(F.instance_norm, r(2, 3, 6), rtol=1e-4, atol=1e-4)

    def test_group_norm_without_scale(self):
        # Against the formula: Paddle 3.3.1's CPU group_norm_grad without a
        # scale is not dx = invstd (g - mean(g) - xhat mean(g xhat)).
        x, g = r(2, 6, 3, 3).astype(np.float64), r(2, 6, 3, 3)
        rows, dy = x.reshape(2, 2, -1), g.reshape(2, 2, -1)
        invstd = 1 / np.sqrt(rows.var(-1, keepdims=True) + 1e-5)
        xhat = (rows - rows.mean(-1, keepdims=True)) * invstd
        dx = invstd * (dy - dy.mean(-1, keepdims=True) -
                       xhat * (dy * xhat).mean(-1, keepdims=True))
        paddle.set_device("backplane:0")
        t = paddle.to_tensor(x.astype(np.float32), stop_gradient=False)
        y = F.group_norm(t, 2)
        got = paddle.grad([(y * paddle.to_tensor(g)).sum()], [t])[0]
        np.testing.assert_allclose(y.numpy(), xhat.reshape(x.shape),
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(got.numpy(), dx.reshape(x.shape),
                                   rtol=1e-4, atol=1e-5)

    def test_pointwise_losses(self):
        x, p = r(5, 4), rng.uniform(0.1, 0.9, (5, 4)).astype(np.float32)
        # The label is made on the device the case runs on.
        cases = (lambda t, q: F.binary_cross_entropy_with_logits(t, q),
                 lambda t, q: F.binary_cross_entropy_with_logits(
                     t, q, reduction="none"),
                 lambda t, q: F.binary_cross_entropy(F.sigmoid(t), q),
                 lambda t, q: F.smooth_l1_loss(t * 3, q, delta=0.5),
                 lambda t, q: F.smooth_l1_loss(t * 3, q, reduction="none",
                                               delta=2.0),
                 lambda t, q: F.kl_div(t, q, reduction="none"),
                 lambda t, q: F.kl_div(t, q, reduction="batchmean"),
                 lambda t, q: F.kl_div(t, q, reduction="mean"),
                 lambda t, q: F.kl_div(t, q.log(), reduction="sum",
                                       log_target=True))
        for fn in cases:
            self.same(lambda t: fn(t, paddle.to_tensor(p)), x)
        # label_smooth, uniform and with a prior, through cross_entropy too.
        self.same(lambda t: F.label_smooth(F.softmax(t), epsilon=0.2), x)
        self.same(lambda t: F.label_smooth(
            F.softmax(t), paddle.to_tensor(p[:1] / p[:1].sum()), 0.1), x)
        self.same(lambda t: F.cross_entropy(t, paddle.to_tensor([0, 1, 2, 3,
                                                                 0]),
                                            label_smoothing=0.1), x)

    def test_float64_and_half_precision(self):
        x = r(4, 6)
        for fn in (F.silu, F.hardswish, lambda t: paddle.logsumexp(t, 1),
                   lambda t: paddle.gather(t, paddle.to_tensor([3, 0])),
                   lambda t: paddle.maximum(t, t.flip([0]))):
            self.same(fn, x.astype(np.float64), rtol=1e-12, atol=1e-12)
            want = run("cpu", fn, [x], True)
            for dtype, tol in (("float16", 1e-2), ("bfloat16", 6e-2)):
                got = run("backplane:0", lambda t: fn(t.astype(dtype))
                          .astype("float32"), [x], True)
                for g, c in zip(got, want):
                    np.testing.assert_allclose(g, c, rtol=tol, atol=tol,
                                               err_msg=dtype)

    def test_refusals_name_kernel_and_attribute(self):
        y = r(1, 2, 5, 4)
        # Paddle's ratio for a scale is 1 / scale, DIOPI's in / out.
        self.refused("bilinear_interp", "scale 1.5",
                     lambda t: F.interpolate(t, scale_factor=1.5,
                                             mode="bilinear"), y)
        self.refused("bilinear_interp", "align_mode 1",
                     lambda t: F.interpolate(t, size=(7, 9), mode="bilinear",
                                             align_mode=1), y)
        self.refused("round", "decimals 2",
                     lambda t: paddle.round(t, decimals=2), y)
        self.refused("group_norm", "data_layout NHWC",
                     lambda t: F.group_norm(t, 2, data_format="NHWC"), y)
        self.refused("p_norm", "porder 0",
                     lambda t: paddle.linalg.norm(t, p=0, axis=1), y)
        self.refused("sigmoid_cross_entropy_with_logits", "pos_weight",
                     lambda t: F.binary_cross_entropy_with_logits(
                         t, t, pos_weight=paddle.ones([4])), y)
        self.refused("mish", "threshold 10",
                     lambda t: paddle._C_ops.mish(t, 10.0), y)
        self.refused("put_along_axis", "include_self false",
                     lambda t: paddle.put_along_axis(
                         t, paddle.zeros([1, 2, 1, 4], "int64"), t[:, :, :1],
                         2, "add", include_self=False), y)
        self.refused("unfold", "paddings [1, 0, 0, 0]",
                     lambda t: F.unfold(t, 2, paddings=[1, 0, 0, 0]), y)
        self.refused("dist", "p 0", lambda t: paddle.dist(t, t * 2, 0), y)
        self.refused("einsum", "repeats within a term",
                     lambda t: paddle.einsum("ii->i", t[0, 0, :4]), y)
        self.refused("pool3d", "data_format NDHWC",
                     lambda t: F.avg_pool3d(t.unsqueeze(0), 2,
                                            data_format="NDHWC"), y)
        self.refused("conv3d", "paddings: dim 0 pads 1 before and 0 after",
                     lambda t: F.conv3d(t.unsqueeze(0), paddle.ones(
                         [1, 1, 1, 1, 1]), padding=[1, 0, 0, 0, 0, 0]), y)


class TinyTransformer(nn.Layer):
    """Token and position embeddings, one causal self-attention block with
    layer norms and a SiLU feed-forward, and a vocabulary head."""

    def __init__(self, vocab=20, width=16, length=6):
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        self.positions = nn.Embedding(length, width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm1 = nn.LayerNorm(width)
        self.norm2 = nn.LayerNorm(width)
        self.ff1 = nn.Linear(width, 2 * width)
        self.ff2 = nn.Linear(2 * width, width)
        self.head = nn.Linear(width, vocab)
        self.width = width

    def forward(self, ids):
        length = ids.shape[1]
        h = self.tokens(ids) + self.positions(paddle.arange(length))
        q, k, v = paddle.split(self.qkv(self.norm1(h)), 3, axis=-1)
        scores = paddle.matmul(q, k, transpose_y=True) / self.width ** 0.5
        causal = paddle.tril(paddle.ones([length, length]))
        scores = scores - (1.0 - causal) * 1e4
        h = h + self.proj(paddle.matmul(F.softmax(scores, -1), v))
        h = h + self.ff2(F.silu(self.ff1(self.norm2(h))))
        return self.head(h)


class TinyMobileNet(nn.Layer):
    """A strided stem, group norm and hardswish, a depthwise-separable
    block, bilinear upsampling back, global pooling and a classifier."""

    def __init__(self, classes=5):
        super().__init__()
        self.stem = nn.Conv2D(3, 8, 3, stride=2, padding=1)
        self.norm = nn.GroupNorm(2, 8)
        self.depthwise = nn.Conv2D(8, 8, 3, padding=1, groups=8)
        self.pointwise = nn.Conv2D(8, 16, 1)
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        h = F.hardswish(self.norm(self.stem(x)))
        h = F.hardswish(self.pointwise(self.depthwise(h)))
        h = F.interpolate(h, scale_factor=2, mode="bilinear")
        h = F.adaptive_avg_pool2d(h, 1).flatten(1)
        return self.head(h)


def train(device, make, weights, inputs, labels, steps=3,
          optimizer=lambda params: paddle.optimizer.Momentum(
              0.1, 0.9, parameters=params)):
    """`steps` optimizer steps of make() (its parameters set to `weights`)
    on `device`; the losses."""
    paddle.set_device(device)
    model = make()
    model.set_state_dict({k: paddle.to_tensor(v) for k, v in weights.items()})
    opt = optimizer(model.parameters())
    x, y = paddle.to_tensor(inputs), paddle.to_tensor(labels)
    losses = []
    for _ in range(steps):
        logits = model(x)
        loss = F.cross_entropy(logits.reshape([-1, logits.shape[-1]]),
                               y.reshape([-1]))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses


class Models(unittest.TestCase):
    def same_training(self, make, inputs, labels, **kw):
        paddle.set_device("cpu")
        paddle.seed(0)
        weights = {k: v.numpy() for k, v in make().state_dict().items()}
        want = train("cpu", make, weights, inputs, labels, **kw)
        got = train("backplane:0", make, weights, inputs, labels, **kw)
        self.assertGreater(want[0], want[-1])  # it learns
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)

    def test_tiny_transformer_trains_as_on_cpu(self):
        ids = rng.randint(0, 20, (2, 6))
        self.same_training(TinyTransformer, ids, np.roll(ids, -1, axis=1))

    def test_tiny_mobilenet_trains_as_on_cpu(self):
        self.same_training(TinyMobileNet, r(4, 3, 8, 8),
                           rng.randint(0, 5, (4,)))

    def test_adagrad_and_rmsprop_step_as_on_cpu(self):
        for make in (lambda p: paddle.optimizer.Adagrad(0.05, parameters=p),
                     lambda p: paddle.optimizer.RMSProp(
                         0.01, momentum=0.5, parameters=p),
                     lambda p: paddle.optimizer.RMSProp(
                         0.01, centered=True, parameters=p)):
            self.same_training(TinyMobileNet, r(4, 3, 8, 8),
                               rng.randint(0, 5, (4,)), optimizer=make)


if __name__ == "__main__":
    unittest.main()
