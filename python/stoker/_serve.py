"""The ``stoker serve`` process and its control channel (JSON lines; see docs/torch.md).

Three threads read the process: one its standard output (messages), one its standard error (the last lines are
kept for the error that says why it ended), and the caller, who takes messages with a poll that also watches the
process, so that a JVM that dies is an error within a fraction of a second, never a hang. Every message the JVM wrote
before it died is taken first (the reader is waited for to reach the end of the pipe), then the error: an end is
only ever a message, never the pipe closing.
"""
import collections
import itertools
import json
import os
import queue
import signal
import subprocess
import threading
from typing import List, Optional

from ._errors import JvmDiedError, StokerError

# 2: an epoch end carries the number of batches sent in it.
PROTOCOL = 2
_EOF = object()
_STDERR_LINES = 40
# How long the readers may take to hand over what a dead JVM left in its pipes: only a hang guard (a pipe at its end
# is read in microseconds), far above any real time.
_DRAIN_GUARD_SECONDS = 30.0


class ServeProcess:
    def __init__(self, args: List[str], env: Optional[dict] = None):
        self.args = args
        try:
            # A session of its own: the terminal's Ctrl-C reaches Python only, which then closes the JVM in order.
            self._proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          start_new_session=True, env=env)
        except OSError as e:
            raise StokerError(f"cannot start {args[0]}: {e}") from e
        self._stream = queue.Queue()
        self._replies = queue.Queue()
        self._stderr = collections.deque(maxlen=_STDERR_LINES)
        self._requests = itertools.count(1)
        self._write_lock = threading.Lock()
        self._closed = False
        self._stdout_reader = threading.Thread(target=self._read_messages, name="stoker-serve-stdout", daemon=True)
        self._stderr_reader = threading.Thread(target=self._read_stderr, name="stoker-serve-stderr", daemon=True)
        self._stdout_reader.start()
        self._stderr_reader.start()

    @property
    def pid(self) -> int:
        return self._proc.pid

    def _read_messages(self):
        for raw in self._proc.stdout:
            line = raw.decode("utf-8", "replace").strip()
            if not line.startswith("{"):
                continue
            try:
                message = json.loads(line)
            except ValueError:
                continue
            kind = message.get("type")
            if kind in ("stats", "failures"):
                self._replies.put(message)
            elif kind != "warning":
                self._stream.put(message)
        self._stream.put(_EOF)
        self._replies.put(_EOF)

    def _read_stderr(self):
        for raw in self._proc.stderr:
            self._stderr.append(raw.decode("utf-8", "replace").rstrip())

    def returncode(self) -> Optional[int]:
        """The exit status once the process ended (waiting briefly for it), else None."""
        try:
            return self._proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return None

    def stderr_lines(self) -> List[str]:
        """The last lines of standard error: all of them once the process ended (the reader is waited for)."""
        if self._proc.poll() is not None:
            self._stderr_reader.join(_DRAIN_GUARD_SECONDS)
        return list(self._stderr)

    def send(self, message: dict) -> None:
        data = (json.dumps(message) + "\n").encode("utf-8")
        with self._write_lock:
            try:
                self._proc.stdin.write(data)
                self._proc.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass  # the process is gone: the next take says why

    def take(self) -> dict:
        """The next message of the stream (hello, batch, epoch_end, end, error); StokerError if the JVM is gone."""
        return self._take(self._stream)

    def request(self, op: str) -> dict:
        req = next(self._requests)
        self.send({"op": op, "req": req})
        while True:
            reply = self._take(self._replies)
            if reply.get("req") == req:
                return reply

    def _take(self, source: queue.Queue) -> dict:
        while True:
            try:
                message = source.get(timeout=0.05)
            except queue.Empty:
                if self._proc.poll() is None:
                    continue
                # Gone: the reader hands over every line the JVM wrote, then the end of the pipe.
                self._stdout_reader.join(_DRAIN_GUARD_SECONDS)
                try:
                    message = source.get_nowait()
                except queue.Empty:
                    raise self.died() from None
            if message is _EOF:
                source.put(_EOF)
                raise self.died()
            return message

    def died(self, what: str = "") -> JvmDiedError:
        """The error for a stream that ended without its end message (``what`` says more, e.g. a count that
        disagreed): names the exit status or signal and the JVM's last lines on standard error."""
        try:
            status = self._proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            status = None
        if status is not None:
            self._stderr_reader.join(_DRAIN_GUARD_SECONDS)
        if status is None:
            how = "closed its output but is still running"
        elif status < 0:
            try:
                how = f"was killed by signal {-status} ({signal.Signals(-status).name})"
            except ValueError:
                how = f"was killed by signal {-status}"
        else:
            how = f"exited with status {status}"
        last = "\n  ".join(self._stderr) if self._stderr else "(nothing on standard error)"
        return JvmDiedError(f"the Stoker JVM (pid {self._proc.pid}) {how}{what}; its last lines:\n  {last}",
                            self._proc.pid, status)

    def broke_protocol(self, what: str) -> JvmDiedError:
        """The error for a stream that went wrong while the process may live on (a count that disagrees, an end
        where there can be none): the process is stopped, so that nothing more is read from it."""
        if self._proc.poll() is None:
            self.kill()
            self._proc.wait()
            self._stderr_reader.join(_DRAIN_GUARD_SECONDS)
            last = "\n  ".join(self._stderr) if self._stderr else "(nothing on standard error)"
            return JvmDiedError(f"the Stoker JVM (pid {self._proc.pid}) {what}: it was running, and was stopped; its "
                                f"last lines:\n  {last}", self._proc.pid, None)
        return self.died(f" after it {what}")

    def status(self) -> Optional[int]:
        """The exit status if the process ended (negative: killed by that signal), else None; does not wait."""
        return self._proc.poll()

    def close(self, timeout: float = 5.0) -> None:
        if self._closed:
            return
        self._closed = True
        self.send({"op": "close"})
        try:
            self._proc.stdin.close()
        except OSError:
            pass
        try:
            self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
        # What is left of its process group (all of it, if it would not stop; a JVM the launcher was making its
        # startup cache with, if the launcher was killed): nothing the loader started outlives it. The group's id
        # is not reused while a member lives, so this reaches only those.
        self.kill()
        self._proc.wait()

    def kill(self) -> None:
        """SIGKILLs the JVM and every process it started: its process group, which start_new_session made. The pid
        may be the launcher's while it makes the JVM's startup cache with JVMs of its own, and those must not outlive
        it."""
        try:
            os.killpg(self._proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass   # gone already
