"""The Tensor API NumPy and PyTorch users expect: numpy(), to(), len(),
indexing as views with strides, data_ptr(), a repr with values."""
import warnings

import numpy as np
import pytest

import backplane


@pytest.fixture
def grid(dev0):
    return backplane.from_numpy(
        np.arange(12, dtype=np.float32).reshape(3, 4), device=dev0)


def test_numpy_is_a_host_copy(grid):
    host = grid.numpy()
    np.testing.assert_array_equal(host, [[0, 1, 2, 3], [4, 5, 6, 7],
                                         [8, 9, 10, 11]])
    host[0, 0] = 99
    assert grid.numpy()[0, 0] == 0
    assert grid.shape == (3, 4) and grid.dtype == "float32"
    assert grid.device == backplane.device("vcpu:0")


def test_len_is_the_first_dimension(grid):
    assert len(grid) == 3
    with pytest.raises(TypeError, match="0-d"):
        len(backplane.zeros(()))


def test_to_copies_to_another_device_or_returns_self(grid, dev1):
    moved = grid.to("vcpu:1")
    assert moved.device == dev1
    np.testing.assert_array_equal(moved.numpy(), grid.numpy())
    assert grid.to(grid.device) is grid
    host = grid.to("cpu")
    assert host.device is None and host.numpy()[2, 3] == 11


def test_indexing_gives_views_with_strides(grid):
    rows = grid[1:]
    assert rows.shape == (2, 4) and rows.strides == (4, 1)
    every_other = grid[:, ::2]
    assert every_other.shape == (3, 2) and every_other.strides == (4, 2)
    assert not every_other.is_contiguous
    np.testing.assert_array_equal(every_other.numpy(),
                                  [[0, 2], [4, 6], [8, 10]])
    np.testing.assert_array_equal(grid[..., 1].numpy(), [1, 5, 9])
    assert grid[-1, -1].shape == () and grid[-1, -1].numpy() == 11
    assert grid[0, None].shape == (1, 4)
    assert grid[1].data_ptr() == grid.data_ptr() + 4 * 4


def test_a_view_shares_its_tensors_memory(grid):
    row = grid[1]
    backplane.ops.add(row, row, row, alpha=1.0)
    np.testing.assert_array_equal(grid.numpy()[1], [8, 10, 12, 14])
    np.testing.assert_array_equal(grid.numpy()[0], [0, 1, 2, 3])
    del grid  # the view keeps the memory alive
    np.testing.assert_array_equal(row.numpy(), [8, 10, 12, 14])


def test_bad_indices_raise(grid):
    with pytest.raises(IndexError, match="out of bounds"):
        grid[3]
    with pytest.raises(IndexError, match="too many"):
        grid[0, 0, 0]
    with pytest.raises(ValueError, match="positive"):
        grid[::-1]
    with pytest.raises(TypeError):
        grid["a"]


def test_from_numpy_of_a_strided_array_copies_to_the_device(dev0):
    a = np.arange(20.0).reshape(4, 5)[:, ::2]
    t = backplane.from_numpy(a, device=dev0)
    assert t.is_contiguous
    np.testing.assert_array_equal(t.numpy(), a)


def test_data_ptr_is_a_method_and_the_old_property_still_reads():
    t = backplane.zeros((4,))
    address = t.data_ptr()
    assert type(address) is int and address != 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert t.data_ptr == address
    assert caught and caught[0].category is DeprecationWarning


def test_repr_shows_the_values_of_small_tensors(grid):
    text = repr(grid[0])
    assert text == ("backplane.tensor([0., 1., 2., 3.], dtype=float32, "
                    "device='vcpu:0')")
    big = repr(backplane.zeros((1000,)))
    assert "1000 values" in big and "shape=(1000,)" in big
