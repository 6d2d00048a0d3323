"""The wheel's build steps that pyproject.toml cannot state.

With the bundle in ``stoker/_bundle`` (``bin/make-wheel`` puts it there, in a copy of this folder), the wheel holds a
Java runtime, the jars and FFmpeg's libraries for Linux x86-64 with glibc 2.35+: it is tagged
``py3-none-manylinux_2_35_x86_64``, so that pip installs it only where it runs. Without one (``pip install ./python``
from a checkout), the package records the checkout it was built from, whose ``./stoker`` it then runs
(``stoker/_home.py`` reads ``_checkout.txt``).
"""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
BUNDLE = HERE / "stoker" / "_bundle"
PLATFORM = "manylinux_2_35_x86_64"
TYPED = ["py.typed"]   # PEP 561: type checkers read the package's hints (VideoLoader's keywords: LoaderOptionArgs)


class BuildPy(build_py):
    def run(self):
        super().run()
        if not BUNDLE.is_dir():
            target = Path(self.build_lib) / "stoker" / "_checkout.txt"
            target.write_text(str(HERE.parent) + "\n")


if BUNDLE.is_dir():
    bundled = sorted(str(p.relative_to(HERE / "stoker")) for p in BUNDLE.rglob("*") if p.is_file())
    setup(cmdclass={"build_py": BuildPy}, package_data={"stoker": bundled + TYPED},
          options={"bdist_wheel": {"plat_name": PLATFORM}})
else:
    setup(cmdclass={"build_py": BuildPy}, package_data={"stoker": TYPED})
