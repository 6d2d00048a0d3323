"""What the training loop's side of a loader measures: samples/s, the share of its time spent waiting for data, and
each batch's hand-over from the JVM announcing it to the tensor in hand."""
import time
from collections import deque
from typing import Deque, List, Optional


class ConsumerClock:
    def __init__(self):
        self.clips = 0
        self._first_batch_at: Optional[float] = None
        self._waited = 0.0
        self._startup_wait = False
        self._handover: Deque[int] = deque(maxlen=10_000)

    def waited(self, seconds: float) -> None:
        """A take's wait, told after the take: the first batch's (told after :meth:`took` started the clock) is
        start-up, not steady state."""
        if self._startup_wait:
            self._startup_wait = False
            return
        self._waited += seconds

    def took(self, clips: int, sent_us: Optional[int], waiting_since_us: int) -> None:
        """A batch in hand: ``sent_us`` when the JVM announced it, ``waiting_since_us`` when this wait for it began."""
        if sent_us is not None:   # from "slot ready" (or from when this wait began, if later) to the tensor in hand
            self._handover.append(time.time_ns() // 1000 - max(sent_us, waiting_since_us))
        self.clips += clips
        if self._first_batch_at is None:
            self._first_batch_at = time.perf_counter()
            self._waited = 0.0
            self._startup_wait = True

    def figures(self) -> dict:
        elapsed = 0.0 if self._first_batch_at is None else time.perf_counter() - self._first_batch_at
        hand = sorted(self._handover)
        return {"samples_per_second": self.clips / elapsed if elapsed > 0 else 0.0,
                "data_wait_share": min(1.0, self._waited / elapsed) if elapsed > 0 else 0.0,
                "clips": self.clips, "handover_us_p50": hand[len(hand) // 2] if hand else None}

    def handover_micros(self) -> List[int]:
        return list(self._handover)
