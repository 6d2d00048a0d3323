"""``restart=N``: how many times in a row a dead JVM is restarted, what each death was, and the error after N."""
import logging
from collections import deque
from typing import Deque, List

from ._errors import JvmDiedError

_LOG = logging.getLogger("stoker")
_CAUSES_KEPT = 100   # the restart causes stats() lists, the newest


class Restarts:
    def __init__(self, limit: int):
        self.limit = limit
        self.total = 0
        self._in_a_row: List[str] = []   # the deaths since the last batch delivered
        self.causes: Deque[str] = deque(maxlen=_CAUSES_KEPT)

    def died(self, death: JvmDiedError) -> None:
        """Counts a death: returns when a restart is due (logged with its cause), else raises the error, which with
        restarts allowed names every death of the row."""
        cause = str(death).split("; its last lines")[0]
        self._in_a_row.append(cause)
        if len(self._in_a_row) > self.limit:
            if self.limit == 0:
                raise death
            causes = "\n  ".join(f"{i}. {c}" for i, c in enumerate(self._in_a_row, 1))
            raise JvmDiedError(f"the Stoker JVM died {len(self._in_a_row)} times in a row, with no batch between "
                               f"(restart={self.limit}):\n  {causes}\nthe last one's{str(death)[len(cause):]}",
                               death.pid, death.status)
        self.total += 1
        self.causes.append(cause)
        _LOG.warning("stoker: %s; restarting it from the state after the last batch taken (%d of restart=%d in a "
                     "row, %d in all)", cause, len(self._in_a_row), self.limit, self.total)

    def delivered(self) -> None:
        """A batch reached the consumer: the deaths in a row start again from none."""
        self._in_a_row.clear()
