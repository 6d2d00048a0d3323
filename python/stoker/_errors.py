class StokerError(RuntimeError):
    """The Stoker JVM failed, exited or could not be started; the message says how and with its last words."""
