"""One settings table: every BACKPLANE_ variable the sources read (a string
literal "BACKPLANE_..." in src, plugins, tools, python or frameworks) is
listed by `backplane env` and in docs/configuration.md, and `backplane env`
says where each value came from.

Run by CTest: python3 -m pytest test_env_table.py, with BP_SOURCE_DIR and
BP_TOOL_PATH (the backplane command) in the environment."""
import os
import pathlib
import re
import subprocess

SOURCE = pathlib.Path(os.environ["BP_SOURCE_DIR"])
TOOL = os.environ["BP_TOOL_PATH"]
SCANNED = ("src", "plugins", "tools", "python", "frameworks")
SUFFIXES = {".c", ".h", ".cc", ".cpp", ".py"}
LITERAL = re.compile(r'"(BACKPLANE_[A-Z0-9_]*[A-Z0-9])\b')


def variables_read():
    found = {}
    for top in SCANNED:
        for path in sorted((SOURCE / top).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file():
                for name in LITERAL.findall(path.read_text(errors="replace")):
                    found.setdefault(name, path.relative_to(SOURCE))
    return found


def env_output(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("BACKPLANE_")}
    env.update(extra)
    return subprocess.run([TOOL, "env"], check=True, capture_output=True,
                          text=True, env=env).stdout


def listed_by_env(text):
    return {line.split("=", 1)[0] for line in text.splitlines()
            if line.startswith("BACKPLANE_")}


def test_the_scan_finds_the_variables_it_must():
    found = variables_read()
    assert {"BACKPLANE_PLUGIN_PATH", "BACKPLANE_VCPU_DEVICES",
            "BACKPLANE_OPENCL_MEMORY", "BACKPLANE_OPS_LIBRARY",
            "BACKPLANE_COMM_SHM_SLOT_BYTES"} <= set(found)


def test_backplane_env_lists_every_variable_the_sources_read():
    listed = listed_by_env(env_output())
    missing = {n: str(p) for n, p in variables_read().items()
               if n not in listed}
    assert not missing, f"read but not in `backplane env`: {missing}"


def test_the_configuration_chapter_lists_every_variable():
    doc = (SOURCE / "docs" / "configuration.md").read_text()
    documented = set(re.findall(r"^\| `(BACKPLANE_[A-Z0-9_]+)`", doc, re.M))
    missing = {n: str(p) for n, p in variables_read().items()
               if n not in documented}
    assert not missing, f"read but not in docs/configuration.md: {missing}"
    assert documented == listed_by_env(env_output())


def test_env_says_where_each_value_came_from():
    lines = env_output(BACKPLANE_VCPU_DEVICES="5").splitlines()
    at = lines.index("BACKPLANE_VCPU_DEVICES=5")
    assert lines[at + 1].strip().startswith("environment;")
    at = lines.index("BACKPLANE_COMM_TIMEOUT_MS=60000")
    assert lines[at + 1].strip().startswith("default;")
