"""The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): a server's catalogue of agent skills.

`skills/list` (paginated) and `skills/get` return *entries*: the URI of a skill's `SKILL.md`, its
frontmatter, and its files as `{uri, digest, size}` (or `"dynamic"` when the server cannot say ahead).
The files themselves are ordinary resources, read with `resources/read` — and only when a skill is
loaded: a host must not fetch a skill's files ahead of need (not on connection, not on listing).

Loading is where the integrity rules bite: every file read is checked against its entry's size and
`sha256:` digest, and the `SKILL.md` frontmatter is compared field by field with the entry's. The first
file is `SKILL.md`; if it fails, nothing else of the skill is read (unverified content is never used).
Each failure is an `info` event in the traffic log flagged with the problem, so it shows with the others.

`resources/directory/read` lists one directory of a skill (only against a server that declared
`directoryRead: true`; a client must not call it otherwise).
"""

from __future__ import annotations

import base64
import builtins
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcpx.errors import McpxError
from mcpx.wire import TrafficLog

if TYPE_CHECKING:
    from mcpx.protocol.eras import Opened

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
DIRECTORY_MIME = "inode/directory"
#: the spec's limits on one skill: 512 files, 16 MiB in all
MAX_FILES = 512
MAX_TOTAL_BYTES = 16 * 1024 * 1024
#: pages of skills/list followed before giving up on a server whose cursors never end
MAX_PAGES = 100

Request = Callable[..., Awaitable[Any]]


class SkillsUnavailableError(McpxError):
    code = "skills_unavailable"


@dataclass(frozen=True, slots=True)
class SkillFile:
    """One file a skill entry declares: where it is, and what it must hash to and weigh."""

    uri: str
    digest: str | None
    size: int | None


@dataclass(frozen=True, slots=True)
class SkillEntry:
    """A skill as `skills/list` or `skills/get` describes it; `raw` is the entry as it came."""

    uri: str
    frontmatter: dict[str, Any]
    #: the declared files, or None when the server says "dynamic"
    files: tuple[SkillFile, ...] | None
    raw: dict[str, Any]
    #: what is wrong with the entry's own shape (a missing digest, a size that is not a number)
    problems: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        name = self.frontmatter.get("name")
        return name if isinstance(name, str) else self.uri

    @property
    def description(self) -> str:
        text = self.frontmatter.get("description")
        return text if isinstance(text, str) else ""


@dataclass(slots=True)
class FileVerdict:
    """What reading one file of a skill found: its bytes when verified, else the problems."""

    file: SkillFile
    content: bytes | None = None
    mime_type: str | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.content is not None


@dataclass(slots=True)
class LoadedSkill:
    """A skill after loading: each file read, in order, with its verdict. `ok` only if all verified."""

    entry: SkillEntry
    files: list[FileVerdict] = field(default_factory=list)
    #: problems of the skill as a whole (no SKILL.md, too many files); each file's are on its verdict
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.entry.problems and not self.problems and all(v.ok for v in self.files)

    def all_problems(self) -> list[str]:
        """Every problem in one list: the entry's and the skill's (named by the skill), then each file's."""
        whole = [*self.entry.problems, *self.problems]
        return [
            *(f"{self.entry.uri}: {p}" for p in whole),
            *(f"{v.file.uri}: {p}" for v in self.files for p in v.problems),
        ]


def parse_entry(raw: Any) -> SkillEntry:
    """An entry from the wire, leniently: what is missing or malformed becomes a problem, never a raise."""
    data = raw if isinstance(raw, dict) else {}
    problems: list[str] = []
    uri = data.get("uri")
    if not isinstance(uri, str) or not uri:
        problems.append("the entry has no uri")
        uri = ""
    frontmatter = data.get("frontmatter")
    if not isinstance(frontmatter, dict):
        problems.append("the entry's frontmatter is missing or not an object")
        frontmatter = {}
    resources = data.get("resources")
    files: tuple[SkillFile, ...] | None
    if resources == "dynamic":
        files = None
    elif isinstance(resources, list):
        parsed = []
        for index, item in enumerate(resources):
            item = item if isinstance(item, dict) else {}
            file_uri, digest, size = item.get("uri"), item.get("digest"), item.get("size")
            if not isinstance(file_uri, str):
                problems.append(f"resources[{index}] has no uri")
                continue
            if not (isinstance(digest, str) and digest.startswith("sha256:")):
                problems.append(f"{file_uri}: the digest is not sha256:<hex> ({digest!r})")
                digest = None
            if not (isinstance(size, int) and not isinstance(size, bool) and size >= 0):
                problems.append(f"{file_uri}: the size is not a byte count ({size!r})")
                size = None
            parsed.append(SkillFile(file_uri, digest, size))
        files = tuple(parsed)
    else:
        problems.append('the entry\'s resources are neither a list nor "dynamic"')
        files = ()
    return SkillEntry(uri, dict(frontmatter), files, data, tuple(problems))


def parse_frontmatter(text: str) -> dict[str, Any] | None:
    """The YAML frontmatter at the start of a SKILL.md, or None when there is none (or it is not a map)."""
    import yaml

    class _Loader(yaml.SafeLoader):
        """YAML as JSON sees it: a date stays the string it was (the entry's frontmatter is JSON)."""

    _Loader.yaml_implicit_resolvers = {
        first: [r for r in resolvers if r[0] != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    body = text[1:] if text.startswith("\ufeff") else text
    lines = body.splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    for end, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            try:
                data = yaml.load("\n".join(lines[1:end]), Loader=_Loader)  # a SafeLoader
            except yaml.YAMLError:
                return None
            return data if isinstance(data, dict) else None
    return None


def digest_of(content: bytes) -> str:
    return "sha256:" + hashlib.sha256(content).hexdigest()


def verify_file(file: SkillFile, content: bytes) -> list[str]:
    """Size first (a wrong length fails whatever the digest), then the digest."""
    problems = []
    if file.size is not None and len(content) != file.size:
        problems.append(
            f"size mismatch: the entry declares {file.size} bytes, the server sent {len(content)}"
        )
    if file.digest is not None and digest_of(content) != file.digest.lower():
        problems.append(
            f"digest mismatch: the entry declares {file.digest}, the content is {digest_of(content)}"
        )
    return problems


def compare_frontmatter(declared: dict[str, Any], content: bytes) -> list[str]:
    """The SKILL.md's own frontmatter against the entry's, field by field."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return ["SKILL.md is not UTF-8 text"]
    found = parse_frontmatter(text)
    if found is None:
        return ["SKILL.md does not begin with YAML frontmatter"]
    problems = []
    for key in sorted(set(declared) | set(found)):
        if declared.get(key) != found.get(key):
            problems.append(
                f"frontmatter {key!r} differs: the entry says {declared.get(key)!r}, SKILL.md says "
                f"{found.get(key)!r}"
            )
    return problems


def contents_bytes(result: Any) -> tuple[bytes | None, str | None]:
    """The bytes of a `resources/read` result's first content (text as UTF-8, blob decoded)."""
    contents = result.get("contents") if isinstance(result, dict) else None
    if not isinstance(contents, list) or not contents or not isinstance(contents[0], dict):
        return None, None
    first = contents[0]
    mime = first.get("mimeType") if isinstance(first.get("mimeType"), str) else None
    if isinstance(first.get("text"), str):
        return first["text"].encode("utf-8"), mime
    if isinstance(first.get("blob"), str):
        try:
            return base64.b64decode(first["blob"], validate=True), mime
        except ValueError:
            return None, mime
    return None, mime


class Skills:
    """The Skills extension on one client, composed from what it needs (as `Watch` is)."""

    def __init__(self, opened: Callable[[], Opened | None], request: Request, traffic: TrafficLog) -> None:
        self._opened = opened
        self._request = request
        self._traffic = traffic

    @property
    def declared(self) -> dict[str, Any] | None:
        """The server's settings for the extension (`{}` when declared bare), None when not declared."""
        opened = self._opened()
        extensions = (opened.capabilities if opened is not None else {}).get("extensions")
        if not isinstance(extensions, dict) or SKILLS_EXTENSION not in extensions:
            return None
        settings = extensions[SKILLS_EXTENSION]
        return settings if isinstance(settings, dict) else {}

    @property
    def directory_read(self) -> bool:
        return (self.declared or {}).get("directoryRead") is True

    async def list_raw(self) -> dict[str, Any]:
        """Every page of `skills/list` merged (the last page's other fields kept)."""
        skills: builtins.list[Any] = []
        cursor: str | None = None
        seen: set[str] = set()
        last: dict[str, Any] = {}
        for _ in range(MAX_PAGES):
            result = await self._request("skills/list", {"cursor": cursor} if cursor else {})
            last = result if isinstance(result, dict) else {}
            page = last.get("skills")
            skills.extend(page if isinstance(page, list) else [])
            cursor = last.get("nextCursor") if isinstance(last.get("nextCursor"), str) else None
            if not cursor or cursor in seen:
                break
            seen.add(cursor)
        return {**{k: v for k, v in last.items() if k != "nextCursor"}, "skills": skills}

    async def list(self) -> builtins.list[SkillEntry]:
        return [parse_entry(raw) for raw in (await self.list_raw())["skills"]]

    async def get(self, uri: str) -> SkillEntry:
        result = await self._request("skills/get", {"uri": uri})
        return parse_entry(result.get("skill") if isinstance(result, dict) else None)

    async def read_directory(self, uri: str) -> builtins.list[dict[str, Any]]:
        """The direct children of a skill directory (every page)."""
        if not self.directory_read:
            raise SkillsUnavailableError(
                "the server did not declare directoryRead: true, so resources/directory/read is not called"
            )
        children: builtins.list[dict[str, Any]] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            params = {"uri": uri, **({"cursor": cursor} if cursor else {})}
            result = await self._request("resources/directory/read", params)
            page = result.get("resources") if isinstance(result, dict) else None
            children.extend(item for item in (page or []) if isinstance(item, dict))
            cursor = result.get("nextCursor") if isinstance(result, dict) else None
            if not isinstance(cursor, str) or not cursor:
                break
        return children

    async def load(self, entry: SkillEntry) -> LoadedSkill:
        """Read the skill's files, SKILL.md first, verifying each; stop at the first that fails."""
        loaded = LoadedSkill(entry)
        files = list(entry.files) if entry.files is not None else [SkillFile(entry.uri, None, None)]
        if len(files) > MAX_FILES:
            loaded.problems.append(f"the entry lists {len(files)} files; the limit is {MAX_FILES}")
        declared_total = sum(f.size or 0 for f in files)
        if declared_total > MAX_TOTAL_BYTES:
            loaded.problems.append(
                f"the entry declares {declared_total} bytes; the limit is {MAX_TOTAL_BYTES}"
            )
        if loaded.problems:
            self._report(entry, loaded.problems)
            return loaded
        skill_md = next((f for f in files if f.uri == entry.uri), None)
        if skill_md is None:
            skill_md = SkillFile(entry.uri, None, None)
            loaded.problems.append("the entry's resources do not list its own SKILL.md")
        ordered = [skill_md, *(f for f in files if f.uri != entry.uri)]
        for file in ordered:
            verdict = await self._read(file, entry if file is skill_md else None)
            loaded.files.append(verdict)
            if verdict.problems:
                self._report(entry, [f"{file.uri}: {p}" for p in verdict.problems])
                break  # unverified content is never used, nor anything it would lead to
        return loaded

    async def _read(self, file: SkillFile, skill: SkillEntry | None) -> FileVerdict:
        verdict = FileVerdict(file)
        result = await self._request("resources/read", {"uri": file.uri})
        content, verdict.mime_type = contents_bytes(result)
        if content is None:
            verdict.problems.append("the read returned no text or blob content")
            return verdict
        verdict.problems.extend(verify_file(file, content))
        if skill is not None:
            verdict.problems.extend(compare_frontmatter(skill.frontmatter, content))
        if not verdict.problems:
            verdict.content = content
        return verdict

    def _report(self, entry: SkillEntry, problems: builtins.list[str]) -> None:
        event = self._traffic.info(
            f"skill {entry.name} failed verification and was not loaded", "protocol", event="skills"
        )
        for problem in problems:
            self._traffic.flag(event, f"skill {entry.name}: {problem}")
