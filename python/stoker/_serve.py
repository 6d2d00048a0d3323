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
import tempfile
import threading
import time
from typing import List, Optional, Tuple

from ._errors import JvmDiedError, StokerError

# 2: an epoch end carries the number of batches sent in it.
PROTOCOL = 2
_USAGE_STATUS = 2   # picocli's exit status for a usage error
_EOF = object()
_STDERR_LINES = 40
# How long the readers may take to hand over what a dead JVM left in its pipes: only a hang guard (a pipe at its end
# is read in microseconds), far above any real time.
_DRAIN_GUARD_SECONDS = 30.0


class ServeProcess:
    def __init__(self, args: List[str], env: Optional[dict] = None):
        self.args = args
        # The JVM ends itself when this process exits, even if that is before it could ask for its parent.
        env = dict(os.environ if env is None else env, STOKER_CONSUMER_PID=str(os.getpid()))
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
        self.epoch_open: Optional[int] = None   # the epoch whose batches are coming, until its end
        self._epoch_batches = 0                 # batches of it taken
        self._stdout_reader = threading.Thread(target=self._read_messages, name="stoker-serve-stdout", daemon=True)
        self._stderr_reader = threading.Thread(target=self._read_stderr, name="stoker-serve-stderr", daemon=True)
        self._stdout_reader.start()
        self._stderr_reader.start()

    @classmethod
    def start(cls, args: List[str], resume: Optional[dict] = None) -> Tuple["ServeProcess", dict]:
        """Starts ``stoker serve`` (from ``resume``, a sampler state, if given) and reads its hello: (the process, the
        hello). A usage error (exit status 2) or an option the JVM refused is a ValueError, as the checks before a
        start raise; anything else that stops it first a StokerError (a JvmDiedError if it died)."""
        resume_file = None
        if resume is not None:
            fd, resume_file = tempfile.mkstemp(prefix="stoker-resume-", suffix=".json")   # 0600
            with os.fdopen(fd, "w") as f:
                json.dump(resume, f)
            args = args + ["--resume", resume_file]
        process = cls(args)
        try:
            try:
                hello = process.take()
            except StokerError as e:
                raise process._start_error(e) from None
            if hello.get("type") == "error":
                # A document the JVM refused (a stage the loader lacks): a bad argument, as the checks here raise.
                refused = ValueError if hello.get("kind") == "InvalidValueException" else StokerError
                raise refused(f"stoker serve: {hello.get('message')}")
            if hello.get("type") != "hello" or hello.get("protocol") != PROTOCOL:
                raise StokerError(f"stoker serve spoke another protocol (expected {PROTOCOL}): {hello}")
        except BaseException:
            process.close()
            raise
        finally:
            if resume_file is not None:
                os.unlink(resume_file)
        return process, hello

    def _start_error(self, error: StokerError) -> Exception:
        """A usage error of the JVM (exit status 2) names an argument: a ValueError, as the checks here raise."""
        status = self.returncode()
        lines = self.stderr_lines()
        if status == _USAGE_STATUS and lines:
            return ValueError("; ".join(line for line in lines if line and not line.startswith(("Usage:", " ")))[:2000]
                              or str(error))
        return error

    def error_after_hello(self) -> StokerError:
        """The error a JVM that stopped just after its hello says next; how it died if it said none."""
        try:
            while True:
                m = self.take()
                if m.get("type") == "error":
                    return StokerError(f"stoker serve: {m.get('message')} ({m.get('kind')})")
        except StokerError as e:
            return e

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

    def take(self, timeout: Optional[float] = None) -> dict:
        """The next message of the stream (hello, batch, epoch_end, end, error), checked against the ones before: a
        JvmDiedError if the JVM is gone or the stream broke the protocol (an epoch end whose epoch or count is not
        the batches taken, a batch of another epoch before that end, an end in mid-epoch). With ``timeout``, a
        StokerError when a JVM still running sends nothing for that many seconds."""
        m = self._take(self._stream, timeout)
        kind = m.get("type")
        if kind == "batch":
            if self.epoch_open is not None and m["epoch"] != self.epoch_open:
                raise self.broke_protocol(f"sent a batch of epoch {m['epoch']} before the end of epoch "
                                          f"{self.epoch_open}")
            self.epoch_open = m["epoch"]
            self._epoch_batches += 1
        elif kind == "epoch_end":
            if self.epoch_open is not None and m["epoch"] != self.epoch_open:
                raise self.broke_protocol(f"ended epoch {m['epoch']} while its batches were of epoch "
                                          f"{self.epoch_open}")
            if m.get("batches") != self._epoch_batches:
                raise self.broke_protocol(f"ended epoch {m['epoch']} saying it sent {m.get('batches')} batches, and "
                                          f"{self._epoch_batches} arrived")
            self.epoch_open, self._epoch_batches = None, 0
        elif kind == "end" and self.epoch_open is not None:
            raise self.broke_protocol(f"sent its end after {self._epoch_batches} batches of epoch {self.epoch_open}, "
                                      f"with no end of that epoch")
        return m

    def request(self, op: str) -> dict:
        req = next(self._requests)
        self.send({"op": op, "req": req})
        while True:
            reply = self._take(self._replies)
            if reply.get("req") == req:
                return reply

    def _take(self, source: queue.Queue, timeout: Optional[float] = None) -> dict:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                message = source.get(timeout=0.05)
            except queue.Empty:
                if self._proc.poll() is None:
                    if deadline is not None and time.monotonic() > deadline:
                        raise StokerError(f"stoker serve (pid {self._proc.pid}) is running but sent nothing for "
                                          f"{timeout:g} s (timeout=): stuck, or slower than that; loader.stats() "
                                          f"names the stage each item waits in")
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
