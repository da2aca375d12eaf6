"""How Gradio serves the Space's page: a queue that turns away runs, never reads, when it is full, and no memory
kept of visitors who have left.

Both work around Gradio 6.31 behaviour:

* every event, ``queue=False`` or not, joins the queue through ``/queue/join``, and ``Blocks.queue(max_size=...)``
  counts every waiting event: with the runs' queue full, the page's load event (the leaderboard) and every
  Explore page were refused with "Queue is full" too;
* Gradio keeps each session's state (a copy of every component's configuration, with the last value each output
  showed: the leaderboard's cells, an Explore page, a run's charts) until 10,000 sessions exist, also after the
  visitor has gone: the server's memory grew by about 0.5 MiB per visit and never came back.
"""

from __future__ import annotations

import gradio as gr
from gradio import queueing, route_utils


class RunQueue(queueing.Queue):
    """Gradio's queue whose size limit counts and refuses only events that wait for a slot: those with a
    concurrency limit (runs, file scoring, comparisons). Quick reads have none, so they start as soon as a
    worker thread is free and never wait behind runs; refusing them would leave a visitor a page that cannot
    load its leaderboard."""

    max_waiting: int | None = None

    @classmethod
    def install(cls, demo: gr.Blocks, max_waiting: int | None) -> None:
        """Make ``demo``'s queue (made by ``demo.queue()``) a ``RunQueue`` holding at most ``max_waiting`` runs."""
        queue = demo._queue
        # A change of class keeps the state Gradio's own constructor set up, whatever its version puts there.
        queue.__class__ = cls
        queue.max_waiting = max_waiting
        # Gradio's own limit counts quick reads too (and on ZeroGPU it sets one when none is given).
        queue.max_size = None

    def waiting(self) -> int:
        """Events waiting for a slot of a limited concurrency group (the running ones have left the queue)."""
        return sum(
            len(group.queue)
            for group in self.event_queue_per_concurrency_id.values()
            if group.concurrency_limit is not None
        )

    async def push(self, body, request, username):
        if self.max_waiting is not None and body.fn_index is not None:
            limited = route_utils.get_fn(self.blocks, None, body).concurrency_limit is not None
            waiting = self.waiting()
            if limited and waiting >= self.max_waiting:
                # Gradio's own words: the page and gradio_client show their "queue is full" message for it.
                return False, f"Queue is full. Max size is {self.max_waiting} and size is {waiting}.", "queue_full"
        return await super().push(body, request, username)


def forget_sessions_of_leavers(demo: gr.Blocks) -> None:
    """Drop a session's state when its visitor leaves (the page's heartbeat ends: a closed tab, a reload, a
    gradio_client that is closed or resets its session), so that the server holds the state of present visitors
    only. Call inside ``demo``'s ``with`` block.

    Gradio marks such a session closed and deletes its ``gr.State`` values an hour later, but keeps the session's
    copy of the page's configuration and outputs. A visitor whose connection drops and comes back keeps the page
    as shown; their next run or pick of a run works as on a fresh page (the Explore tab shows the newest run)."""

    # Async: it runs on the server's event loop, as Gradio's own expired-state sweep does, so the two never
    # interleave.
    async def forget(request: gr.Request) -> None:
        holder = demo.state_holder
        holder.delete_state(request.session_hash)  # gr.State delete callbacks, as Gradio's expiry calls them
        with holder.lock:
            holder.session_data.pop(request.session_hash, None)
            holder.time_last_used.pop(request.session_hash, None)

    demo.unload(forget)
