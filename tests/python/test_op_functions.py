"""backplane.ops has one function per op of the DIOPI header, with the op's
signature, a docstring and a stub, listed by dir() (tab completion); the
elementwise ones also allocate their result (ops.add(a, b)), and ops that
create their output (masked_select, nonzero, index, contiguous) return it."""
import ast
import inspect
import pathlib

import numpy as np
import pytest

import backplane
from backplane import ops

# Ops of backplane/diopi/functions.h and of Backplane's own
# functions_backplane.h (the headers generate the functions).
SOME_OPS = {"add": "diopiAdd", "relu": "diopiRelu", "linear": "diopiLinear",
            "nll_loss": "diopiNLLLoss", "adamw": "diopiAdamW",
            "grid_sampler": "diopiGridSampler"}


def test_every_op_is_a_function_listed_by_dir():
    listed = dir(ops)
    for snake, diopi in SOME_OPS.items():
        assert snake in listed and diopi in listed
        assert getattr(ops, snake) is getattr(ops, diopi)
    assert all(n in listed for n in ops.names())


def test_functions_have_the_ops_signature_and_a_docstring():
    sig = inspect.signature(ops.add)
    assert list(sig.parameters) == ["out", "input", "other", "alpha"]
    assert sig.parameters["alpha"].default is None
    assert sig.parameters["out"].default is inspect.Parameter.empty
    assert "diopiAdd" in ops.add.__doc__ and "Out-of-place" in ops.add.__doc__
    assert list(inspect.signature(ops.linear).parameters) == [
        "out", "input", "weight", "bias"]


def test_the_stub_declares_every_op():
    stub = pathlib.Path(ops.__file__).with_name("ops.pyi")
    tree = ast.parse(stub.read_text())
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    defined |= {t.id for n in tree.body if isinstance(n, ast.Assign)
                for t in n.targets}
    assert set(ops.names()) <= defined
    assert set(SOME_OPS) <= defined


def test_out_of_place_forms_allocate_the_result(dev0):
    a = backplane.from_numpy(np.arange(4, dtype=np.float32), device=dev0)
    b = backplane.from_numpy(np.ones((3, 1), np.float32), device=dev0)
    c = ops.add(a, b)
    assert c.shape == (3, 4) and c.dtype == "float32" and c.device == dev0
    np.testing.assert_array_equal(c.numpy(), np.arange(4) + np.ones((3, 1)))
    np.testing.assert_array_equal(ops.add(a, a, alpha=2).numpy(),
                                  [0, 3, 6, 9])
    np.testing.assert_array_equal(ops.relu(ops.sub(a, b)).numpy()[0],
                                  [0, 0, 1, 2])
    out = backplane.empty((4,), "float32", dev0)
    assert ops.add(out, a, a, alpha=1) is out  # the DIOPI form still works
    np.testing.assert_array_equal(out.numpy(), [0, 2, 4, 6])


def test_inputs_that_do_not_broadcast_are_a_value_error(dev0):
    a = backplane.zeros((4,), "float32", dev0)
    with pytest.raises(ValueError, match="diopiAdd: the input shapes"):
        ops.add(a, backplane.zeros((3,), "float32", dev0))


def test_ops_writing_a_host_value_return_it(dev0):
    a = backplane.from_numpy(np.arange(4, dtype=np.float32), device=dev0)
    same = backplane.from_numpy(np.arange(4, dtype=np.float32), device=dev0)
    other = backplane.from_numpy(np.ones(4, np.float32), device=dev0)
    assert ops.equal(a, same) is True
    assert ops.equal(a, other) is False
    sig = inspect.signature(ops.equal)
    assert list(sig.parameters) == ["input", "other"]
    assert sig.return_annotation == "bool"
    assert "Returns the bool" in ops.equal.__doc__


def test_clip_grad_norm_returns_the_total_norm_and_scales(dev0):
    grads = [backplane.from_numpy(np.full(4, 3.0, np.float32), device=dev0),
             backplane.from_numpy(np.full(3, 4.0, np.float32), device=dev0)]
    total = np.sqrt(4 * 9 + 3 * 16)  # 2-norm of every element
    norm = ops.clip_grad_norm(grads, max_norm=1.0, norm_type=2.0,
                              error_if_nonfinite=False)
    assert norm == pytest.approx(total)
    np.testing.assert_allclose(grads[0].numpy(), 3.0 / (total + 1e-6),
                               rtol=1e-6)
    np.testing.assert_allclose(grads[1].numpy(), 4.0 / (total + 1e-6),
                               rtol=1e-6)
    assert list(inspect.signature(ops.clip_grad_norm).parameters) == [
        "grads", "max_norm", "norm_type", "error_if_nonfinite"]
    # Every order torch.norm takes is valid (negative ones too); NaN is not.
    with pytest.raises(ValueError, match="diopiClipGradNorm.*norm_type"):
        ops.clip_grad_norm(grads, 1.0, float("nan"), False)


def test_tensor_lists_take_their_count_from_the_list(dev0):
    a = backplane.from_numpy(np.arange(4, dtype=np.float32), device=dev0)
    b = backplane.from_numpy(np.ones(4, np.float32), device=dev0)
    outs = [backplane.empty((4,), "float32", dev0) for _ in range(2)]
    ops.foreachmul_scalar(outs, [a, b], other=2.0)  # two lists, one count
    np.testing.assert_array_equal(outs[0].numpy(), [0, 2, 4, 6])
    np.testing.assert_array_equal(outs[1].numpy(), [2, 2, 2, 2])
    assert list(inspect.signature(ops.cat).parameters) == [
        "out", "tensors", "dim"]


def test_a_shape_the_op_refuses_is_a_value_error_naming_it(dev0):
    a = backplane.zeros((3, 4), "float32", dev0)
    out = backplane.empty((3, 3), "float32", dev0)
    # The library names the arguments with their shapes first.
    with pytest.raises(ValueError, match=r"diopiMatmul: input \[3, 4\] and "
                                         r"other \[3, 4\]"):
        ops.matmul(out, a, a)
    assert ops.matmul.__module__ == "backplane.ops"


def test_masked_select_returns_the_tensor_the_op_creates(dev0, rng):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    mask = rng.random((3, 4)) < 0.5
    r = ops.masked_select(backplane.from_numpy(x, device=dev0),
                          backplane.from_numpy(mask, device=dev0))
    assert isinstance(r, backplane.Tensor) and r.device == dev0
    assert r.dtype == "float32" and r.shape == (int(mask.sum()),)
    np.testing.assert_array_equal(r.numpy(), x[mask])
    row = np.array([True, False, False, True])  # broadcast over the rows
    np.testing.assert_array_equal(
        ops.masked_select(backplane.from_numpy(x, device=dev0),
                          backplane.from_numpy(row, device=dev0)).numpy(),
        x[np.broadcast_to(row, x.shape)])
    none = ops.masked_select(backplane.from_numpy(x, device=dev0),
                             backplane.zeros((3, 4), "bool", dev0))
    assert none.shape == (0,) and none.numpy().size == 0


def test_a_created_tensor_owns_its_memory_after_the_call(dev0, rng):
    x = rng.standard_normal(64).astype(np.float32)
    mask = x > 0
    r = ops.masked_select(backplane.from_numpy(x, device=dev0),
                          backplane.from_numpy(mask, device=dev0))
    # Had the call's context freed r's memory, the caching allocator would
    # hand that block to the first of these tensors of r's size (zeros).
    held = [backplane.zeros(r.shape, "float32", dev0) for _ in range(4)]
    assert r.data_ptr() not in [t.data_ptr() for t in held]
    np.testing.assert_array_equal(r.numpy(), x[mask])
    np.testing.assert_array_equal(ops.add(r, r).numpy(), 2 * x[mask])


def test_nonzero_returns_the_indices_as_numpy_argwhere(dev0):
    x = np.array([[0, 1.5, 0], [2, 0, -1]], np.float32)
    r = ops.nonzero(backplane.from_numpy(x, device=dev0))
    assert r.dtype == "int64" and r.shape == (3, 2)
    np.testing.assert_array_equal(r.numpy(), np.argwhere(x))
    np.testing.assert_array_equal(
        ops.call("diopiNonzero", backplane.from_numpy(x, device=dev0)).numpy(),
        np.argwhere(x))


def test_index_takes_index_tensors_none_and_masks(dev0, rng):
    x = rng.standard_normal((4, 5)).astype(np.float32)
    t = backplane.from_numpy(x, device=dev0)
    rows = np.array([3, 0, 3], np.int64)
    cols = np.array([4, 1], np.int64)
    np.testing.assert_array_equal(
        ops.index(t, [backplane.from_numpy(rows, device=dev0)]).numpy(),
        x[rows])
    np.testing.assert_array_equal(  # None: a dim not indexed (x[:, cols])
        ops.index(t, [None, backplane.from_numpy(cols, device=dev0)]).numpy(),
        x[:, cols])
    mask = x[:, 0] > 0
    np.testing.assert_array_equal(
        ops.index(t, [backplane.from_numpy(mask, device=dev0)]).numpy(),
        x[mask])


def test_contiguous_copies_a_strided_view(dev0, rng):
    x = rng.standard_normal((3, 6)).astype(np.float32)
    view = backplane.from_numpy(x, device=dev0)[:, ::2]
    assert not view.is_contiguous
    r = ops.contiguous(view, "contiguous")
    assert r.is_contiguous and r.shape == (3, 3)
    np.testing.assert_array_equal(r.numpy(), x[:, ::2])


def test_out_keyword_copies_the_created_tensor_into_it(dev0):
    x = np.array([1, -2, 3, -4], np.float32)
    t = backplane.from_numpy(x, device=dev0)
    mask = backplane.from_numpy(x > 0, device=dev0)
    out = backplane.zeros((2,), "float32", dev0)
    assert ops.masked_select(t, mask, out=out) is out
    np.testing.assert_array_equal(out.numpy(), [1, 3])
    with pytest.raises(ValueError, match=r"diopiMaskedSelect: out: float32 "
                                         r"\[3\] given, the result is "
                                         r"float32 \[2\]"):
        ops.masked_select(t, mask, out=backplane.zeros((3,), "float32", dev0))


def test_ops_creating_their_output_have_its_signature_and_stub():
    for fn, params in ((ops.masked_select, ["input", "mask", "out"]),
                       (ops.nonzero, ["input", "out"]),
                       (ops.index, ["input", "indices", "out"]),
                       (ops.contiguous, ["input", "memoryFormat", "out"])):
        sig = inspect.signature(fn)
        assert list(sig.parameters) == params, fn.__name__
        assert sig.parameters["out"].kind is inspect.Parameter.KEYWORD_ONLY
        assert sig.return_annotation == "Tensor"
        assert "Returns the tensor the op creates" in fn.__doc__
    stub = pathlib.Path(ops.__file__).with_name("ops.pyi").read_text()
    assert ("def masked_select(input: Tensor, mask: Tensor, *, "
            "out: Optional[Tensor] = ...) -> Tensor: ...") in stub
