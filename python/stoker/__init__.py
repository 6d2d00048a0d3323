"""Stoker's PyTorch bridge: ``from stoker.torch import VideoLoader``.

The package is pure Python (``numpy`` and ``torch`` at run time); the decoding runs in the Stoker JVM
(``stoker serve``), which this package starts and finds through :func:`stoker_command`.
"""
from ._errors import StokerError
from ._home import stoker_command

__all__ = ["StokerError", "stoker_command"]
__version__ = "0.1.0"
