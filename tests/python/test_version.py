"""backplane.__version__, `backplane --version` and (installed) the
package's metadata all say the version that <backplane/version.h> writes."""
import pathlib
import re
import subprocess
import sys
from importlib import metadata

import backplane
from backplane import __main__ as cli

HEADER = (pathlib.Path(__file__).resolve().parents[2] / "include" /
          "backplane" / "version.h")


def header_version():
    text = HEADER.read_text()
    string = re.search(r'#define BP_VERSION_STRING "([^"]+)"', text).group(1)
    parts = [re.search(rf"#define BP_VERSION_{p} (\d+)", text).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    assert string == ".".join(parts)
    return string


def installed_version():
    """The metadata's version when backplane is the installed package."""
    try:
        dist = metadata.distribution("backplane")
    except metadata.PackageNotFoundError:
        return None
    init = pathlib.Path(backplane.__file__).resolve()
    files = {pathlib.Path(dist.locate_file(f)).resolve() for f in dist.files}
    return dist.version if init in files else None


def test_version_is_the_headers_and_the_installed_metadatas():
    """The build tree's package is checked against the header, the wheel's
    (tested without the source tree) against its metadata."""
    expected = [v for v in (header_version() if HEADER.exists() else None,
                            installed_version()) if v is not None]
    assert expected, "neither the source tree nor an installed package"
    assert all(v == backplane.__version__ for v in expected), expected
    assert re.fullmatch(r"\d+\.\d+\.\d+", backplane.__version__)


def test_the_command_says_the_same_version():
    out = subprocess.run([sys.executable, "-m", "backplane", "--version"],
                         check=True, capture_output=True, text=True).stdout
    assert out == f"backplane {backplane.__version__}\n"
    assert cli.executable() is not None
