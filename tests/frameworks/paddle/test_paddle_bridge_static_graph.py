"""Paddle's legacy operators in a static graph run by the legacy-IR executor
(FLAGS_enable_pir_api=0, as Paddle's OpTest and PaddleCustomDevice's op
tests run them) on the bridge: float64 outputs keep float64 (the executor
hands kernels outputs in a float32 placeholder dtype), the _raw kernels it
asks for (compares, an `axis` for the operand of fewer dims, a reduce_all,
a diagonal for uniform_random) and their gradients, add_n, int8 labels of the
cross entropy, float64 through exp, clip, where, stack and max, and cumsum
(exclusive, reversed, flattened; + its gradient) slice (+ its gradient;
starts from a tensor) and reduce_prod over several dims (+ its gradient). Each check runs in a child process that counts CPU fallbacks
(BACKPLANE_PADDLE_FALLBACKS=1): this executor falls back without asking, so
a check passes only if nothing ran on Paddle's CPU."""
import os
import subprocess
import sys
import unittest

CHECKS = r'''
import sys
try:
    import numpy as np
    import paddle
except ImportError as error:
    print(f"SKIP: {sys.executable} cannot import paddle ({error})")
    sys.exit(77)
from paddle.base import core
from paddle.base.backward import append_backward
from paddle.base.proto import framework_pb2

paddle.enable_static()
PLACE = paddle.CustomPlace("backplane", 0)


def run(op_type, inputs, outputs, attrs=None, grads=()):
    """Runs one legacy operator: inputs {slot: array or [(name, array)]},
    outputs {slot: dtype}; returns the outputs, then the gradients of
    mean(first output) with respect to the inputs named in `grads`."""
    main = paddle.static.Program()
    block = main.global_block()
    feed, ins = {}, {}
    for slot, value in inputs.items():
        named = value if isinstance(value, list) else [(slot.lower(), value)]
        ins[slot] = []
        for name, array in named:
            var = block.create_var(name=name, shape=array.shape,
                                   dtype=array.dtype, stop_gradient=False)
            ins[slot].append(var)
            feed[name] = array
    outs = {slot: [block.create_var(name=slot.lower() + "_out", dtype=dtype)]
            for slot, dtype in outputs.items()}
    op = block.append_op(type=op_type, inputs=ins, outputs=outs,
                         attrs=attrs or {})
    op.desc.infer_var_type(block.desc)
    op.desc.infer_shape(block.desc)
    fetch = [vars_[0] for vars_ in outs.values()]
    if grads:
        loss = block.create_var(name="loss", dtype=fetch[0].dtype, shape=[1])
        block.append_op(type="mean", inputs={"X": [fetch[0]]},
                        outputs={"Out": [loss]})
        append_backward(loss, parameter_list=list(grads))
        fetch += [block.var(name + "@GRAD") for name in grads]
    return paddle.static.Executor(PLACE).run(main, feed=feed,
                                             fetch_list=fetch)


def run_alone(op_type, inputs, outputs, attrs=None):
    """Runs one operator by itself on tensors set in a scope beforehand, as
    OpTest's numeric gradients run it: an output's dtype is the float32
    placeholder until a kernel allocates it. inputs {slot: [(name, array)]},
    outputs: slots; returns the outputs."""
    desc = framework_pb2.OpDesc()
    desc.type = op_type
    scope = core.Scope()
    for slot, named in inputs.items():
        arg = desc.inputs.add()
        arg.parameter = slot
        for name, array in named:
            arg.arguments.append(name)
            scope.var(name).get_tensor().set(array, PLACE)
    for slot in outputs:
        arg = desc.outputs.add()
        arg.parameter = slot
        arg.arguments.append(slot.lower() + "_alone")
        scope.var(slot.lower() + "_alone").get_tensor()
    for name, value in (attrs or {}).items():
        attr = desc.attrs.add()
        attr.name = name
        if isinstance(value, float):
            attr.type, attr.f = framework_pb2.FLOAT, value
        else:
            attr.type = framework_pb2.INTS
            attr.ints.extend(value)
    core.Operator.create(desc.SerializeToString()).run(scope, PLACE)
    return [np.array(scope.find_var(slot.lower() + "_alone").get_tensor())
            for slot in outputs]


def check(name, got, want, tol=1e-12):
    got = np.asarray(got)
    ok = got.dtype == np.asarray(want).dtype and got.shape == np.shape(want) \
        and np.allclose(got, want, rtol=tol, atol=tol)
    print(("ok " if ok else "BAD ") + name, flush=True)
    if not ok:
        print(got.dtype, got.shape, got.ravel()[:5], np.ravel(want)[:5])


rng = np.random.default_rng(7)
x = rng.random((4, 3, 5))
y = rng.random((3,))

out, = run_alone("elementwise_mul", {"X": [("a", x)], "Y": [("a", x)]},
                 ["Out"])
check("float64 output stays float64", out, x * x)

out, dx, dy = run("elementwise_mul", {"X": x, "Y": y}, {"Out": "float64"},
                  {"axis": 1}, grads=("x", "y"))
at_axis = y.reshape(1, 3, 1)
check("multiply_raw axis 1", out, x * at_axis)
check("multiply_grad axis 1: dx", dx, np.broadcast_to(at_axis, x.shape) /
      x.size)
check("multiply_grad axis 1: dy", dy, (x / x.size).sum(axis=(0, 2)))

out, = run("elementwise_add", {"X": x, "Y": y}, {"Out": "float64"},
           {"axis": 1})
check("add_raw axis 1", out, x + at_axis)

last = rng.random((5,))
out, = run("less_than", {"X": x, "Y": last}, {"Out": "bool"})
check("less_than_raw", out, x < last)

out, = run("reduce_sum", {"X": x}, {"Out": "float64"},
           {"dim": [0], "reduce_all": True})
check("sum_raw reduce_all", out, np.array(x.sum()), tol=1e-12)

out, = run("reduce_mean", {"X": x}, {"Out": "float64"}, {"dim": [2]})
check("mean_raw dim 2", out, x.mean(axis=2))

ints = rng.integers(0, 100, (4, 3)).astype(np.int32)
out, = run("reduce_sum", {"X": ints}, {"Out": "int64"}, {"dim": [1]})
check("sum of int32 is int64", out, ints.sum(axis=1).astype(np.int64))

out, = run("uniform_random", {}, {"Out": "float32"},
           {"shape": [4, 4], "min": -1.0, "max": 1.0, "seed": 3,
            "diag_num": 4, "diag_step": 4, "diag_val": 5.0})
check("uniform_random diagonal", np.diag(out), np.full(4, 5.0, np.float32))

parts = [("a", x), ("b", 2 * x), ("c", 3 * x)]
out, = run("sum", {"X": parts}, {"Out": "float64"})
check("add_n of three", out, 6 * x)

logits = rng.random((6, 4))
labels = rng.integers(0, 4, (6, 1)).astype(np.int8)
softmax, loss = run("softmax_with_cross_entropy",
                    {"Logits": logits, "Label": labels},
                    {"Softmax": "float64", "Loss": "float64"})
p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
check("cross entropy of int8 labels",
      loss, -np.log(p[np.arange(6), labels[:, 0]])[:, None], tol=1e-10)

# Kernels of the math, reduce, indexing and manipulation families, each run
# alone in float64: each output keeps float64. (where_grad's InferMeta leaves
# x_grad in the condition's dtype, bool: the kernel must name its own.)
other = rng.random((4, 3, 5))
out, = run_alone("exp", {"X": [("a", x)]}, ["Out"])
check("exp float64", out, np.exp(x))
out, = run_alone("clip", {"X": [("a", x)]}, ["Out"],
                 {"min": 0.2, "max": 0.7})
# The legacy op's bounds are float32 attributes.
check("clip float64", out, np.clip(x, np.float32(0.2), np.float32(0.7)))
out, = run_alone("where", {"Condition": [("c", x > other)], "X": [("a", x)],
                           "Y": [("b", other)]}, ["Out"])
check("where float64", out, np.where(x > other, x, other))
dx, dy = run_alone("where_grad", {"Condition": [("c", x > other)],
                                  "X": [("a", x)], "Y": [("b", other)],
                                  "Out@GRAD": [("g", other)]},
                   ["X@GRAD", "Y@GRAD"])
check("where_grad float64: dx", dx, np.where(x > other, other, 0.0))
check("where_grad float64: dy", dy, np.where(x > other, 0.0, other))
out, = run_alone("stack", {"X": [("a", x), ("b", other)]}, ["Y"])
check("stack float64", out, np.stack([x, other]))
out, = run_alone("reduce_max", {"X": [("a", x)]}, ["Out"], {"dim": [2]})
check("max float64", out, x.max(axis=2))

# cumsum, exclusive and from the end: out[:, i] sums x[:, i + 1:]; its
# gradient sums the other way.
out, dx = run("cumsum", {"X": x}, {"Out": "float64"},
              {"axis": 1, "exclusive": True, "reverse": True}, grads=("x",))
after = np.stack([x[:, i + 1:].sum(axis=1) for i in range(3)], axis=1)
check("cumsum exclusive reverse", out, after)
check("cumsum_grad exclusive reverse", dx,
      np.broadcast_to(np.arange(3.0).reshape(1, 3, 1), x.shape) / x.size)
out, = run("cumsum", {"X": x}, {"Out": "float64"}, {"flatten": True})
check("cumsum flatten", out, np.cumsum(x.ravel()))

# slice (eager slices are views; this executor runs the kernel): bounds
# normalized as Paddle's, a decreased axis, starts from a tensor, and the
# gradient, zero outside the slice.
out, dx = run("slice", {"Input": x}, {"Out": "float64"},
              {"axes": [0, 2], "starts": [1, -3], "ends": [2, 10],
               "infer_flags": [1, 1], "decrease_axis": [0]}, grads=("input",))
check("slice decrease_axis", out, x[1, :, 2:])
region = np.zeros_like(x)
region[1, :, 2:] = 1 / out.size
check("slice_grad", dx, region)
out, = run("slice", {"Input": x, "StartsTensor": np.array([1, 0], np.int32)},
           {"Out": "float64"}, {"axes": [1, 2], "starts": [-1, -1],
                                "ends": [3, 2], "infer_flags": [-1, -1]})
check("slice StartsTensor", out, x[:, 1:3, 0:2])

# reduce_prod over a list of dims, and its gradient.
out, dx = run("reduce_prod", {"X": x}, {"Out": "float64"},
              {"dim": [0, 2], "keep_dim": False}, grads=("x",))
check("prod over dims 0 and 2", out, x.prod(axis=(0, 2)))
check("prod_grad", dx, (out / 3).reshape(1, 3, 1) / x, tol=1e-10)
'''


def run_checks():
    # The settings (bridge_env.py's, and the legacy IR) act at Paddle's
    # start, so the checks run in a child; this process imports no Paddle.
    env = dict(os.environ,
               CUSTOM_DEVICE_ROOT=os.environ["BP_PADDLE_BRIDGE_DIR"],
               FLAGS_enable_api_kernel_fallback="0", FLAGS_enable_pir_api="0",
               BACKPLANE_PADDLE_FALLBACKS="1", GLOG_minloglevel="0")
    return subprocess.run([sys.executable, "-c", CHECKS], env=env,
                          capture_output=True, text=True, timeout=120)


class StaticGraph(unittest.TestCase):
    def test_legacy_operators_run_on_the_bridge(self):
        out = OUT  # noqa: F821 (set before unittest.main)
        self.assertEqual(out.returncode, 0, out.stderr[-3000:])
        bad = [line for line in out.stdout.splitlines()
               if not line.startswith("ok ")]
        self.assertEqual(bad, [], out.stdout)
        self.assertEqual(out.stdout.count("ok "), 27, out.stdout)
        fallbacks = [line for line in out.stderr.splitlines()
                     if "backplane paddle bridge: fallback" in line]
        self.assertEqual(fallbacks, [])
        self.assertIn("backplane paddle bridge: 0 fallbacks", out.stderr)


if __name__ == "__main__":
    OUT = run_checks()
    if OUT.returncode == 77:
        print(OUT.stdout.strip())
        sys.exit(77)
    unittest.main()
