"""Stoker's PyTorch bridge: ``from stoker.torch import VideoLoader``.

The decoding runs in the Stoker JVM (``stoker serve``), which this package starts and finds through
:func:`stoker_command`: a wheel made by ``bin/make-wheel`` carries it (a Java runtime, the jars and FFmpeg), so a
``pip install`` of it needs nothing else. ``numpy`` and ``torch`` at run time; ``stoker.lightning`` for PyTorch
Lightning.
"""
from ._errors import JvmDiedError, StokerError
from ._home import stoker_command
from ._version import __version__

__all__ = ["StokerError", "JvmDiedError", "stoker_command", "__version__"]
