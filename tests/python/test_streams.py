import ctypes
import os
import struct
import threading

import numpy as np
import pytest

import backplane


def test_with_stream_makes_it_active_for_its_device_only(dev0, dev1):
    default0 = backplane.current_stream(dev0)
    s = backplane.Stream(dev0)
    assert s != default0 and s.device == dev0
    with s:
        assert backplane.current_stream(dev0) == s
        assert backplane.current_stream(dev1) != s
        inner = backplane.Stream(dev0)
        with inner:
            assert backplane.current_stream(dev0) == inner
        assert backplane.current_stream(dev0) == s
    assert backplane.current_stream(dev0) == default0


def test_active_stream_is_per_thread(dev0):
    s = backplane.Stream(dev0)
    seen = []
    with s:
        t = threading.Thread(
            target=lambda: seen.append(backplane.current_stream(dev0)))
        t.start()
        t.join()
    assert seen[0] != s


def test_work_goes_to_the_active_stream(dev0):
    s = backplane.Stream(dev0)
    host = np.arange(1 << 20, dtype=np.float32)
    with s:
        t = backplane.from_numpy(host, device=dev0)
        copy = t.copy_to(dev0)
    s.synchronize()
    assert s.query()
    np.testing.assert_array_equal(backplane.to_numpy(copy), host)


def test_events_time_and_order_streams(dev0):
    s1, s2 = backplane.Stream(dev0), backplane.Stream(dev0)
    start, stop = backplane.Event(dev0), backplane.Event(dev0)
    src = backplane.zeros((1 << 22,), "uint8", dev0)
    start.record(s1)
    with s1:
        dst = src.copy_to(dev0)
    stop.record(s1)
    s2.wait(stop)
    s2.wait(s1)
    stop.synchronize()
    assert stop.query()
    assert start.elapsed_time(stop) >= 0.0
    assert dst.nbytes == 1 << 22


def test_event_errors_carry_the_runtime_message(dev0, dev1):
    a, b = backplane.Event(dev0), backplane.Event(dev0)
    with pytest.raises(backplane.InvalidArgumentError):
        a.elapsed_time(b)  # never recorded
    with pytest.raises(backplane.InvalidArgumentError):
        a.record(backplane.Stream(dev1))  # a stream of another device
    with pytest.raises(TypeError):
        a.elapsed_time(3)
    with pytest.raises(ValueError):
        backplane.Stream(None)


def test_with_stream_restores_the_previous_on_nesting_and_errors(dev0):
    default0 = backplane.current_stream(dev0)
    outer, inner = backplane.Stream(dev0), backplane.Stream(dev0)
    with pytest.raises(KeyError):
        with outer:
            with inner:
                assert backplane.current_stream(dev0) == inner
                with outer:  # the same stream again, nested
                    assert backplane.current_stream(dev0) == outer
                assert backplane.current_stream(dev0) == inner
                raise KeyError("leaves both blocks")
    assert backplane.current_stream(dev0) == default0
    assert "(default)" in repr(default0)


def test_launch_event_and_copy_without_a_stream_run_on_the_active_one(
        kernels_path, dev0):
    """Inside `with s:` a launch, an event record and a copy that name no
    stream are enqueued on s (bp_stream_get_active), behind each other: a
    sleeping kernel holds s, the event and the copy wait for it, the
    default stream stays idle."""
    s = backplane.Stream(dev0)
    default0 = backplane.current_stream(dev0)
    src = backplane.from_numpy(np.arange(1024, dtype=np.float32), device=dev0)
    done = backplane.Event(dev0)
    with backplane.load_module(kernels_path, device=dev0) as module:
        with s:
            module["sleep_kernel"].launch(struct.pack("I", 500))
            done.record()
            copy = src.copy_to(dev0, non_blocking=True)
            assert not s.query() and not done.query()
            assert default0.query()
        s.synchronize()
    assert done.query()
    np.testing.assert_array_equal(backplane.to_numpy(copy),
                                  np.arange(1024, dtype=np.float32))


def test_with_stream_sets_the_c_active_stream(dev0):
    """C code the block calls sees the stream: bp_stream_get_active (through
    ctypes on libbackplane, as a C library would call it) answers s inside
    the block and the default stream again after it."""
    soname = "libbackplane.so." + backplane.__version__.split(".")[0]
    lib = ctypes.CDLL(os.path.join(backplane.library_dir(), soname))
    lib.bp_stream_device.restype = ctypes.c_void_p
    lib.bp_stream_device.argtypes = [ctypes.c_void_p]
    lib.bp_stream_get_active.argtypes = [ctypes.c_void_p, ctypes.c_void_p]

    def c_active(device_handle):
        out = ctypes.c_void_p()
        assert lib.bp_stream_get_active(device_handle, ctypes.byref(out)) == 0
        return out.value

    s = backplane.Stream(dev0)
    device_handle = lib.bp_stream_device(s.handle)
    default_handle = backplane.current_stream(dev0).handle
    assert c_active(device_handle) == default_handle
    with s:
        assert c_active(device_handle) == s.handle
        with pytest.raises(ZeroDivisionError):
            with backplane.Stream(dev0) as inner:
                assert c_active(device_handle) == inner.handle
                1 / 0
        assert c_active(device_handle) == s.handle
    assert c_active(device_handle) == default_handle
