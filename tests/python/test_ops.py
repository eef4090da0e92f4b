import numpy as np
import pytest

import backplane
from backplane import ops


def dev(a, d):
    return backplane.from_numpy(np.ascontiguousarray(a), device=d)


def test_add_with_alpha_by_short_and_diopi_name(dev0, rng):
    a = rng.standard_normal(100).astype(np.float32)
    b = rng.standard_normal(100).astype(np.float32)
    out = backplane.empty((100,), "float32", dev0)
    assert ops.add(out, dev(a, dev0), dev(b, dev0), alpha=2.0) is out
    np.testing.assert_allclose(backplane.to_numpy(out), a + 2 * b, rtol=1e-6)
    ops.call("diopiAddInpScalar", out, other=1.0, alpha=1.0)
    np.testing.assert_allclose(backplane.to_numpy(out), a + 2 * b + 1,
                               rtol=1e-6)


def test_linear_relu_and_cross_entropy(dev0, rng):
    x = rng.standard_normal((8, 5)).astype(np.float32)
    w = rng.standard_normal((3, 5)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    y = backplane.empty((8, 3), "float32", dev0)
    ops.linear(y, dev(x, dev0), dev(w, dev0), dev(b, dev0))
    expect = x @ w.T + b
    np.testing.assert_allclose(backplane.to_numpy(y), expect, rtol=1e-5,
                               atol=1e-5)
    ops.relu_inp(y)
    np.testing.assert_allclose(backplane.to_numpy(y), np.maximum(expect, 0),
                               rtol=1e-5, atol=1e-5)
    target = np.array([0, 1, 2, 0, 1, 2, 0, 1], np.int64)
    loss = backplane.empty((), "float32", dev0)
    ops.cross_entropy_loss(loss, y, dev(target, dev0), None, "mean", -100,
                           0.0)
    logits = np.maximum(expect, 0).astype(np.float64)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    ref = -logp[np.arange(8), target].mean()
    assert abs(float(backplane.to_numpy(loss)) - ref) < 1e-5


def test_tensor_lists_sizes_and_optional_pointers(dev0):
    a = dev(np.ones((2, 2), np.float32), dev0)
    b = dev(np.zeros((1, 2), np.float32), dev0)
    out = backplane.empty((3, 2), "float32", dev0)
    ops.cat(out, [a, b], dim=0)  # num_inputs filled in
    np.testing.assert_array_equal(backplane.to_numpy(out),
                                  [[1, 1], [1, 1], [0, 0]])
    s = backplane.empty((2,), "float32", dev0)
    ops.sum(s, out, [0])
    np.testing.assert_array_equal(backplane.to_numpy(s), [2, 2])
    idx = backplane.empty((), "int64", dev0)
    ops.argmax(idx, dev(np.array([3, 9, 1], np.float32), dev0), None, False)
    assert int(backplane.to_numpy(idx)) == 1


def test_ops_run_on_the_active_stream(dev0):
    s = backplane.Stream(dev0)
    a = dev(np.arange(4, dtype=np.float32), dev0)
    with s:
        out = backplane.empty((4,), "float32", dev0)
        ops.mul(out, a, a)
    s.synchronize()
    np.testing.assert_array_equal(backplane.to_numpy(out), [0, 1, 4, 9])


def test_errors_are_exceptions_with_the_library_message(dev0):
    a = backplane.zeros((8,), "float32", dev0)
    with pytest.raises(backplane.InvalidArgumentError,
                       match="diopiAdd: other: shape .* does not broadcast"):
        ops.add(a, a, backplane.zeros((3,), "float32", dev0), alpha=1)
    with pytest.raises(TypeError, match="missing argument 'other'"):
        ops.add(a)  # out-of-place, other missing
    with pytest.raises(TypeError, match="no parameter"):
        ops.add(a, a, a, beta=1)
    with pytest.raises(AttributeError):
        ops.not_an_op
    with pytest.raises(TypeError, match="diopiContiguous: 2 arguments at "
                                        "most"):
        ops.contiguous(a, a, 0)  # no out parameter: the op creates it
    with pytest.raises(ValueError, match="no tensor argument"):
        ops.relu(backplane.zeros((2,)), backplane.zeros((2,)))


def test_an_argument_the_op_rejects_is_a_value_error_naming_both(dev0):
    a = backplane.zeros((2, 3), "float32", dev0)
    with pytest.raises(ValueError, match="diopiMm: .*mat2") as info:
        ops.mm(backplane.zeros((2, 2), "float32", dev0), a,
               backplane.zeros((4, 2), "float32", dev0))
    assert not isinstance(info.value, backplane.PluginError)


def test_every_known_op_has_a_name_and_the_library_is_the_reference():
    assert "diopiAdd" in ops.names() and len(ops.names()) > 50
    assert ops.library().path.endswith("libbackplane_ops_ref.so")
    assert "reference" in ops.library().vendor.lower()


def test_an_op_the_library_leaves_out_is_unsupported(dev0, tmp_path):
    with pytest.raises(backplane.NotFoundError):
        backplane.OpsLibrary(str(tmp_path / "none.so"))
    lib = ops.library()
    with pytest.raises(backplane.UnsupportedError, match="diopiNoImplement"):
        lib.find("diopiNotAnOp")
