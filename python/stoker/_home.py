"""Where the ``stoker`` command is: ``stoker_home=``, else ``STOKER_HOME``, else the bundle inside this package (a
wheel made by ``bin/make-wheel``: a Java runtime, the jars and FFmpeg, so no JDK or checkout is needed), else the
checkout this package was installed from (``pip install ./python``) or sits in (``PYTHONPATH=python``), else
``stoker`` on ``PATH``."""
import os
import shutil
from pathlib import Path
from typing import Optional

from ._errors import StokerError

# The FFmpeg libraries of the bundle are built against glibc 2.35 (the wheel's manylinux_2_35 tag says the same).
GLIBC_FLOOR = (2, 35)
BUNDLE = Path(__file__).resolve().with_name("_bundle")


def _launcher_in(home: Path) -> Optional[Path]:
    # A checkout has ./stoker at its root; a bundle has bin/stoker.
    for candidate in (home / "stoker", home / "bin" / "stoker"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def glibc_version() -> Optional[tuple]:
    """This system's glibc as (major, minor), or None where the C library is another (musl)."""
    try:
        text = os.confstr("CS_GNU_LIBC_VERSION") or ""   # "glibc 2.36"
    except (ValueError, OSError):
        return None
    name, _, version = text.partition(" ")
    if name != "glibc":
        return None
    try:
        return tuple(int(part) for part in version.split(".")[:2])
    except ValueError:
        return None


def check_glibc() -> None:
    """The bundle's one demand on the system, checked before anything starts."""
    found = glibc_version()
    if found is None or found < GLIBC_FLOOR:
        have = "no glibc (musl?)" if found is None else "glibc " + ".".join(map(str, found))
        raise StokerError(f"this Stoker wheel needs glibc {'.'.join(map(str, GLIBC_FLOOR))} or newer, and this system has "
                          f"{have}: use a newer Linux (Debian 12, Ubuntu 22.04, RHEL 9 or later), or point STOKER_HOME at "
                          f"a Stoker checkout built here")


def stoker_command(stoker_home: Optional[str] = None, search_path: bool = True) -> str:
    """The path of the ``stoker`` launcher to run, or a :class:`StokerError` saying how to set it.

    ``search_path=False`` leaves ``PATH`` out (the ``stoker`` console script, which is on ``PATH`` itself)."""
    for label, home in (("stoker_home=", stoker_home), ("STOKER_HOME", os.environ.get("STOKER_HOME"))):
        if home:
            found = _launcher_in(Path(home).expanduser())
            if found is None:
                raise StokerError(f"{label} {home}: no stoker launcher there (expected {home}/stoker or {home}/bin/stoker)")
            return str(found)
    bundled = _launcher_in(BUNDLE)
    if bundled is not None:
        check_glibc()
        return str(bundled)
    # Installed from a checkout (setup.py records it) or imported from one (python/stoker/ in the checkout).
    recorded = Path(__file__).with_name("_checkout.txt")
    for checkout in ([Path(recorded.read_text().strip())] if recorded.is_file() else []) + [Path(__file__).resolve().parents[2]]:
        found = _launcher_in(checkout)
        if found is not None:
            return str(found)
    on_path = shutil.which("stoker") if search_path else None
    if on_path:
        return on_path
    raise StokerError("cannot find the stoker command: install the wheel that bin/make-wheel writes (it holds one), pass "
                      "stoker_home=, set STOKER_HOME to a Stoker checkout or bundle, or put stoker on PATH")
