"""Checks of a server that declares the Skills extension (SEP-2640, `io.modelcontextprotocol/skills`):
its catalogue (`skills/list`, `skills/get`), the files each entry declares (read and verified as a host
would before using them), and `resources/directory/read` where `directoryRead: true` is declared.

A server that does not declare the extension skips them all.
"""

from __future__ import annotations

from typing import Any

from mcpx.check.context import CheckContext
from mcpx.check.model import Outcome, Skip, broken, check, held
from mcpx.check.session import Session
from mcpx.protocol.skills import (
    DIRECTORY_MIME,
    SKILLS_EXTENSION,
    SkillEntry,
    compare_frontmatter,
    contents_bytes,
    parse_entry,
    verify_file,
)

SEP = "https://modelcontextprotocol.io/seps/2640-skills-extension"
MAX_PAGES = 50


async def _declared(ctx: CheckContext) -> tuple[Session, dict[str, Any]]:
    session = await ctx.main_session()
    client = session.client
    capabilities = client.server_capabilities if client is not None and client.opened else {}
    extensions = capabilities.get("extensions")
    if not isinstance(extensions, dict) or SKILLS_EXTENSION not in extensions:
        raise Skip(f"the server does not declare the {SKILLS_EXTENSION} extension")
    settings = extensions[SKILLS_EXTENSION]
    return session, settings if isinstance(settings, dict) else {}


async def _listed(session: Session) -> tuple[list[SkillEntry], Any]:
    """Every page of skills/list; the last reply (for its exchange), or the failed one."""
    entries: list[SkillEntry] = []
    cursor: str | None = None
    seen: set[str] = set()
    reply: Any = None
    for _ in range(MAX_PAGES):
        reply = await session.ask("skills/list", {"cursor": cursor} if cursor else {})
        if not reply.ok:
            return entries, reply
        result = reply.result if isinstance(reply.result, dict) else {}
        skills = result.get("skills")
        if not isinstance(skills, list):
            raise _Broken("skills/list returned no skills array", reply)
        entries.extend(parse_entry(raw) for raw in skills)
        cursor = result.get("nextCursor") if isinstance(result.get("nextCursor"), str) else None
        if not cursor:
            break
        if cursor in seen:
            raise _Broken(f"skills/list gave the cursor {cursor!r} twice (a loop)", reply)
        seen.add(cursor)
    return entries, reply


class _Broken(Exception):
    def __init__(self, detail: str, reply: Any) -> None:
        super().__init__(detail)
        self.detail, self.reply = detail, reply


@check(
    "skills.list",
    "skills/list answers, and every entry is well formed",
    level="MUST",
    rule="""SEP-2640: a server declaring the extension implements skills/list; each entry carries `uri` (the
    SKILL.md's resource URI), `frontmatter` (with `name` and `description`) and `resources` ({uri, digest
    "sha256:<hex>", size} each, or "dynamic"); "The final segment of <skill-path> MUST equal the skill's name
    as declared in its SKILL.md frontmatter." """,
    source=f"{SEP}#specification",
)
async def skills_list(ctx: CheckContext) -> Outcome:
    session, _ = await _declared(ctx)
    try:
        entries, reply = await _listed(session)
    except _Broken as exc:
        return broken(exc.detail, exc.reply.ref)
    if not reply.ok:
        return broken(f"skills/list got {reply.describe()}", reply.ref)
    for entry in entries:
        if entry.problems:
            return broken(f"{entry.uri or 'an entry'}: {entry.problems[0]}", reply.ref)
        segments = [s for s in entry.uri.split("://", 1)[-1].split("/") if s]
        if len(segments) < 2 or segments[-1] != "SKILL.md":
            return broken(f"{entry.uri} does not name a SKILL.md", reply.ref)
        for field in ("name", "description"):
            if not isinstance(entry.frontmatter.get(field), str) or not entry.frontmatter[field]:
                return broken(f"{entry.uri}: the frontmatter has no {field}", reply.ref)
        if segments[-2] != entry.frontmatter["name"]:
            return broken(
                f"{entry.uri}: the skill path ends in {segments[-2]!r}, "
                f"its name is {entry.frontmatter['name']!r}",
                reply.ref,
            )
    return held(f"{len(entries)} skill(s) listed, every entry well formed", reply.ref)


@check(
    "skills.get",
    "skills/get returns the listed entry, and -32602 for an unknown skill",
    level="MUST",
    rule="""SEP-2640: skills/get "returns the entry for a single skill named by its URI"; "The skill object is
    a skill entry, identical in shape and meaning to an entry of skills/list"; the result carries no cursor;
    an unknown URI is answered with -32602 (Invalid params).""",
    source=f"{SEP}#specification",
)
async def skills_get(ctx: CheckContext) -> Outcome:
    session, _ = await _declared(ctx)
    try:
        entries, listed = await _listed(session)
    except _Broken as exc:
        raise Skip(f"skills/list is broken ({exc.detail})") from None
    if not listed.ok or not entries:
        raise Skip("skills/list lists no skill to get")
    first = entries[0]
    reply = await session.ask("skills/get", {"uri": first.uri})
    if not reply.ok:
        return broken(f"skills/get {first.uri} got {reply.describe()}", listed.ref, reply.ref)
    result = reply.result if isinstance(reply.result, dict) else {}
    got = parse_entry(result.get("skill"))
    if (got.uri, got.frontmatter, got.files) != (first.uri, first.frontmatter, first.files):
        return broken(
            f"skills/get {first.uri} returned an entry other than the listed one", listed.ref, reply.ref
        )
    if "nextCursor" in result:
        return broken("skills/get returned a nextCursor (a single entry is not a list)", reply.ref)
    unknown = first.uri.rsplit("/", 2)[0] + "/mcpx-check-no-such-skill/SKILL.md"
    missing = await session.ask("skills/get", {"uri": unknown})
    code = missing.error.code if missing.error is not None else None
    if code != -32602:
        return broken(
            f"skills/get for an unknown skill got {missing.describe()}; expected -32602", missing.ref
        )
    return held(
        f"skills/get {first.uri} matches the listing; an unknown skill gets -32602", reply.ref, missing.ref
    )


@check(
    "skills.files",
    "Every file a skill entry lists reads back with its declared size and digest",
    level="MUST",
    rule="""SEP-2640: each file of a skill is a resource whose content matches its entry's `digest` (SHA-256,
    "sha256:{hex}") and `size`; "Hosts MUST verify retrieved content against the digest … hosts MUST NOT
    use unverified content", and a SKILL.md's frontmatter "MUST be identical in content" to the entry's.""",
    source=f"{SEP}#integrity-and-verification",
)
async def skills_files(ctx: CheckContext) -> Outcome:
    session, _ = await _declared(ctx)
    try:
        entries, listed = await _listed(session)
    except _Broken as exc:
        raise Skip(f"skills/list is broken ({exc.detail})") from None
    declared = [(e, f) for e in entries for f in e.files or ()]
    if not declared:
        raise Skip("no listed skill declares its files")
    read = declared[: ctx.options.max_reads]
    for entry, file in read:
        reply = await session.ask("resources/read", {"uri": file.uri})
        if not reply.ok:
            return broken(
                f"{file.uri} is listed in {entry.uri} but reading it got {reply.describe()}", reply.ref
            )
        content, _ = contents_bytes(reply.result)
        if content is None:
            return broken(f"reading {file.uri} returned no text or blob", reply.ref)
        problems = verify_file(file, content)
        if file.uri == entry.uri:
            problems += compare_frontmatter(entry.frontmatter, content)
        if problems:
            return broken(f"{file.uri}: {problems[0]}", listed.ref, reply.ref)
    more = f" (the first {len(read)} of {len(declared)})" if len(read) < len(declared) else ""
    return held(f"{len(read)} file(s) read back as their entries declare{more}")


@check(
    "skills.directory",
    "resources/directory/read lists a skill directory, and -32602 for a file",
    level="MUST",
    rule="""SEP-2640: "A server that declares directoryRead MUST support the method for every directory within
    the skill namespaces it serves"; the result lists every direct child, subdirectories with mimeType
    "inode/directory"; "If the URI does not exist, or exists but is not a directory resource, the server MUST
    return error -32602".""",
    source=f"{SEP}#specification",
)
async def skills_directory(ctx: CheckContext) -> Outcome:
    session, settings = await _declared(ctx)
    if settings.get("directoryRead") is not True:
        raise Skip("the server does not declare directoryRead: true")
    try:
        entries, _ = await _listed(session)
    except _Broken as exc:
        raise Skip(f"skills/list is broken ({exc.detail})") from None
    if not entries:
        raise Skip("skills/list lists no skill whose directory to read")
    skill_md = entries[0].uri
    directory = skill_md.rsplit("/", 1)[0]
    reply = await session.ask("resources/directory/read", {"uri": directory})
    if not reply.ok:
        return broken(f"resources/directory/read {directory} got {reply.describe()}", reply.ref)
    children = reply.result.get("resources") if isinstance(reply.result, dict) else None
    if not isinstance(children, list) or not all(isinstance(c, dict) for c in children):
        return broken(f"resources/directory/read {directory} returned no resources array", reply.ref)
    if skill_md not in {c.get("uri") for c in children}:
        return broken(f"{directory}'s listing does not include its own SKILL.md", reply.ref)
    dirs = sum(c.get("mimeType") == DIRECTORY_MIME for c in children)
    not_a_dir = await session.ask("resources/directory/read", {"uri": skill_md})
    code = not_a_dir.error.code if not_a_dir.error is not None else None
    if code != -32602:
        return broken(
            f"resources/directory/read on a file got {not_a_dir.describe()}; expected -32602", not_a_dir.ref
        )
    return held(
        f"{directory}: {len(children)} child(ren), {dirs} directory(ies); a file gets -32602", reply.ref
    )
