"""paddle.distributed over the bridge: `python -m paddle.distributed.launch`
starts two processes on backplane:0 and backplane:1 (vcpu devices of two
runtimes), paddle.DataParallel averages gradients through the bridge's xccl
slots (bp_comm across processes), and the first steps' losses equal a
one-device run's within 1e-3 (they would drift apart at the second step if
gradients were not averaged)."""
import json
import os
import subprocess
import sys
import tempfile

import bridge_env
import unittest

SCRIPT = os.path.join(bridge_env.EXAMPLES, "data_parallel.py")


def losses(command, env):
    out = subprocess.run(command, env=env, capture_output=True, text=True,
                         timeout=100, cwd=bridge_env.EXAMPLES)
    lines = [line for line in out.stdout.splitlines()
             if line.startswith("LOSSES ")]
    if out.returncode != 0 or not lines:
        raise AssertionError(f"{command} failed ({out.returncode}):\n"
                             f"{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return json.loads(lines[-1][len("LOSSES "):])


class DataParallelOnBackplane(unittest.TestCase):
    def test_two_processes_match_one_device(self):
        env = dict(os.environ, PADDLE_XCCL_BACKEND="backplane")
        single = losses([sys.executable, SCRIPT, "--single"], env)
        # The launcher reads BACKPLANE_VISIBLE_DEVICES as the device labels
        # that --devices picks from (Paddle's <TYPE>_VISIBLE_DEVICES rule).
        devices = os.environ.get("BACKPLANE_VISIBLE_DEVICES") or "0,1"
        with tempfile.TemporaryDirectory() as logs:
            parallel = losses([sys.executable, "-m",
                               "paddle.distributed.launch", "--log_dir", logs,
                               "--devices", devices, SCRIPT], env)
        self.assertEqual(len(parallel), 5)
        for a, b in zip(parallel, single):
            self.assertAlmostEqual(a, b, delta=1e-3)
        self.assertNotAlmostEqual(single[0], single[1], delta=1e-3)


if __name__ == "__main__":
    unittest.main()
