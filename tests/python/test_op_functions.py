"""backplane.ops has one function per op of the DIOPI header, with the op's
signature, a docstring and a stub, listed by dir() (tab completion); the
elementwise ones also allocate their result (ops.add(a, b))."""
import ast
import inspect
import pathlib

import numpy as np
import pytest

import backplane
from backplane import ops

# Ops of backplane/diopi/functions.h (the header generates the functions).
SOME_OPS = {"add": "diopiAdd", "relu": "diopiRelu", "linear": "diopiLinear",
            "nll_loss": "diopiNLLLoss", "adamw": "diopiAdamW"}


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
    with pytest.raises(ValueError, match="diopiClipGradNorm.*norm_type"):
        ops.clip_grad_norm(grads, 1.0, -1.0, False)


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


def test_an_op_creating_its_output_says_it_cannot_be_called(dev0):
    a = backplane.zeros((4,), "float32", dev0)
    assert "Not callable from Python yet" in ops.nonzero.__doc__
    with pytest.raises(backplane.UnsupportedError, match="diopiNonzero"):
        ops.nonzero(None, a)
