import numpy as np
import pytest

import backplane


def per_rank(devs, arrays):
    return [backplane.from_numpy(a, device=d) for d, a in zip(devs, arrays)]


def results(tensors):
    return [backplane.to_numpy(t) for t in tensors]


@pytest.fixture
def world(vcpus):
    return vcpus, backplane.comm.init_all(vcpus)


def test_init_all_ranks(world):
    devs, comms = world
    assert [c.rank for c in comms] == [0, 1]
    assert all(c.size == 2 for c in comms)
    assert [c.device for c in comms] == devs


def test_all_reduce_sum_and_max_in_and_out_of_place(world, rng):
    devs, comms = world
    xs = [rng.standard_normal(1000).astype(np.float32) for _ in devs]
    ts = per_rank(devs, xs)
    with backplane.comm.group():
        for c, t in zip(comms, ts):
            c.all_reduce(t)
    for r in results(ts):
        np.testing.assert_allclose(r, xs[0] + xs[1], rtol=1e-6)
    ys = [backplane.empty((1000,), "float32", d) for d in devs]
    with backplane.comm.group():
        for c, t, y in zip(comms, per_rank(devs, xs), ys):
            c.all_reduce(t, y, op="max")
    for r in results(ys):
        np.testing.assert_array_equal(r, np.maximum(xs[0], xs[1]))
    for c in comms:
        c.async_error()


def test_broadcast_gather_scatter(world):
    devs, comms = world
    ts = per_rank(devs, [np.full(4, r + 1, np.int32) for r in range(2)])
    with backplane.comm.group():
        for c, t in zip(comms, ts):
            c.broadcast(t, root=1)
    assert all((r == 2).all() for r in results(ts))

    sends = per_rank(devs, [np.full(3, r, np.float64) for r in range(2)])
    recvs = [backplane.empty((6,), "float64", d) for d in devs]
    with backplane.comm.group():
        for c, s, r in zip(comms, sends, recvs):
            c.all_gather(s, r)
    for r in results(recvs):
        np.testing.assert_array_equal(r, [0, 0, 0, 1, 1, 1])

    sends = per_rank(devs, [np.arange(4, dtype=np.float32) * (r + 1)
                            for r in range(2)])
    recvs = [backplane.empty((2,), "float32", d) for d in devs]
    with backplane.comm.group():
        for c, s, r in zip(comms, sends, recvs):
            c.reduce_scatter(s, r)
    got = results(recvs)
    np.testing.assert_array_equal(got[0], [0, 3])
    np.testing.assert_array_equal(got[1], [6, 9])


def test_send_recv(world):
    devs, comms = world
    src = backplane.from_numpy(np.arange(5, dtype=np.int64), devs[0])
    dst = backplane.zeros((5,), "int64", devs[1])
    with backplane.comm.group():
        comms[0].send(src, 1)
        comms[1].recv(dst, 0)
    np.testing.assert_array_equal(backplane.to_numpy(dst), np.arange(5))


def test_per_rank_init_from_unique_id_bytes(vcpus):
    devs = vcpus
    uid = backplane.comm.unique_id(devs[0])
    assert isinstance(uid, bytes) and len(uid) > 0
    comms = [backplane.comm.init_rank(d, 2, r, uid)
             for r, d in enumerate(devs)]
    ts = per_rank(devs, [np.ones(8, np.float32)] * 2)
    with backplane.comm.group():
        for c, t in zip(comms, ts):
            c.all_reduce(t, op="avg")
    assert all((r == 1).all() for r in results(ts))


def test_bad_calls_are_refused(world):
    devs, comms = world
    t = backplane.zeros((4,), "float32", devs[0])
    with pytest.raises(ValueError, match="op must be"):
        comms[0].all_reduce(t, op="mean")
    with pytest.raises(ValueError, match="8 expected"):
        comms[0].all_gather(t, backplane.zeros((4,), "float32", devs[0]))
    with pytest.raises(ValueError):
        backplane.Comm(devs[0], 2, b"x" * 8, 2)
    with pytest.raises(backplane.Error):
        backplane.Comm(devs[0], 2, b"short", 0)
