"""Runs one of PaddleCustomDevice's custom_cpu op test files on the bridge
and prints one line of JSON with the outcome of each test case; the peer
test harness (test_paddle_peer_tests.py) starts it once per file.

    python peer_op_test_runner.py TEST_FILE SKIPS_JSON

The file's source is run with `custom_cpu` read as `backplane`. SKIPS_JSON
maps "Class.method" or "Class" (shell-style patterns) to the reason those
cases are not run. A case
passes only if every kernel it ran was the bridge's: each CPU fallback the
bridge reports for it (BACKPLANE_PADDLE_FALLBACKS=1, GLOG_minloglevel=0,
set by the harness) fails the case.

The files were written for an older Paddle than the one installed; these
adaptations let them run on Paddle 3 without touching what they check:
- OpTest.use_custom_device = True, which every other PaddleCustomDevice
  backend's op tests set (custom_cpu's predate it): OpTest then skips its
  dygraph re-checks, which need a python_api these files do not give.
- `paddle.base.op` is Paddle's test/legacy_test/op.py, where Paddle 3 moved
  that module (its Operator factory).
- OpTest's check_output/check_grad lost their `check_eager=` keyword (the
  eager-dygraph re-check, off for custom devices anyway); it is dropped.
The harness also sets FLAGS_enable_pir_api=0: OpTest builds legacy-IR
programs, which Paddle 3 runs only with the PIR API off.
"""
import fnmatch
import functools
import json
import os
import re
import sys
import tempfile
import unittest

FALLBACK = re.compile(r"backplane paddle bridge: fallback \d+: (.*) ran on "
                      r"Paddle's CPU")


def adapt_op_test():
    import op
    import op_test

    sys.modules.setdefault("paddle.base.op", op)
    op_test.OpTest.use_custom_device = True
    for name in ("check_output", "check_grad", "check_output_with_place",
                 "check_grad_with_place"):
        method = getattr(op_test.OpTest, name)

        @functools.wraps(method)
        def without_check_eager(self, *args, __method=method, **kwargs):
            kwargs.pop("check_eager", None)
            return __method(self, *args, **kwargs)

        setattr(op_test.OpTest, name, without_check_eager)


def load_cases(path, skips):
    source = open(path).read().replace("custom_cpu", "backplane")
    scope = {"__name__": "peer", "__file__": path}
    exec(compile(source, path, "exec"), scope)
    classes = [value for value in scope.values()
               if isinstance(value, type)
               and issubclass(value, unittest.TestCase)]
    suite = unittest.TestSuite()
    for cls in classes:
        # A skip marks this class only, not the classes derived from it.
        whole = [reason for pattern, reason in skips.items()
                 if "." not in pattern
                 and fnmatch.fnmatchcase(cls.__name__, pattern)]
        if whole:
            cls.__unittest_skip__ = True
            cls.__unittest_skip_why__ = whole[0]
        elif "__unittest_skip__" not in vars(cls):
            cls.__unittest_skip__ = False
        for test in unittest.defaultTestLoader.loadTestsFromTestCase(cls):
            name = f"{cls.__name__}.{test._testMethodName}"
            for pattern, reason in skips.items():
                if "." in pattern and fnmatch.fnmatchcase(name, pattern):
                    # On the instance: the class and its kin keep the test.
                    setattr(test, test._testMethodName,
                            unittest.skip(reason)(lambda: None))
                    break
            suite.addTest(test)
    return suite


class Result(unittest.TextTestResult):
    """Records each case's outcome; a case whose kernels fell back to
    Paddle's CPU fails. Captures file descriptor 2 per case (where glog and
    the bridge write) and passes it on afterwards."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcomes = {}
        self.capture = tempfile.TemporaryFile()
        self.saved_fd = None

    @staticmethod
    def case_name(test):
        return f"{type(test).__name__}.{test._testMethodName}"

    def startTest(self, test):
        sys.stderr.flush()
        self.capture.seek(0)
        self.capture.truncate()
        self.saved_fd = os.dup(2)
        os.dup2(self.capture.fileno(), 2)
        super().startTest(test)

    def stopTest(self, test):
        sys.stderr.flush()
        os.dup2(self.saved_fd, 2)
        os.close(self.saved_fd)
        self.capture.seek(0)
        text = self.capture.read().decode(errors="replace")
        sys.stderr.write(text)
        fallbacks = sorted(set(FALLBACK.findall(text)))
        name = self.case_name(test)
        if fallbacks and self.outcomes.get(name) == "passed":
            self.outcomes[name] = ("failed: ran on Paddle's CPU: " +
                                   ", ".join(fallbacks))
        super().stopTest(test)

    def addSuccess(self, test):
        super().addSuccess(test)
        self.outcomes[self.case_name(test)] = "passed"

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.outcomes[self.case_name(test)] = "skipped: " + reason

    def _failed(self, test, err, kind):
        exc = err[1]
        text = f"{kind}: {type(exc).__name__}: {exc}".splitlines()[0]
        name = (self.case_name(test) if isinstance(test, unittest.TestCase)
                else str(test))
        self.outcomes[name] = text[:300]

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._failed(test, err, "failed")

    def addError(self, test, err):
        super().addError(test, err)
        self._failed(test, err, "error")


def main():
    path, skips = sys.argv[1], json.loads(sys.argv[2])
    adapt_op_test()
    suite = load_cases(path, skips)
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2,
                                     resultclass=Result)
    result = runner.run(suite)
    print("PEER-RESULT " + json.dumps(result.outcomes), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
