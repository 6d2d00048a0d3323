"""Where the ``stoker`` command is: ``stoker_home=``, else ``STOKER_HOME``, else ``stoker`` on ``PATH``,
else the checkout this package was installed from (``pip install ./python``, ``pip install -e ./python``) or
sits in (``PYTHONPATH=python``)."""
import os
import shutil
from pathlib import Path
from typing import Optional

from ._errors import StokerError


def _launcher_in(home: Path) -> Optional[Path]:
    # A checkout has ./stoker at its root; the bundle has bin/stoker.
    for candidate in (home / "stoker", home / "bin" / "stoker"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def stoker_command(stoker_home: Optional[str] = None) -> str:
    """The path of the ``stoker`` launcher to run, or a :class:`StokerError` saying how to set it."""
    for label, home in (("stoker_home=", stoker_home), ("STOKER_HOME", os.environ.get("STOKER_HOME"))):
        if home:
            found = _launcher_in(Path(home).expanduser())
            if found is None:
                raise StokerError(f"{label} {home}: no stoker launcher there (expected {home}/stoker or {home}/bin/stoker)")
            return str(found)
    on_path = shutil.which("stoker")
    if on_path:
        return on_path
    # Installed from a checkout (setup.py records it) or imported from one (python/stoker/ in the checkout).
    recorded = Path(__file__).with_name("_checkout.txt")
    for checkout in ([Path(recorded.read_text().strip())] if recorded.is_file() else []) + [Path(__file__).resolve().parents[2]]:
        found = _launcher_in(checkout)
        if found is not None:
            return str(found)
    raise StokerError("cannot find the stoker command: pass stoker_home=, set STOKER_HOME to a Stoker checkout or "
                      "bundle, or put stoker on PATH")
