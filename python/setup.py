"""Records the checkout a wheel was built from, so that an installed package still finds its ``stoker`` command
(``stoker/_home.py`` reads ``_checkout.txt``); everything else is in pyproject.toml."""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithCheckout(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "stoker" / "_checkout.txt"
        target.write_text(str(Path(__file__).resolve().parent.parent) + "\n")


setup(cmdclass={"build_py": BuildPyWithCheckout})
