"""The package as pip installs it from the wheel (bin/make-wheel): its own Java runtime, jars and FFmpeg, found with
no JDK, Maven, checkout or STOKER_HOME; the ``stoker`` console script and ``python -m stoker``; a version that names
the build; and, for a system it cannot run on, one line that says why and what to do.

``bin/test-wheel`` (run by ``./run-tests``) runs this suite against the installed wheel, from outside the checkout,
with no ``java`` on PATH and no JAVA_HOME; it sets STOKER_WHEEL to the wheel it installed. From a checkout
(``PYTHONPATH=python``) the tests about the wheel skip.
"""
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import stoker as stoker_package
from stoker import StokerError, stoker_command
from stoker._home import BUNDLE, GLIBC_FLOOR, check_glibc

WHEEL = os.environ.get("STOKER_WHEEL")
MAX_WHEEL_BYTES = 70 << 20
installed = pytest.mark.skipif(not BUNDLE.is_dir(), reason="this stoker package holds no bundle (not the wheel)")


def cli_version(command: str) -> str:
    out = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=300, check=True).stdout
    return re.search(r"stoker (\S+)", out).group(1)


def pep440(maven: str) -> str:
    return maven[:-len("-SNAPSHOT")] + ".dev0" if maven.endswith("-SNAPSHOT") else maven


def test_the_package_version_is_the_commands_in_pep_440(stoker):
    public, _, local = stoker_package.__version__.partition("+")
    assert public == pep440(cli_version(stoker))
    if BUNDLE.is_dir():   # the wheel names the commit, and says when the tree it came from had changes
        assert re.fullmatch(r"g[0-9a-f]{7,40}(\.dirty)?", local), stoker_package.__version__


@pytest.mark.skipif(WHEEL is None, reason="STOKER_WHEEL is not set (bin/test-wheel sets it)")
def test_the_wheel_is_tagged_for_glibc_2_35_and_small_enough():
    wheel = Path(WHEEL)
    assert wheel.name == f"stoker-{stoker_package.__version__}-py3-none-manylinux_2_35_x86_64.whl"
    assert wheel.stat().st_size <= MAX_WHEEL_BYTES, f"{wheel.stat().st_size / 2**20:.1f} MiB"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        executable = {i.filename for i in z.infolist() if (i.external_attr >> 16) & 0o100}
    assert {"stoker/_bundle/bin/stoker", "stoker/_bundle/runtime/bin/java", "stoker/_bundle/lib/stoker-cli.jar",
            "stoker/_bundle/lib/native/libavcodec.so.62", "stoker/_bundle/lib/fallback/libstdc++.so.6",
            "stoker/_bundle/lib/aot-in-user-cache"} <= names
    # The JVM starts child processes through jspawnhelper: without its executable bit, --split-after fails.
    assert {"stoker/_bundle/bin/stoker", "stoker/_bundle/runtime/bin/java",
            "stoker/_bundle/runtime/lib/jspawnhelper"} <= executable
    assert not any("djl" in n for n in names), "DJL is an option of the bundle, not part of the wheel"


@pytest.mark.skipif(WHEEL is None, reason="STOKER_WHEEL is not set (bin/test-wheel sets it)")
def test_this_run_has_no_java_and_no_checkout_to_lean_on():
    assert shutil.which("java") is None, "bin/test-wheel runs with no java on PATH"
    assert "JAVA_HOME" not in os.environ and "STOKER_HOME" not in os.environ
    package = Path(stoker_package.__file__).resolve().parent
    assert not (package.parents[1] / "stoker-cli").exists(), f"{package} sits in a checkout"


@installed
def test_the_installed_package_runs_its_own_bundle(tmp_path):
    command = stoker_command()
    assert Path(command) == BUNDLE / "bin" / "stoker"
    for run in ([command], [sys.executable, "-m", "stoker"], [str(Path(sys.executable).with_name("stoker"))]):
        out = subprocess.run(run + ["--version"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        assert "stoker " in out.stdout and "Java 25" in out.stdout


@installed
def test_the_console_script_passes_arguments_and_the_exit_status_through(tmp_path):
    script = str(Path(sys.executable).with_name("stoker"))
    made = subprocess.run([script, "demo-data", str(tmp_path / "d"), "--classes", "1", "--clips", "1", "--seconds", "1"],
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    assert len(list((tmp_path / "d").glob("*/*"))) == 1
    wrong = subprocess.run([sys.executable, "-m", "stoker", "bench", "--frames", "0"], capture_output=True, text=True,
                           timeout=300)
    assert wrong.returncode == 2 and "frames: 0 (expected: 1+)" in wrong.stderr   # the JVM's usage error


@installed
def test_the_jvms_startup_cache_goes_to_the_users_cache_folder_not_into_the_package(tmp_path):
    env = dict(os.environ, STOKER_CACHE=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-m", "stoker", "--version"], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    made = list((tmp_path / "cache" / "aot").glob("stoker-*.aot"))
    assert len(made) == 1 and made[0].stat().st_size > 0
    # Folders the launcher makes are the user's alone: the startup cache is code the JVM maps.
    assert [oct((tmp_path / p).stat().st_mode & 0o777) for p in ("cache", "cache/aot")] == ["0o700", "0o700"]
    assert not list((BUNDLE / "lib").glob("stoker.aot*")), "a file pip does not know of, in pip's folder"
    # A cache folder that cannot be made (a file is in the way: file modes would not stop root) costs the cache,
    # not the run.
    blocked = tmp_path / "a-file"
    blocked.write_text("in the way")
    env["STOKER_CACHE"] = str(blocked / "cache")
    out = subprocess.run([sys.executable, "-m", "stoker", "--version"], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0 and "Java 25" in out.stdout, out.stderr


@installed
def test_an_old_glibc_is_refused_in_one_line_naming_the_floor_and_the_fix(monkeypatch, tmp_path):
    monkeypatch.setattr(os, "confstr", lambda name: "glibc 2.31")
    with pytest.raises(StokerError) as refused:
        stoker_command()
    message = str(refused.value)
    assert "\n" not in message
    assert "needs glibc 2.35 or newer" in message and "glibc 2.31" in message and "Debian 12" in message
    monkeypatch.undo()
    # The launcher checks as well (the console script, or the bundle run by hand): a getconf that answers 2.31.
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "getconf").write_text("#!/bin/sh\necho 'glibc 2.31'\n")
    (fake / "getconf").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}")
    out = subprocess.run([str(BUNDLE / "bin" / "stoker"), "--version"], capture_output=True, text=True, env=env,
                         timeout=60)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "needs glibc 2.35 or newer" in out.stderr and "glibc 2.31" in out.stderr


def test_this_system_passes_the_glibc_check():
    check_glibc()   # Debian 12 (glibc 2.36) here; the wheel's tag says manylinux_2_35
    assert GLIBC_FLOOR == (2, 35)


def test_an_installed_copy_without_a_bundle_finds_the_checkout_it_was_built_from(tmp_path):
    from conftest import SOURCE
    if not (SOURCE / "stoker").is_file():
        pytest.skip(f"no checkout at {SOURCE}")
    site = tmp_path / "site"
    package = Path(stoker_package.__file__).resolve().parent
    shutil.copytree(package, site / "stoker", ignore=shutil.ignore_patterns("__pycache__", "_bundle", "_checkout.txt"))
    (site / "stoker" / "_checkout.txt").write_text(f"{SOURCE}\n")   # what setup.py's build step writes
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site)}
    run = subprocess.run([sys.executable, "-c", "from stoker import stoker_command; print(stoker_command())"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(SOURCE / "stoker")
