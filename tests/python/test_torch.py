"""PyTorch interop: runs when /usr/bin/python3 can import torch."""
import numpy as np
import pytest

import backplane

torch = pytest.importorskip("torch")


def test_torch_takes_host_tensors_without_a_copy():
    t = backplane.zeros((2, 3), "float32")
    x = torch.from_dlpack(t)
    assert x.data_ptr() == t.data_ptr() and tuple(x.shape) == (2, 3)
    x += 4
    assert backplane.to_numpy(t).sum() == 24


def test_from_dlpack_borrows_torch_cpu_tensors(dev0):
    x = torch.arange(10, dtype=torch.float32)
    t = backplane.from_dlpack(x)
    assert t.is_borrowed and t.data_ptr() == x.data_ptr()
    np.testing.assert_array_equal(backplane.to_numpy(t.copy_to(dev0)),
                                  np.arange(10, dtype=np.float32))


def test_transposed_torch_tensor_keeps_strides():
    x = torch.arange(6, dtype=torch.int64).reshape(2, 3).t()
    t = backplane.from_dlpack(x)
    assert t.strides == (1, 3) and t.shape == (3, 2)
    np.testing.assert_array_equal(backplane.to_numpy(t), x.numpy())


def test_tensors_that_require_grad_are_copied():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises((BufferError, RuntimeError)):
        backplane.from_dlpack(x.detach().requires_grad_(), copy=False)
    t = backplane.from_dlpack(x.detach())
    assert t.is_borrowed
