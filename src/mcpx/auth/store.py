"""Where sign-ins are kept: tokens per server (resource) and client registrations per issuer.

One JSON file, `oauth.json` in the data directory (`$MCPX_DATA_DIR`, else platformdirs' user data dir),
mode 0600, replaced atomically (write a temporary file, fsync, rename) under an exclusive lock on
`oauth.lock`, so two mcpx processes refreshing at once never lose a rotated refresh token. When the
operating system has a keyring (`keyring`; `$MCPX_TOKEN_STORE=file|keyring` to choose), the secret fields
(tokens, client secrets) live there and the file keeps only what `mcpx auth status` shows.

A client registration is keyed by the issuer that issued it and never used with another (SEP-2352).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcpx.wire.private_files import private_dir

SECRET_FIELDS = frozenset({"access_token", "refresh_token", "id_token", "client_secret", "dpop_key"})
KEYRING_SERVICE = "mcpx-oauth"


def data_dir() -> Path:
    base = os.environ.get("MCPX_DATA_DIR")
    if base:
        return Path(base)
    import platformdirs

    return Path(platformdirs.user_data_dir("mcpx"))


def _keyring() -> Any | None:
    choice = os.environ.get("MCPX_TOKEN_STORE", "").lower()
    if choice == "file":
        return None
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:
        return None
    usable = not isinstance(backend, fail.Keyring) and getattr(backend, "priority", 0) > 0
    return keyring if usable or choice == "keyring" else None


class TokenStore:
    """Token sets by resource and client registrations by issuer, shared by every mcpx process."""

    def __init__(self, directory: Path | None = None, *, use_keyring: bool | None = None) -> None:
        self.directory = directory or data_dir()
        self.path = self.directory / "oauth.json"
        self._use_keyring = use_keyring is None or use_keyring
        self._keyring_module: Any | None = None
        self._keyring_checked = False

    @property
    def _keyring(self) -> Any | None:
        """The keyring module when it has a usable backend; looked up on first need (it takes a while:
        a server that never asks for OAuth must not pay for it)."""
        if not self._keyring_checked:
            self._keyring_checked = True
            self._keyring_module = _keyring() if self._use_keyring else None
        return self._keyring_module

    @property
    def backend(self) -> str:
        return "keyring" if self._keyring is not None else f"file {self.path}"

    @contextlib.asynccontextmanager
    async def locked(self) -> AsyncIterator[None]:
        """An exclusive lock across processes (held while reading, refreshing and writing a token).

        Taken without blocking the event loop (polled), so two connections of one process never deadlock.
        """
        private_dir(self.directory, tighten=True)
        fd = os.open(self.directory / "oauth.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                import fcntl
            except ImportError:  # pragma: no cover - Windows: one process at a time is the user's job
                fcntl = None  # type: ignore[assignment]
            while fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    await asyncio.sleep(0.05)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    # -- records ---------------------------------------------------------------------------------------

    def token(self, resource: str) -> dict[str, Any] | None:
        return self._get("tokens", resource)

    def save_token(self, resource: str, record: dict[str, Any]) -> None:
        self._put("tokens", resource, record)

    def forget_token(self, resource: str) -> bool:
        return self._delete("tokens", resource)

    def client(self, issuer: str) -> dict[str, Any] | None:
        return self._get("clients", issuer)

    def save_client(self, issuer: str, record: dict[str, Any]) -> None:
        self._put("clients", issuer, record)

    def forget_client(self, issuer: str) -> bool:
        return self._delete("clients", issuer)

    def resources(self) -> list[str]:
        return sorted(self._read().get("tokens", {}))

    # -- storage ---------------------------------------------------------------------------------------

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        private_dir(self.directory, tighten=True)
        fd, tmp = tempfile.mkstemp(prefix=".oauth-", dir=self.directory)
        try:
            os.chmod(tmp, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1, sort_keys=True)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def _get(self, kind: str, key: str) -> dict[str, Any] | None:
        record = self._read().get(kind, {}).get(key)
        if not isinstance(record, dict):
            return None
        if record.pop("in_keyring", False) and self._keyring is not None:
            with contextlib.suppress(Exception):
                secret = self._keyring.get_password(KEYRING_SERVICE, f"{kind}:{key}")
                if secret:
                    record.update(json.loads(secret))
        return record

    def _put(self, kind: str, key: str, record: dict[str, Any]) -> None:
        shown = dict(record)
        if self._keyring is not None:
            secrets = {k: shown.pop(k) for k in list(shown) if k in SECRET_FIELDS}
            self._keyring.set_password(KEYRING_SERVICE, f"{kind}:{key}", json.dumps(secrets))
            shown["in_keyring"] = True
        data = self._read()
        data.setdefault(kind, {})[key] = shown
        self._write(data)

    def _delete(self, kind: str, key: str) -> bool:
        data = self._read()
        record = data.get(kind, {}).pop(key, None)
        existed = record is not None
        if existed:
            self._write(data)
        if isinstance(record, dict) and record.get("in_keyring") and self._keyring is not None:
            with contextlib.suppress(Exception):
                self._keyring.delete_password(KEYRING_SERVICE, f"{kind}:{key}")
        return existed
