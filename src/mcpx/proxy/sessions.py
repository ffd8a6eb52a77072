"""The sessions folder: where proxied sessions are recorded and found again.

`<data dir>/sessions/` (`$MCPX_DATA_DIR`, else platformdirs' user data dir) holds, per session, its
recording (`<stamp>-<name>.mcpx.jsonl`, unless `--record` put it elsewhere) and a small index file
beside it (`<id>.session.json`: name, recording path, the proxy's pid, start, end and exit code). A
session is *live* while its index says it has not ended and its pid still runs (a proxy killed with
SIGKILL leaves an index without an end: its dead pid says it is over). Both files are 0600 in a 0700
folder: the recording holds traffic, the index names it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mcpx.record.format import SUFFIX
from mcpx.wire.private_files import private_dir, write_private

INDEX_SUFFIX = ".session.json"


def data_dir() -> Path:
    base = os.environ.get("MCPX_DATA_DIR")
    if base:
        return Path(base)
    import platformdirs

    return Path(platformdirs.user_data_dir("mcpx"))


def sessions_dir() -> Path:
    return data_dir() / "sessions"


def slug(text: str) -> str:
    """A session name from a server's label: its last word's base name, file-name safe."""
    word = os.path.basename(text.split(" ")[-1].rstrip("/")) if text else "server"
    word = re.sub(r"\.(py|js|mjs|cjs|ts)$", "", word)
    return re.sub(r"[^A-Za-z0-9._-]+", "-", word).strip("-.")[:40] or "server"


@dataclass(slots=True)
class SessionEntry:
    id: str
    name: str
    recording: Path
    pid: int
    started: float
    target: str
    ended: float | None = None
    exit_code: int | None = None
    listen: str | None = None
    #: the index file (None for a recording found in the folder without one)
    index: Path | None = None

    @property
    def live(self) -> bool:
        if self.ended is not None or self.index is None:
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def refreshed(self) -> SessionEntry:
        """The entry as its index says now (a proxy that ended wrote its end and exit code there)."""
        again = _read_index(self.index) if self.index is not None else None
        return again if again is not None else self

    def save(self) -> None:
        if self.index is None:
            return
        data = asdict(self)
        data["recording"] = str(self.recording)
        data.pop("index")
        write_private(self.index, json.dumps(data, indent=1) + "\n")

    def finish(self, exit_code: int) -> None:
        """Mark the session over (best effort: a full disk must not turn a clean exit into an error)."""
        self.ended = time.time()
        self.exit_code = exit_code
        with contextlib.suppress(OSError):
            self.save()


def register(
    folder: Path | None, label: str, name: str | None, record: Path | None, listen: str | None = None
) -> SessionEntry:
    """A new live session in `folder` (the sessions folder by default), its index written."""
    from mcpx.record.writer import recording_path

    folder = private_dir(folder or sessions_dir())
    name = name or slug(label)
    recording = Path(record).resolve() if record is not None else recording_path(folder, name)
    ident = recording.name[: -len(SUFFIX)] if recording.name.endswith(SUFFIX) else recording.stem
    index = folder / f"{ident}{INDEX_SUFFIX}"
    counter = 1
    while index.exists():
        counter += 1
        index = folder / f"{ident}-{counter}{INDEX_SUFFIX}"
    entry = SessionEntry(
        id=index.name[: -len(INDEX_SUFFIX)],
        name=name,
        recording=recording,
        pid=os.getpid(),
        started=time.time(),
        target=label,
        listen=listen,
        index=index,
    )
    try:
        entry.save()
    except OSError:
        entry.index = None  # the session still runs; it is only not listed
    return entry


def _read_index(path: Path) -> SessionEntry | None:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        return SessionEntry(
            id=str(data["id"]),
            name=str(data["name"]),
            recording=Path(data["recording"]),
            pid=int(data["pid"]),
            started=float(data["started"]),
            target=str(data.get("target", "")),
            ended=data.get("ended"),
            exit_code=data.get("exit_code"),
            listen=data.get("listen"),
            index=path,
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def list_sessions(folder: Path | None = None) -> list[SessionEntry]:
    """Every session in the folder, newest first: those with an index, and recordings dropped there
    without one (past sessions)."""
    folder = folder or sessions_dir()
    if not folder.is_dir():
        return []
    entries: list[SessionEntry] = []
    indexed: set[Path] = set()
    for path in folder.glob(f"*{INDEX_SUFFIX}"):
        entry = _read_index(path)
        if entry is not None:
            entries.append(entry)
            indexed.add(entry.recording.resolve())
    for path in folder.glob(f"*{SUFFIX}"):
        if path.resolve() in indexed:
            continue
        ident = path.name[: -len(SUFFIX)]
        with_stamp = re.match(r"\d{8}-\d{6}-(.*)", ident)
        entries.append(
            SessionEntry(
                id=ident,
                name=with_stamp.group(1) if with_stamp else ident,
                recording=path,
                pid=0,
                started=path.stat().st_mtime,
                target="",
                ended=path.stat().st_mtime,
            )
        )
    entries.sort(key=lambda entry: entry.started, reverse=True)
    return entries


def find_session(name: str | None, folder: Path | None = None) -> SessionEntry | None:
    """The session `name` means (a session's name or id; the newest live one first), or with no name
    the newest live session, else the newest past one."""
    entries = list_sessions(folder)
    if name is not None:
        entries = [entry for entry in entries if name in (entry.name, entry.id)]
    live = [entry for entry in entries if entry.live]
    chosen = live or entries
    return chosen[0] if chosen else None


def summarize(entry: SessionEntry) -> dict[str, Any]:
    """What `mcpx sessions` shows of a session: who the host was, which server, the era, counts."""
    from mcpx.record.format import RecordingError
    from mcpx.record.reader import read_recording
    from mcpx.wire import Request, Response

    row: dict[str, Any] = {
        "id": entry.id,
        "name": entry.name,
        "live": entry.live,
        "started": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.started)),
        "recording": str(entry.recording),
        "target": entry.target,
        "pid": entry.pid or None,
        "exit_code": entry.exit_code,
        "listen": entry.listen,
        "host": None,
        "server": None,
        "era": None,
        "frames": 0,
        "problems": 0,
    }
    if not entry.recording.is_file():  # never written, or --record named a device (/dev/full reads forever)
        row["error"] = f"no recording at {entry.recording}"
        return row
    try:
        recording = read_recording(entry.recording)
    except (RecordingError, OSError) as exc:
        row["error"] = str(exc)
        return row
    frames = problems = 0
    for event in recording.log:
        if event.message is not None:
            frames += 1
        if event.flags:
            problems += 1
        message = event.message
        if row["host"] is None and event.direction == "out" and isinstance(message, Request):
            row["host"] = _client_info(message)
    opening = recording.opening()
    if opening is not None and isinstance(opening.message, Response):
        row["server"] = _server_info(opening.message.result)
    row["era"] = recording.era if opening is not None else None
    row["frames"] = frames
    row["problems"] = problems + len(recording.problems)
    row["target"] = row["target"] or recording.target
    return row


def _named(info: Any) -> str | None:
    if not isinstance(info, dict) or not isinstance(info.get("name"), str):
        return None
    version = info.get("version")
    return f"{info['name']} {version}" if isinstance(version, str) else info["name"]


def _client_info(request: Any) -> str | None:
    params = request.params if isinstance(request.params, dict) else {}
    if request.method == "initialize":
        return _named(params.get("clientInfo"))
    meta = params.get("_meta")
    return _named(meta.get("io.modelcontextprotocol/clientInfo")) if isinstance(meta, dict) else None


def _server_info(result: Any) -> str | None:
    if not isinstance(result, dict):
        return None
    if "serverInfo" in result:
        return _named(result["serverInfo"])
    meta = result.get("_meta")
    return _named(meta.get("io.modelcontextprotocol/serverInfo")) if isinstance(meta, dict) else None
