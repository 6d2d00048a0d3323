"""The README runs as written: its shell blocks (```bash) and Python blocks (```python), in order, in one empty folder,
with ``stoker`` the command this package installs (``python -m stoker``). A block marked ``build`` builds or installs
Stoker itself (``./stoker wheel``, ``./run-tests``, ``mvn install``): those are the steps that made what this suite
tests, and stoker-dist's MavenConsumerTest runs the README's ``mvn install`` with its Java example. A block marked
``slow`` runs only with STOKER_DOCS_SLOW=1. The Python blocks of docs/*.md must compile (their commands are checked
against the command line by stoker-cli's DocumentedCommandsTest).
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SOURCE

FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
SLOW = os.environ.get("STOKER_DOCS_SLOW") == "1"


def fenced_blocks(path: Path):
    """(language, marks, text, line) of each fenced block."""
    text = path.read_text()
    for m in FENCE.finditer(text):
        yield m.group(1), m.group(2).split(), m.group(3), text.count("\n", 0, m.start()) + 1


def readme() -> Path:
    path = SOURCE / "README.md"
    if not path.is_file():
        pytest.skip(f"no README at {path}")
    return path


def test_the_readmes_commands_and_python_run_as_written(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # `stoker` as pip installs it: the console script runs `python -m stoker`, with this interpreter.
    (bin_dir / "stoker").write_text(f"#!/bin/sh\nexec {sys.executable} -m stoker \"$@\"\n")
    (bin_dir / "stoker").chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    package = str(Path(__import__("stoker").__file__).resolve().parents[1])
    env["PYTHONPATH"] = package + os.pathsep + env.get("PYTHONPATH", "")
    work = tmp_path / "work"
    work.mkdir()
    ran = []
    for language, marks, text, line in fenced_blocks(readme()):
        if language not in ("bash", "python") or "build" in marks or ("slow" in marks and not SLOW):
            continue
        command = ["bash", "-euo", "pipefail", "-c", text] if language == "bash" else [sys.executable, "-c", text]
        run = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, f"README.md line {line} ({language}) exited {run.returncode}:\n{text}\n" \
                                    f"--- stdout:\n{run.stdout[-2000:]}\n--- stderr:\n{run.stderr[-3000:]}"
        ran.append((language, line, run.stdout))
    assert {language for language, _, _ in ran} == {"bash", "python"}, "the README shows commands and Python"
    python_out = [out for language, _, out in ran if language == "python"][-1]
    assert re.search(r"epoch 1: loss \d+\.\d+, \d+\.\d+ samples/s", python_out), python_out


def test_every_python_block_of_the_docs_compiles():
    docs = sorted((SOURCE / "docs").glob("*.md")) + [readme()]
    checked = 0
    for path in docs:
        for language, marks, text, line in fenced_blocks(path):
            if language == "python":
                compile(text, f"{path.name}:{line}", "exec")
                checked += 1
    assert checked >= 3


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, blanks to hyphens."""
    return re.sub(r"\s", "-", re.sub(r"[^\w\- ]", "", heading.strip().lower()))


def test_every_link_between_the_readme_and_the_docs_arrives():
    files = [readme()] + sorted((SOURCE / "docs").glob("*.md"))
    anchors = {}
    for path in files:
        text = FENCE.sub("", path.read_text())
        anchors[path.resolve()] = {_slug(m.group(1)) for m in re.finditer(r"^#+ (.*)$", text, re.MULTILINE)}
    broken, checked = [], 0
    for path in files:
        for target in re.findall(r"\]\(([^)\s]+)\)", FENCE.sub("", path.read_text())):
            if "://" in target or target.startswith("mailto:"):
                continue
            checked += 1
            file, _, anchor = target.partition("#")
            goal = (path.parent / file).resolve() if file else path.resolve()
            if not goal.exists():
                broken.append(f"{path.name}: {target} (no such file)")
            elif anchor and goal.suffix == ".md" and anchor not in anchors.get(goal, set()):
                broken.append(f"{path.name}: {target} (no such heading)")
    assert not broken, "\n".join(broken)
    assert checked > 40
