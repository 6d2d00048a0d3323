from typing import Optional


class StokerError(RuntimeError):
    """The Stoker JVM failed, exited or could not be started; the message says how and with its last words."""


class JvmDiedError(StokerError):
    """The Stoker JVM ended without saying so: killed, crashed or exited with its stream unfinished (no epoch end
    with the right count, no end). ``status`` is its exit status (negative: the signal's number; None: it closed its
    output but still runs). ``VideoLoader(restart=N)`` restarts the JVM on this error, and on no other."""

    def __init__(self, message: str, pid: int, status: Optional[int]):
        super().__init__(message)
        self.pid = pid
        self.status = status
