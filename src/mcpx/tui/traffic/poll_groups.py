"""`PollGroups`: the `tasks/get` polls of one task, folded into one row of the traffic log.

A task-augmented call is polled at the server's `pollInterval` until it ends: a minute-long task at
the 200 ms floor is 600 rows of `tasks/get` requests and answers that bury everything else. The traffic
view shows a task's polls as one row instead — its first poll request, drawn as
`▸ tasks/get ×N  task T · status` with the polling's span as its bar — and hides the rest. Enter on that
row unfolds it (every poll back in place, the first marked `▾`); `z` shows every poll of every task,
as does a filter that names `tasks/get`.

Nothing is dropped: the log keeps every event, a folded poll is only a row not drawn, and the counts
say how many there are. Polls are grouped per task id and per direction (a server polling mcpx's own
client-side tasks is a separate group). This class knows events only; the view asks it which rows to
hide and what a group's head row says.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mcpx.wire.jsonrpc import ErrorResponse, Request, Response
from mcpx.wire.traffic import TrafficEvent

POLL = "tasks/get"
GroupKey = tuple[str, str]  # (direction of the requests, task id)


@dataclass(slots=True)
class PollGroup:
    """One task's polls: its first request (the row that stands for all) and every event since."""

    key: GroupKey
    head: int
    members: list[int] = field(default_factory=list)
    polls: int = 0
    #: the task's status as the latest answer said it (an error answer: "error")
    status: str | None = None
    #: seq of the newest member (the end of the group's bar)
    last: int = 0

    @property
    def task_id(self) -> str:
        return self.key[1]


class PollGroups:
    """Every task's polls seen so far, and which groups the user unfolded."""

    def __init__(self) -> None:
        self.by_key: dict[GroupKey, PollGroup] = {}
        #: request seq → its group (so an answer finds the group of what it answers)
        self._of_request: dict[int, PollGroup] = {}
        #: seq → the group of every member (heads included)
        self._member: dict[int, PollGroup] = {}
        self.expanded: set[GroupKey] = set()
        #: False: every poll is a row of its own (`z` in the traffic log)
        self.folding = True
        #: the filter names tasks/get: the user asked to see polls, so none is folded
        self.asked = False

    @property
    def active(self) -> bool:
        return self.folding and not self.asked

    def note(self, events: list[TrafficEvent]) -> bool:
        """Take in new events; True when a group grew or changed (its head row must be drawn again)."""
        changed = False
        for event in events:
            if event.method != POLL:
                continue
            message = event.message
            if type(message) is Request:
                params = message.params if isinstance(message.params, dict) else {}
                task_id = params.get("taskId")
                if not isinstance(task_id, str):
                    continue
                key = (event.direction, task_id)
                group = self.by_key.get(key)
                if group is None:
                    group = self.by_key[key] = PollGroup(key, event.seq)
                group.polls += 1
                self._of_request[event.seq] = group
            elif event.request_seq is not None and event.request_seq in self._of_request:
                group = self._of_request[event.request_seq]
                if isinstance(message, Response) and isinstance(message.result, dict):
                    status = message.result.get("status")
                    group.status = status if isinstance(status, str) else group.status
                elif isinstance(message, ErrorResponse):
                    group.status = "error"
            else:
                continue
            group.members.append(event.seq)
            group.last = event.seq
            self._member[event.seq] = group
            changed = True
        return changed

    def hidden(self, seq: int) -> bool:
        """Whether the row of `seq` is folded away (a poll of a folded group, not its head)."""
        if not self.active:
            return False
        group = self._member.get(seq)
        return group is not None and group.head != seq and group.key not in self.expanded

    def head(self, seq: int) -> PollGroup | None:
        """The group `seq` heads (None: not a group's first poll, or grouping is off)."""
        group = self._member.get(seq) if self.active else None
        return group if group is not None and group.head == seq else None

    def folded(self, seq: int) -> PollGroup | None:
        """The group `seq` heads while it is folded (Enter on its row unfolds it)."""
        group = self.head(seq)
        return group if group is not None and group.key not in self.expanded else None

    def hide(self, seqs: list[int]) -> list[int]:
        """`seqs` without the folded polls."""
        if not self.active or not self._member:
            return seqs
        return [seq for seq in seqs if not self.hidden(seq)]
