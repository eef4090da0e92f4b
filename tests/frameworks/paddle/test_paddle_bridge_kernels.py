"""The bridge's kernels one by one against Paddle CPU (forward, and backward
through paddle.grad), float32, with broadcasting where the op has it; every
kernel is the bridge's (no CPU fallback)."""
import bridge_env  # noqa: F401
import os
import subprocess
import sys
import unittest

import numpy as np
import paddle

rng = np.random.RandomState(0)

# layer_norm's saved Mean and Variance, which eager mode hides: a static
# program (the old IR) fetches them from the bridge's kernel.
LAYER_NORM_STATISTICS = """
import numpy as np, paddle
paddle.enable_static()
x_np = (np.random.RandomState(0).randn(4, 6) * 3 + 1).astype(np.float32)
main, start = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, start):
    x = paddle.static.data("x", [4, 6], "float32")
    block = main.global_block()
    outs = [block.create_var(name=n, dtype="float32") for n in "ymv"]
    block.append_op(type="layer_norm", inputs={"X": x},
                    outputs={"Y": outs[0], "Mean": outs[1],
                             "Variance": outs[2]},
                    attrs={"epsilon": 1e-5, "begin_norm_axis": 1})
exe = paddle.static.Executor(paddle.CustomPlace("backplane", 0))
exe.run(start)
_, mean, var = exe.run(main, feed={"x": x_np}, fetch_list=outs)
np.testing.assert_allclose(mean, x_np.mean(1), rtol=1e-5, atol=1e-6)
np.testing.assert_allclose(var, x_np.var(1), rtol=1e-5, atol=1e-6)
print("statistics ok")
"""


def run(device, fn, arrays, grad):
    paddle.set_device(device)
    xs = [paddle.to_tensor(a, stop_gradient=not (grad and a.dtype ==
                                                  np.float32))
          for a in arrays]
    out = fn(*xs)
    if not grad:
        return [out.numpy()]
    inputs = [x for x in xs if not x.stop_gradient]
    grads = paddle.grad([out.sum()], inputs)
    return [out.numpy()] + [g.numpy() for g in grads]


class Kernels(unittest.TestCase):
    def same(self, fn, *arrays, grad=True, rtol=1e-5, atol=1e-6):
        cpu = run("cpu", fn, arrays, grad)
        bridge = run("backplane:0", fn, arrays, grad)
        for c, b in zip(cpu, bridge):
            np.testing.assert_allclose(b, c, rtol=rtol, atol=atol)

    def test_elementwise_with_broadcasting(self):
        x = rng.randn(4, 3, 5).astype(np.float32)
        y = rng.randn(3, 1).astype(np.float32) + 3
        for fn in (paddle.add, paddle.subtract, paddle.multiply,
                   paddle.divide):
            self.same(fn, x, y)

    def test_integer_arithmetic_and_comparisons(self):
        a = rng.randint(-5, 5, (6,)).astype(np.int64)
        b = rng.randint(-5, 5, (6,)).astype(np.int64)
        for fn in (paddle.add, paddle.multiply, paddle.equal,
                   paddle.not_equal, paddle.less_than, paddle.greater_equal):
            self.same(fn, a, b, grad=False)

    def test_activations_and_softmax(self):
        x = rng.randn(5, 7).astype(np.float32)
        for fn in (paddle.nn.functional.relu, paddle.nn.functional.sigmoid,
                   paddle.tanh, paddle.nn.functional.gelu,
                   lambda t: paddle.nn.functional.softmax(t, axis=-1) * t):
            self.same(fn, x)

    def test_matmul_transposes(self):
        a = rng.randn(4, 6).astype(np.float32)
        b = rng.randn(5, 6).astype(np.float32)
        self.same(lambda x, y: paddle.matmul(x, y, transpose_y=True), a, b)
        self.same(lambda x, y: paddle.matmul(x, y, transpose_x=True), a,
                  rng.randn(4, 3).astype(np.float32))

    def test_matmul_vectors_and_broadcast_batches(self):
        # 1-D operands (a row on the left, a column on the right; their
        # transpose flags ignored) and batch dims broadcast against each
        # other, the broadcast operand's gradient summed over them.
        for xs, ys, tx, ty in (((5,), (5,), False, False),
                               ((5,), (2, 3, 5), False, True),
                               ((2, 5, 3), (5,), True, False),
                               ((5, 4), (2, 3, 5), True, True),
                               ((2, 5, 4), (3, 5), True, True),
                               ((3, 1, 4, 5), (1, 2, 5, 6), False, False),
                               ((1, 5, 4), (3, 6, 5), True, True)):
            self.same(lambda x, y: paddle.matmul(x, y, tx, ty),
                      rng.randn(*xs).astype(np.float32),
                      rng.randn(*ys).astype(np.float32), rtol=1e-4,
                      atol=1e-5)

    def test_reductions(self):
        x = rng.randn(3, 4, 5).astype(np.float32)
        self.same(paddle.mean, x)
        self.same(lambda t: paddle.mean(t, axis=1), x)
        self.same(lambda t: paddle.sum(t, axis=[0, 2], keepdim=True), x)

    def test_prod_over_dims(self):
        # Several dims (kept or not), one, all; the gradient out_grad * out
        # / x as on Paddle's CPU.
        x = rng.uniform(0.5, 1.5, (3, 4, 5)).astype(np.float32)
        x[0, 0, 0] = -0.75
        for kw in ({"axis": [0, 2]}, {"axis": [-1, 1], "keepdim": True},
                   {"axis": 1}, {}, {"keepdim": True}):
            self.same(lambda t: paddle.prod(t, **kw), x)
        self.same(lambda t: paddle.prod(t, axis=[0, 1]),
                  rng.randint(-3, 4, (3, 4)).astype(np.int64), grad=False)

    def test_cross_entropy(self):
        logits = rng.randn(8, 10).astype(np.float32)
        label = rng.randint(0, 10, (8, 1)).astype(np.int64)
        self.same(paddle.nn.functional.cross_entropy, logits, label)

    def test_cross_entropy_every_form(self):
        # Soft labels, another axis, ignore_index (its samples get loss 0
        # and gradient 0) and use_softmax=False (the logits are
        # probabilities): the phi kernel itself, its Softmax output too.
        def kernel(soft, use_softmax, ignore, axis, label, output):
            def fn(x):
                outs = paddle._C_ops.cross_entropy_with_softmax(
                    x, paddle.to_tensor(label), soft, use_softmax, True,
                    ignore, axis)
                if output == 0:  # Softmax (the input without softmax)
                    return outs[0]
                w = np.arange(1, outs[1].size + 1, dtype=np.float32)
                return outs[1] * paddle.to_tensor(w.reshape(outs[1].shape))
            return fn
        shape = [3, 4, 5]
        for soft, use_softmax, ignore, axis in (
                (True, True, -100, -1), (True, True, -100, 1),
                (True, False, -100, 0), (False, True, 2, 1),
                (False, False, 2, -1), (False, False, -100, 0)):
            logits = rng.uniform(0.1, 1.0, shape).astype(np.float32)
            if not use_softmax:
                logits /= logits.sum(axis, keepdims=True)
            if soft:
                label = rng.uniform(0.1, 1, shape).astype(np.float32)
                label /= label.sum(axis, keepdims=True)
            else:
                dims = list(shape)
                dims[axis] = 1
                label = rng.randint(0, shape[axis], dims).astype(np.int64)
                label.flat[0] = 2  # at least one ignored sample
            for output, grad in ((0, False), (1, True)):
                self.same(kernel(soft, use_softmax, ignore, axis, label,
                                 output), logits, grad=grad, rtol=2e-4,
                          atol=2e-5)

    def test_conv_pool_batch_norm(self):
        x = rng.randn(2, 3, 6, 6).astype(np.float32)
        w = rng.randn(4, 3, 3, 3).astype(np.float32)
        self.same(lambda a, b: paddle.nn.functional.conv2d(a, b, padding=1,
                                                           stride=2), x, w,
                  rtol=1e-4, atol=1e-5)
        self.same(lambda a: paddle.nn.functional.max_pool2d(a, 2, 2), x)
        self.same(lambda a: paddle.nn.functional.adaptive_avg_pool2d(a, 1), x)
        mean = np.zeros(3, np.float32)
        var = np.ones(3, np.float32)
        self.same(lambda a: paddle.nn.functional.batch_norm(
            a, paddle.to_tensor(mean), paddle.to_tensor(var),
            training=True), x, rtol=1e-4, atol=1e-5)

    def test_avg_pool_with_padding(self):
        x = rng.randn(2, 3, 7, 7).astype(np.float32)
        for exclusive in (True, False):
            self.same(lambda a: paddle.nn.functional.avg_pool2d(
                a, 3, stride=2, padding=1, exclusive=exclusive), x)
        self.same(lambda a: paddle.nn.functional.avg_pool2d(
            a, 2, ceil_mode=True), x)

    def test_slices_and_scalar_division(self):
        # A slice's gradient is a strided fill and a strided copy.
        x = rng.randn(5, 6).astype(np.float32)
        self.same(lambda t: t[1:4, ::2] * 3, x)
        self.same(lambda t: t[:, 2] / 2.0, x)
        paddle.set_device("backplane:0")
        y = paddle.to_tensor(x)
        y[1:3, 1:5].fill_(7.0)  # a strided fill of a view
        expect = x.copy()
        expect[1:3, 1:5] = 7.0
        np.testing.assert_array_equal(y.numpy(), expect)

    def test_layer_norm(self):
        x = rng.randn(4, 3, 6).astype(np.float32) * 3 + 1
        w = rng.randn(18).astype(np.float32)
        b = rng.randn(18).astype(np.float32)
        self.same(lambda t, s, c: paddle.nn.functional.layer_norm(
            t, [3, 6], weight=s, bias=c), x, w, b, rtol=1e-4, atol=1e-5)
        self.same(lambda t: paddle.nn.functional.layer_norm(t, 6), x,
                  rtol=1e-4, atol=1e-5)

    def test_layer_norm_saves_paddles_variance(self):
        out = subprocess.run(
            [sys.executable, "-c", LAYER_NORM_STATISTICS],
            env=dict(os.environ, FLAGS_enable_pir_api="0"),
            capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertIn("statistics ok", out.stdout)

    def test_topk_argsort_accuracy(self):
        x = rng.randn(6, 9).astype(np.float32)
        self.same(lambda t: paddle.topk(t, 3)[0], x, grad=False)
        self.same(lambda t: paddle.topk(t, 3)[1], x, grad=False)
        self.same(lambda t: paddle.topk(t, 2, axis=0, largest=False)[1], x,
                  grad=False)
        self.same(lambda t: paddle.argsort(t, axis=1, descending=True), x,
                  grad=False)
        self.same(lambda t: paddle.sort(t, axis=0), x, grad=False)
        label = rng.randint(0, 9, (6, 1)).astype(np.int64)
        label[0, 0] = int(np.argmax(x[0]))  # at least one hit
        for k in (1, 3):
            self.same(lambda t, y: paddle.metric.accuracy(t, y, k=k), x, label,
                      grad=False)

    def test_half_precision(self):
        # The bridge in float16 and bfloat16 against Paddle CPU in float32.
        x = rng.randn(4, 6).astype(np.float32)
        w = rng.randn(6, 3).astype(np.float32)
        b = rng.randn(3).astype(np.float32)

        def net(t, u, c):
            h = paddle.matmul(t, u) + c
            h = paddle.nn.functional.gelu(h) * paddle.nn.functional.sigmoid(h)
            h = paddle.nn.functional.softmax(paddle.tanh(h) / 2.0 - h, -1)
            h = h + paddle.nn.functional.log_softmax(paddle.abs(h), -1) / 8
            h = paddle.clip(h, 0.0, 0.9) * paddle.exp(-paddle.square(h))
            h = paddle.max(paddle.stack(paddle.split(h, 3, axis=1)), 0)
            return (paddle.nn.functional.relu(h - 0.3) + t.mean()).sum(0)

        want = run("cpu", net, [x, w, b], True)
        for dtype, tol in (("float16", 1e-2), ("bfloat16", 6e-2)):
            got = run("backplane:0", lambda *a: net(
                *[v.astype(dtype) for v in a]).astype("float32"),
                [x, w, b], True)
            for g, c in zip(got, want):
                np.testing.assert_allclose(g, c, rtol=tol, atol=tol,
                                           err_msg=dtype)

    def test_optimizer_steps(self):
        w0 = rng.randn(3, 5).astype(np.float32)
        x = rng.randn(4, 3).astype(np.float32)
        makers = [
            lambda ps: paddle.optimizer.SGD(learning_rate=0.1, parameters=ps),
            lambda ps: paddle.optimizer.Momentum(
                learning_rate=0.1, momentum=0.9, parameters=ps),
            lambda ps: paddle.optimizer.Momentum(
                learning_rate=0.05, momentum=0.8, use_nesterov=True,
                weight_decay=paddle.regularizer.L2Decay(0.01), parameters=ps),
            lambda ps: paddle.optimizer.Adam(learning_rate=0.01,
                                             parameters=ps),
        ]
        for make in makers:
            results = []
            for device in ("cpu", "backplane:0"):
                paddle.set_device(device)
                w = paddle.create_parameter([3, 5], "float32")
                w.set_value(w0)
                opt = make([w])
                for _ in range(3):
                    (paddle.matmul(paddle.to_tensor(x), w).tanh()).mean() \
                        .backward()
                    opt.step()
                    opt.clear_grad()
                results.append(w.numpy())
            np.testing.assert_allclose(results[1], results[0], rtol=1e-5,
                                       atol=1e-6)

    def test_shapes_and_creation(self):
        x = rng.randn(2, 3, 4).astype(np.float32)
        self.same(lambda t: paddle.transpose(t, [2, 0, 1]), x)
        self.same(lambda t: paddle.concat([t, t * 2], axis=1), x)
        self.same(lambda t: paddle.argmax(t, axis=2), x, grad=False)
        self.same(lambda t: paddle.cast(t, "int64"), x * 10, grad=False)
        self.same(lambda t: paddle.full_like(t, 2.5) + paddle.scale(t, 3, 1),
                  x)
        paddle.set_device("backplane:0")
        np.testing.assert_array_equal(
            paddle.full([2, 2], 7, dtype="int64").numpy(), [[7, 7], [7, 7]])
        u = paddle.uniform([4096], min=-2.0, max=3.0).numpy()
        self.assertTrue(-2.0 <= u.min() and u.max() < 3.0)
        self.assertAlmostEqual(float(u.mean()), 0.5, delta=0.1)


    def test_unary_math_and_clip(self):
        # Strided inputs (a transpose, a step) reach the kernels packed.
        x = rng.randn(4, 6).astype(np.float32)
        x[0, :3] = [-0.5, 0.5, 0.0]  # clip's bounds: no gradient there
        for fn in (paddle.abs, paddle.exp, paddle.square,
                   lambda t: paddle.sqrt(paddle.abs(t) + 1),
                   lambda t: paddle.pow(t, 3.0), lambda t: t ** 2,
                   lambda t: paddle.clip(t, -0.5, 0.5),
                   lambda t: paddle.exp(t.T[:, ::2]),
                   lambda t: paddle.abs(t[:, 1::2] - 0.1)):
            self.same(fn, x)
        n = rng.randint(-9, 9, (3, 4)).astype(np.int64)
        for fn in (paddle.abs, paddle.square, lambda t: paddle.pow(t, 2),
                   lambda t: paddle.clip(t, -3, 4), lambda t: paddle.max(t, 1),
                   lambda t: paddle.where(t > 0, t, t * t)):
            self.same(fn, n, grad=False)

    def test_max_log_softmax_nll(self):
        x = rng.randn(3, 4, 5).astype(np.float32)
        self.same(lambda t: paddle.max(t, axis=1), x)
        self.same(lambda t: paddle.max(t, axis=[0, 2], keepdim=True), x)
        self.same(paddle.max, x)
        self.same(lambda t: paddle.min(t, axis=1), x)
        self.same(lambda t: paddle.min(t, axis=[0, 2], keepdim=True), x)
        self.same(paddle.min, x)
        # Tied extrema share the gradient equally, as on Paddle's CPU.
        ties = np.array([[1, -2, -2], [3, 3, 0]], np.float32)
        self.same(lambda t: paddle.min(t, axis=1), ties)
        self.same(lambda t: paddle.max(t, axis=1), ties)
        self.same(paddle.max, ties)
        self.same(lambda t: paddle.min(t, axis=0),
                  rng.randint(-5, 5, (4, 3)).astype(np.int64), grad=False)
        F = paddle.nn.functional
        self.same(lambda t: F.log_softmax(t, -1) * t, x)
        self.same(lambda t: F.log_softmax(t, 0) * t, x)
        logits = rng.randn(6, 5).astype(np.float32)
        label = rng.randint(0, 5, (6,)).astype(np.int64)
        label[1] = 2
        weight = rng.rand(5).astype(np.float32) + 0.5
        for kw in ({}, {"reduction": "sum"}, {"reduction": "none"},
                   {"ignore_index": 2}):
            self.same(lambda t, y: F.nll_loss(F.log_softmax(t, 1), y, **kw),
                      logits, label)
        self.same(lambda t, y: F.nll_loss(t, y, weight=paddle.to_tensor(
            weight)), logits, label)

    def test_where_stack_split_expand(self):
        x = rng.randn(4, 6).astype(np.float32)
        y = rng.randn(4, 6).astype(np.float32)
        self.same(lambda a, b: paddle.where(a > b, a * 2, b), x, y)
        # paddle.where broadcasts through expand first.
        self.same(lambda a, b: paddle.where(a > 0, a, b[0]), x, y)
        self.same(lambda a: paddle.expand(a[:1], [3, 4, 6]), x)
        self.same(lambda a, b: paddle.stack([a, b * 2], 0), x, y)
        self.same(lambda a, b: paddle.stack([a, b], -1), x, y)
        self.same(lambda a: paddle.stack(paddle.unstack(a, 1)[::-1], 0), x)
        self.same(lambda a: paddle.concat(paddle.split(a, 3, axis=1)[::-1]),
                  x)
        self.same(lambda a: paddle.split(a, [1, -1, 2], axis=0)[1] * 3, x)
        self.same(lambda a: paddle.split(a.T, 2)[0], x)

    def test_cumsum(self):
        x = rng.randn(3, 4, 5).astype(np.float32)
        self.same(lambda t: paddle.cumsum(t, axis=1) * t, x)
        self.same(lambda t: paddle.cumsum(t, axis=-1) * t, x)
        self.same(lambda t: paddle.cumsum(t) * t.flatten(), x)
        ints = rng.randint(-9, 9, (4, 6)).astype(np.int64)
        self.same(lambda t: paddle.cumsum(t, axis=0), ints, grad=False)

    def test_any_all_over_dims(self):
        x = rng.rand(3, 4, 5) > 0.3
        for fn in (paddle.any, paddle.all):
            for axis in (None, 1, -1, [0, 2], [0, 1, 2]):
                for keepdim in (False, True):
                    self.same(lambda t: fn(t, axis=axis, keepdim=keepdim),
                              x, grad=False)
        f = rng.randn(3, 4).astype(np.float32) * (rng.rand(3, 4) > 0.5)
        self.same(lambda t: paddle.any(t, axis=1), f, grad=False)
        self.same(lambda t: paddle.all(t, axis=0), f.astype(np.int64),
                  grad=False)

    def test_set_value_and_assign_value(self):
        x = rng.randn(4, 6).astype(np.float32)
        v = rng.randn(2, 3).astype(np.float32)

        def assigned(t, u):
            out = t * 1
            out[1:3, ::2] = u          # a tensor through a strided slice
            out[0] = 7.0               # a number, a decreased axis
            out[-1, 1:4] = u[0]        # broadcast, negative index
            return out
        self.same(assigned, x, v)

        def reversed_slices(t, u):
            out = t * 1
            out[::-1] = t[:, ::-1] * 2   # a whole dim reversed
            out[3:0:-2, -1:-6:-2] = u    # steps -2 on both dims
            out[-1, ::-5] = u[0, :2]     # a decreased axis, step -5
            out[2:0:-1, 1] = 5.0         # a number (no flip needed)
            return out
        self.same(reversed_slices, x, v)
        paddle.set_device("backplane:0")
        t = paddle.zeros([3, 4], dtype="int64")
        t[:, 1] = 5
        t[2, 2:] = paddle.to_tensor([8, 9])
        np.testing.assert_array_equal(
            t.numpy(), [[0, 5, 0, 0], [0, 5, 0, 0], [0, 5, 8, 9]])
        init = rng.randn(3, 2).astype(np.float32)
        w = paddle.create_parameter(
            [3, 2], "float32",
            default_initializer=paddle.nn.initializer.Assign(init))
        np.testing.assert_array_equal(w.numpy(), init)
        for dtype in ("int64", "int32", "bool"):  # paddle.assign(array)
            a = (init * 5).astype(dtype)
            np.testing.assert_array_equal(paddle.assign(a).numpy(), a)

    def test_dropout_semantics(self):
        F = paddle.nn.functional
        paddle.set_device("backplane:0")
        paddle.seed(5)
        x = paddle.to_tensor(rng.rand(200, 100).astype(np.float32) + 1,
                             stop_gradient=False)
        out = F.dropout(x, 0.3)
        (grad,) = paddle.grad([out.sum()], [x])
        o, g, xv = out.numpy(), grad.numpy(), x.numpy()
        dropped = o == 0
        self.assertAlmostEqual(float(dropped.mean()), 0.3, delta=0.02)
        np.testing.assert_allclose(o[~dropped], xv[~dropped] / 0.7, rtol=1e-6)
        # The gradient follows the same mask, scaled as kept elements were.
        np.testing.assert_array_equal(g == 0, dropped)
        np.testing.assert_allclose(g[~dropped], 1 / 0.7, rtol=1e-6)
        self.assertFalse(np.array_equal(F.dropout(x, 0.3).numpy(), o))
        np.testing.assert_array_equal(F.dropout(x, 0.3, training=False)
                                      .numpy(), xv)
        down = F.dropout(x, 0.25, mode="downscale_in_infer").numpy()
        kept = down != 0
        np.testing.assert_array_equal(down[kept], xv[kept])
        np.testing.assert_allclose(
            F.dropout(x, 0.25, mode="downscale_in_infer", training=False)
            .numpy(), xv * 0.75, rtol=1e-6)
        # fix_seed: the same seed attribute gives the same mask.
        masks = [paddle._C_ops.dropout(x, None, 0.5, False,
                                       "upscale_in_train", seed, True)
                 .numpy() == 0 for seed in (11, 11, 12)]
        np.testing.assert_array_equal(masks[0], masks[1])
        self.assertFalse(np.array_equal(masks[0], masks[2]))
        self.assertEqual(F.dropout(x, 1.0).numpy().max(), 0)

    def test_pooling_with_index_and_conv3d(self):
        F = paddle.nn.functional
        x = rng.randn(2, 3, 7, 7).astype(np.float32)
        for i in range(2):  # max_pool2d_with_index's mask and gradient
            self.same(lambda a: F.max_pool2d(a, 3, 2, 1,
                                             return_mask=True)[i], x,
                      grad=i == 0)
        self.same(lambda a: F.max_pool2d(a, 2, ceil_mode=True,
                                         return_mask=True)[0], x)
        for size in (3, (2, 4), 1):
            for i in range(2):
                self.same(lambda a: F.adaptive_max_pool2d(
                    a, size, return_mask=True)[i], x, grad=i == 0)
        v = rng.randn(2, 2, 5, 4, 6).astype(np.float32)
        self.same(lambda a: F.max_pool3d(a, 2, 2), v)
        self.same(lambda a: F.max_pool3d(a, 3, 2, 1, ceil_mode=True), v)
        for exclusive in (True, False):
            self.same(lambda a: F.avg_pool3d(a, 3, (1, 2, 2), 1,
                                             exclusive=exclusive), v)
        self.same(lambda a: F.adaptive_avg_pool3d(a, (2, 3, 2)), v)
        self.same(lambda a: F.local_response_norm(a[:, :, 0], 3), v)
        w = rng.randn(3, 2, 3, 2, 3).astype(np.float32)
        self.same(lambda a, b: F.conv3d(a, b, padding=1, stride=(1, 2, 1)),
                  v, w, rtol=1e-4, atol=1e-5)
        self.same(lambda a, b: F.conv3d(a, b[:, :1], dilation=(1, 1, 2),
                                        groups=2), v,
                  rng.randn(4, 2, 2, 2, 2).astype(np.float32), rtol=1e-4,
                  atol=1e-5)

    def test_smooth_activations_and_prelu(self):
        F = paddle.nn.functional
        x = rng.randn(2, 3, 4, 5).astype(np.float32) * 3
        for fn in (F.mish, F.selu, F.celu, lambda t: F.celu(t, 0.4),
                   lambda t: F.selu(t, 1.2, 1.5)):
            self.same(fn, x)
        for alpha in (rng.rand(1), rng.rand(3)):
            self.same(F.prelu, x, alpha.astype(np.float32))
        self.same(lambda t, a: paddle._C_ops.prelu(t, a, "NCHW", "element"),
                  x, rng.rand(1, 3, 4, 5).astype(np.float32))
        self.same(lambda t, a: F.prelu(t, a, data_format="NHWC"), x,
                  rng.rand(5).astype(np.float32))

    def test_division_sign_erf_lerp_atan2(self):
        x = rng.randn(4, 5).astype(np.float32) * 4
        y = rng.uniform(0.5, 2, (5,)).astype(np.float32)
        y[::2] *= -1
        self.same(paddle.remainder, x, y)
        self.same(paddle.floor_divide, x, y, grad=False)
        a = rng.randint(-20, 20, (4, 5)).astype(np.int64)
        b = rng.randint(1, 6, (4, 5)).astype(np.int64) * \
            rng.choice([-1, 1], (4, 5))
        for fn in (paddle.remainder, paddle.floor_divide):
            self.same(fn, a, b, grad=False)
        x[0, :2] = 0
        self.same(paddle.sign, x, grad=False)
        self.same(paddle.sign, a, grad=False)
        self.same(paddle.erf, x / 4)
        z = rng.randn(3, 1, 5).astype(np.float32)
        self.same(lambda s, t: paddle.lerp(s, t, 0.3), x, z)
        w = rng.rand(4, 1).astype(np.float32)  # a weight tensor
        self.same(lambda s, t: paddle.lerp(s, t, paddle.to_tensor(w)), x, z)
        u = rng.randn(4, 5).astype(np.float32)
        u[1, :2] = 0  # atan2(+-x, 0), every quadrant below
        self.same(paddle.atan2, x, u)

    def test_along_axis_and_nd_indexing(self):
        x = rng.randn(4, 5, 3).astype(np.float32)
        idx = rng.randint(0, 5, (4, 2, 3)).astype(np.int64)
        idx[0, :, 0] = 1  # a repeated index: its gradients add up
        for dtype in (np.int64, np.int32):
            self.same(lambda t: paddle.take_along_axis(
                t, paddle.to_tensor(idx.astype(dtype)), 1), x)
        last = rng.randint(0, 3, (4, 1, 2)).astype(np.int64)  # broadcast
        self.same(lambda t: paddle.take_along_axis(
            t, paddle.to_tensor(last), -1), x)
        rows = rng.permutation(5)[:2].reshape(1, 2, 1).repeat(4, 0).repeat(
            3, 2).astype(np.int64)  # distinct within each line
        v = rng.randn(4, 2, 3).astype(np.float32)
        for reduce in ("assign", "add", "mul"):
            self.same(lambda t, u: paddle.put_along_axis(
                t, paddle.to_tensor(rows), u, 1, reduce), x, v,
                grad=reduce != "mul")
        self.same(lambda t: paddle.put_along_axis(
            t, paddle.to_tensor(rows), 2.5, 1), x)
        at = np.array([2, 0, 2], np.int64)
        self.same(lambda t, u: paddle.index_add(t, paddle.to_tensor(at), 1,
                                                u), x,
                  rng.randn(4, 3, 3).astype(np.float32))
        self.same(lambda t, u: paddle.index_add(t, paddle.to_tensor(at), -1,
                                                u), x,
                  rng.randn(4, 5, 3).astype(np.float32))
        self.same(lambda t: paddle.index_add(
            t, paddle.to_tensor([1, 1], dtype="int32"), 0,
            paddle.ones([2, 5, 3])), x)
        for index in ([[1, 2], [0, 4], [1, 2]], [[3]], [[[0, 1, 2]], [[3, 4, 0]]],
                      [2, 1]):
            i = paddle.to_tensor(np.array(index, np.int64))
            self.same(lambda t: paddle.gather_nd(t, i), x)
            shape = list(i.shape[:-1]) + list(x.shape[i.shape[-1]:])
            self.same(lambda t, u: paddle.scatter_nd_add(t, i, u), x,
                      rng.randn(*shape).astype(np.float32))
        n = rng.randint(-9, 9, (4, 5)).astype(np.int64)
        self.same(lambda t: paddle.gather_nd(
            t, paddle.to_tensor([[1, 2], [3, 0]], dtype="int32")), n,
            grad=False)

    def test_cumprod_diagonals_and_creation(self):
        x = rng.uniform(0.5, 1.5, (3, 9, 4)).astype(np.float32)
        x[0, 1, 0] = -1.25
        for dim in (1, -1, 0):
            self.same(lambda t: paddle.cumprod(t, dim), x)
        for exclusive, reverse in ((True, False), (False, True),
                                   (True, True)):
            self.same(lambda t: paddle._C_ops.cumprod(t, 1, exclusive,
                                                      reverse), x)
        self.same(lambda t: paddle.cumprod(t, 0),
                  rng.randint(-3, 4, (6, 2)).astype(np.int64), grad=False)
        m = rng.randn(4, 5).astype(np.float32)
        v = rng.randn(3).astype(np.float32)
        for offset in (0, 2, -1, 7):
            self.same(lambda t: paddle.diag(t, offset), m)
            self.same(lambda t: paddle.trace(t, offset), m)
            self.same(lambda t: paddle.diag(t, offset, padding_value=0.5), v)
        cube = rng.randn(3, 4, 5).astype(np.float32)
        self.same(lambda t: paddle.trace(t, 1, 0, 2), cube)
        self.same(lambda t: paddle.trace(t, -1, 2, 1), cube)
        paddle.set_device("backplane:0")
        for rows, cols, dtype in ((3, None, "float32"), (2, 4, "int64"),
                                  (4, 2, "float64")):
            np.testing.assert_array_equal(
                paddle.eye(rows, cols, dtype).numpy(),
                np.eye(rows, cols, dtype=dtype))
        for start, stop, num in ((0, 1, 5), (-2.5, 4, 8), (3, 3, 1)):
            np.testing.assert_allclose(
                paddle.linspace(start, stop, num).numpy(),
                np.linspace(start, stop, num, dtype=np.float32), rtol=1e-6,
                atol=1e-6)
        np.testing.assert_array_equal(
            paddle.linspace(0, 10, 6, dtype="int64").numpy(),
            [0, 2, 4, 6, 8, 10])

    def test_rearrangements_and_unfold(self):
        F = paddle.nn.functional
        x = rng.randn(2, 3, 4).astype(np.float32)
        for repeats, axis in ((2, 0), (3, -1), (1, 1)):
            self.same(lambda t: paddle.repeat_interleave(t, repeats, axis), x)
        self.same(lambda t: paddle.repeat_interleave(t, 2), x)
        for reps, axis in (([2, 0, 3], 1), ([1, 4], 0), ([0, 1, 2, 1], -1)):
            self.same(lambda t: paddle.repeat_interleave(
                t, paddle.to_tensor(np.array(reps, np.int64)), axis), x)
        self.same(lambda t: paddle.repeat_interleave(
            t, paddle.to_tensor(np.array([1, 2, 1], np.int32)), 1),
            rng.randint(-5, 5, (2, 3)).astype(np.int64), grad=False)
        self.same(lambda t: paddle.repeat_interleave(t, 2, 1),
                  rng.randint(-5, 5, (2, 3)).astype(np.int64), grad=False)
        img = rng.randn(2, 8, 3, 2).astype(np.float32)
        self.same(lambda t: F.pixel_shuffle(t, 2) * paddle.arange(
            96, dtype="float32").reshape([2, 2, 6, 4]), img)
        self.same(lambda t: F.pixel_shuffle(t, 2, "NHWC"),
                  rng.randn(2, 3, 2, 8).astype(np.float32))
        img = rng.randn(2, 3, 6, 5).astype(np.float32)
        self.same(lambda t: F.unfold(t, 2) * 2, img)
        self.same(lambda t: F.unfold(t, [3, 2], strides=2, paddings=1,
                                     dilations=[1, 2]), img)

    def test_random_draws(self):
        # Statistics of the device's draws, and paddle.seed repeating them.
        paddle.set_device("backplane:0")
        draws = {}
        for attempt in range(2):
            paddle.seed(7)
            r = paddle.randint(-3, 5, [4000]).numpy()
            p = paddle.randperm(50).numpy()
            probs = paddle.to_tensor(np.array([0.1, 0.6, 0.3], np.float32))
            b = paddle.bernoulli(paddle.full([4000], 0.25)).numpy()
            m = paddle.multinomial(probs, 4000, replacement=True).numpy()
            w = paddle.multinomial(paddle.stack([probs, probs[::-1]]), 3)
            draws[attempt] = (r, p, b, m, w.numpy())
        r, p, b, m, w = draws[0]
        self.assertEqual(r.dtype, np.int64)
        self.assertEqual((r.min(), r.max()), (-3, 4))
        self.assertAlmostEqual(float(r.mean()), 0.5, delta=0.15)
        np.testing.assert_array_equal(np.sort(p), np.arange(50))
        self.assertFalse(np.array_equal(p, np.arange(50)))
        self.assertEqual(set(np.unique(b)), {0.0, 1.0})
        self.assertAlmostEqual(float(b.mean()), 0.25, delta=0.03)
        self.assertEqual(m.dtype, np.int64)
        np.testing.assert_allclose(np.bincount(m, minlength=3) / 4000,
                                   [0.1, 0.6, 0.3], atol=0.03)
        for row in w:  # without replacement: each category once
            np.testing.assert_array_equal(np.sort(row), [0, 1, 2])
        for a, c in zip(draws[0], draws[1]):
            np.testing.assert_array_equal(a, c)
        self.assertEqual(paddle.randperm(6, "float32").numpy().dtype,
                         np.float32)
        self.assertEqual(paddle.randint(0, 2, [3], "int32").numpy().dtype,
                         np.int32)

    def test_products_distances_and_searches(self):
        F = paddle.nn.functional
        a = rng.randn(4, 3, 2).astype(np.float32)
        b = rng.randn(4, 3, 2).astype(np.float32)
        self.same(paddle.cross, a, b)  # the first dim of size 3
        self.same(lambda s, t: paddle.cross(s, t, 1), a, b)
        self.same(lambda s, t: paddle.cross(s, t, -1), a.reshape(8, 3),
                  b.reshape(8, 3))
        self.same(paddle.kron, rng.randn(2, 3).astype(np.float32),
                  rng.randn(4, 2).astype(np.float32))
        self.same(paddle.kron, rng.randn(3).astype(np.float32),
                  rng.randn(2, 2, 2).astype(np.float32))
        for p in (2.0, 1.0, 3.0, float("inf")):
            self.same(lambda s, t: paddle.dist(s, t, p), a, b[:1], rtol=1e-4)
        seq = np.sort(rng.randn(3, 6).astype(np.float32), axis=1)
        val = rng.randn(3, 4).astype(np.float32)
        val[0, 0] = seq[0, 2]  # a value in the sequence: left and right differ
        for right in (False, True):
            for out_int32 in (False, True):
                self.same(lambda s, v: paddle.searchsorted(
                    s, v, out_int32=out_int32, right=right), seq, val,
                    grad=False)
        self.same(lambda s, v: paddle.bucketize(v, s[0], right=True), seq,
                  val, grad=False)
        x = rng.randn(3, 5, 4).astype(np.float32)
        for k, axis, keepdim in ((2, 1, False), (1, -1, True), (3, 0, False)):
            for i in range(2):
                self.same(lambda t: paddle.kthvalue(t, k, axis, keepdim)[i],
                          x, grad=i == 0)
        m = (rng.rand(3, 4) > 0.5) & (rng.rand(3, 4) > 0.2)
        self.same(paddle.nonzero, m, grad=False)
        self.same(lambda t: paddle.nonzero(t, as_tuple=True)[1],
                  (x > 0.5).astype(np.float32), grad=False)
        self.same(paddle.nonzero, np.zeros((2, 3), np.int64), grad=False)
        img = rng.randn(2, 3, 5, 4).astype(np.float32)
        grid = rng.uniform(-1.1, 1.1, (2, 3, 6, 2)).astype(np.float32)
        for mode, padding, corners in (("bilinear", "zeros", True),
                                       ("bilinear", "border", False),
                                       ("nearest", "reflection", False)):
            self.same(lambda t, g: F.grid_sample(t, g, mode, padding,
                                                 corners), img, grid,
                      rtol=1e-4, atol=1e-5)

    def test_median(self):
        x = rng.randn(3, 4, 5).astype(np.float32)  # no ties
        for mode in ("avg", "min"):
            for axis, keepdim in ((None, False), (1, False), (-1, True),
                                  (0, False)):
                for i in range(2):
                    self.same(lambda t: paddle._C_ops.median(
                        t, [] if axis is None else [axis], keepdim,
                        mode)[i], x, grad=i == 0)
        self.same(lambda t: paddle.median(t, 1), x)

    def test_histogram_and_bincount(self):
        x = rng.randn(50).astype(np.float32)
        x[:3] = [x.max(), 0.5, -0.25]  # the largest twice; bin edges
        for bins, lo, hi in ((4, 0, 0), (5, -1, 1), (3, 0.5, 0.5),
                             (7, -0.25, 0.5)):
            self.same(lambda t: paddle.histogram(t, bins, lo, hi), x,
                      grad=False)
        w = rng.rand(50).astype(np.float32)
        self.same(lambda t, u: paddle.histogram(t, 6, -2, 2, weight=u), x, w,
                  grad=False)
        self.same(lambda t: paddle.histogram(t, 6, -2, 2, density=True), x,
                  grad=False, rtol=1e-5)
        n = rng.randint(0, 7, (40,)).astype(np.int64)
        for minlength in (0, 3, 12):
            self.same(lambda t: paddle.bincount(t, minlength=minlength), n,
                      grad=False)
        self.same(lambda t, u: paddle.bincount(t, u), n,
                  rng.rand(40).astype(np.float32), grad=False)
        self.same(lambda t: paddle.bincount(t), n.astype(np.int32),
                  grad=False)

    def test_unique(self):
        x = rng.randint(-3, 4, (4, 5)).astype(np.int64)
        f = (x / 2).astype(np.float32)
        for i in range(4):  # out, first occurrences, inverse, counts
            self.same(lambda t: paddle.unique(t, True, True, True)[i], x,
                      grad=False)
            self.same(lambda t: paddle.unique(t, True, True, True,
                                              dtype="int32")[i], f,
                      grad=False)
        rows = np.array([[1, 2], [0, 5], [1, 2], [0, 1]], np.int64)
        for axis in (0, 1):
            for i in range(4):
                self.same(lambda t: paddle.unique(t, True, True, True,
                                                  axis=axis)[i], rows,
                          grad=False)
        self.same(paddle.unique, f, grad=False)

    def test_mode(self):
        # The most frequent value (the smallest of equally frequent ones)
        # and its last index, as on Paddle's CPU.
        x = rng.randint(0, 4, (3, 7, 5)).astype(np.float32)
        for axis, keepdim in ((1, False), (-1, True), (0, False)):
            for i in range(2):
                self.same(lambda t: paddle.mode(t, axis, keepdim)[i], x,
                          grad=i == 0)
        self.same(lambda t: paddle.mode(t)[1],
                  rng.randint(-2, 2, (4, 6)).astype(np.int64), grad=False)

    def test_einsum(self):
        a = rng.randn(3, 4).astype(np.float32)
        b = rng.randn(4, 5).astype(np.float32)
        c = rng.randn(2, 3, 4).astype(np.float32)
        d = rng.randn(2, 4, 5).astype(np.float32)
        for eq, xs in (("ij,jk->ik", (a, b)), ("ij,jk", (a, b)),
                       ("ij->ji", (a,)), ("ij->", (a,)), ("ij->j", (a,)),
                       ("bij,bjk->bik", (c, d)), ("bij,bjk->kib", (c, d)),
                       ("ij,kl->ijkl", (a, b)), ("i,i->", (a[0], a[1])),
                       ("bij,jk->bk", (c, b))):
            self.same(lambda *t: paddle.einsum(eq, *t), *xs, rtol=1e-4,
                      atol=1e-5)

    def test_newer_kernels_in_their_other_dtypes(self):
        # float64, float16 and bfloat16 on the bridge against Paddle's CPU in
        # float32 (and int32 where registered), forward.
        F = paddle.nn.functional
        x = rng.randn(2, 3, 4, 5).astype(np.float32)
        y = rng.randn(2, 3, 4, 5).astype(np.float32)
        idx = rng.randint(0, 3, (2, 3, 4, 5)).astype(np.int64)
        at = [[0, 1], [1, 2]]
        cases = (
            lambda a, b: F.mish(a) + F.selu(b) + F.celu(a),
            lambda a, b: F.prelu(a, paddle.full([3], 0.2, a.dtype)),
            lambda a, b: paddle.remainder(a, b.abs() + 0.5) +
            paddle.floor_divide(a, b.abs() + 0.5) + paddle.sign(a),
            lambda a, b: paddle.erf(a) + paddle.lerp(a, b, 0.3),
            lambda a, b: paddle.take_along_axis(a, paddle.to_tensor(idx), 1),
            lambda a, b: paddle.put_along_axis(
                a, paddle.to_tensor(idx[:, :1]), b[:, :1], 1, "add"),
            lambda a, b: paddle.index_add(a, paddle.to_tensor([0, 2]), 1,
                                          b[:, :2]),
            lambda a, b: paddle.scatter_nd_add(
                a, paddle.to_tensor(at), b[:2, 0]) * 2 +
            paddle.gather_nd(a, paddle.to_tensor(at)).sum(),
            lambda a, b: paddle.cumprod(a * 0.5 + 1, 3),
            lambda a, b: paddle.diag(a[0, 0]).sum() + paddle.trace(a[0, 0]),
            lambda a, b: paddle.repeat_interleave(a, 2, 1),
            lambda a, b: F.pixel_shuffle(a.reshape([2, 12, 1, 5]), 2),
            lambda a, b: F.unfold(a, 2),
            lambda a, b: paddle.cross(a, b, 1),
            lambda a, b: paddle.kron(a[0, 0], b[0, 0]),
            lambda a, b: paddle.dist(a, b) + paddle.median(a, 3).sum() +
            paddle.kthvalue(a, 2, 3)[0].sum(),
            lambda a, b: paddle.einsum("bcij,bckj->bcik", a, b))
        for dtype, tol in (("float64", 1e-5), ("float16", 3e-2),
                           ("bfloat16", 2e-1)):
            for fn in cases:
                want = run("cpu", fn, [x, y], False)[0]
                got = run("backplane:0", lambda a, b: fn(
                    a.astype(dtype), b.astype(dtype)).astype("float32"),
                    [x, y], False)[0]
                np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 4,
                                           err_msg=dtype)
        n = rng.randint(-5, 5, (2, 3, 4)).astype(np.int32)
        for fn in (lambda t: paddle.take_along_axis(
                       t, paddle.to_tensor(idx[:, :, :, 0]), 1),
                   lambda t: paddle.cumprod(t, 2), lambda t: paddle.kron(
                       t[0], t[1]), lambda t: paddle.unique(t),
                   lambda t: paddle.cross(t, paddle.roll(t, 1, 2), 1)):
            self.same(fn, n, grad=False)


if __name__ == "__main__":
    unittest.main()
