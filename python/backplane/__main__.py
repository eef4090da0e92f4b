"""python -m backplane ARGS...: the `backplane` command shipped in the
package (bin/backplane), run with ARGS; `backplane` on PATH after
`pip install .` is the same entry point."""
import os
import sys


def executable():
    """The path of the package's `backplane` command (None in a build
    tree, which has build/bin/backplane instead)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin",
                        "backplane")
    return path if os.access(path, os.X_OK) else None


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    path = executable()
    if path is None:
        sys.exit("backplane: this package has no bin/backplane (a build "
                 "tree: run build/bin/backplane)")
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(path, [path] + args)


if __name__ == "__main__":
    main()
