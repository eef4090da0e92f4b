"""The numbers of `backplane bench paddle`: the LeNet training step of
lenet_digits.py on the bridge (backplane:0) and on Paddle's own CPU place in
the same process, and a 1-element add enqueued and synchronized on each.
When PaddleCustomDevice's custom_cpu plugin is loaded too, the same add on
custom_cpu:0: the floor of any custom-device plugin (it computes on the
calling thread and its synchronize does nothing).
Prints one line per case: name value unit baseline baseline_value.

    python bench_paddle.py REPS   (CUSTOM_DEVICE_ROOT names the bridge)
"""
import statistics
import sys
import time

import numpy as np
import paddle

import lenet_digits
from mnist_mlp import digits


def step_rate(device, batches, reps):
    paddle.set_device(device)
    paddle.seed(1)
    model = lenet_digits.LeNet()
    optimizer = paddle.optimizer.Momentum(
        learning_rate=0.05, momentum=0.9, parameters=model.parameters())
    rates = []
    for rep in range(reps + 1):  # 0 warms up
        start = time.perf_counter()
        for x, y in batches:
            loss = paddle.nn.functional.cross_entropy(
                model(paddle.to_tensor(x)), paddle.to_tensor(y))
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
        float(loss)
        rates.append(sum(len(x) for x, _ in batches) /
                     (time.perf_counter() - start))
    return statistics.median(rates[1:])


def small_add_us(device, reps, n=2000):
    """Paddle's CPU place computes on the calling thread: its add is done
    when it returns; a custom device's is enqueued on the place's current
    stream, then that stream is synchronized (paddle.device.Stream's
    synchronize: the stream the add went to, without
    paddle.device.synchronize's per-call parsing of the device name)."""
    paddle.set_device(device)
    a = paddle.to_tensor(np.ones(1, np.float32))
    if device == "cpu":
        sync = lambda: None  # noqa: E731
    else:
        sync = paddle.device.current_stream().synchronize
    times = []
    for rep in range(reps + 1):
        start = time.perf_counter()
        for _ in range(n):
            c = a + a
            sync()
        times.append((time.perf_counter() - start) / n * 1e6)
    del c
    return statistics.median(times[1:])


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    (x, y), _ = digits()
    x = lenet_digits.images(x)
    batches = [(x[i:i + 32], y[i:i + 32]) for i in range(0, 32 * 20, 32)]
    cpu = step_rate("cpu", batches, reps)
    bridge = step_rate("backplane:0", batches, reps)
    print(f"cnn_train_step {bridge:.1f} samples/s paddle_cpu {cpu:.1f}")
    cpu_add = small_add_us("cpu", reps)
    if "custom_cpu" in paddle.device.get_all_custom_device_type():
        floor = small_add_us("custom_cpu:0", reps)
        print(f"small_add_custom_cpu {floor:.3f} us paddle_cpu {cpu_add:.3f}")
    bridge_add = small_add_us("backplane:0", reps)
    print(f"small_add {bridge_add:.3f} us paddle_cpu {cpu_add:.3f}")


if __name__ == "__main__":
    main()
