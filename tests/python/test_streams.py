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
