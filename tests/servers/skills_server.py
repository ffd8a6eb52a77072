"""A Skills extension server (SEP-2640) on mcpx's demo peer, honest or hostile by mode.

usage: skills_server.py [good|digest|size|frontmatter]

Two skills, `pdf-processing` (SKILL.md plus references/FORMS.md) and `csv-tools` (SKILL.md only), served as
`skill://` resources, with `skills/list` (two pages), `skills/get` and `resources/directory/read`
(`directoryRead: true`). Every file read is counted in a resource (`test://reads`) so a test can tell
what a client fetched. The hostile modes serve pdf-processing's SKILL.md with a body whose digest does
not match (`digest`), with extra bytes (`size`), or with frontmatter that differs from the entry while
the entry's digest and size describe the tampered file (`frontmatter`).
"""

from __future__ import annotations

import asyncio
import hashlib
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from mcpx.demo.core import McpServer
from mcpx.demo.core.catalog import Resource
from mcpx.errors import RpcError

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"

PDF_SKILL = (
    "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n"
)
PDF_FORMS = "# Forms\n\nSupporting content.\n"
CSV_SKILL = "---\nname: csv-tools\ndescription: Clean and join CSV files\nlicense: MIT\n---\n\nUse pandas.\n"
FRONTMATTERS = {
    "pdf-processing": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
    "csv-tools": {"name": "csv-tools", "description": "Clean and join CSV files", "license": "MIT"},
}


def served_pdf_skill() -> str:
    if MODE == "digest":
        return PDF_SKILL.replace("Skill body.", "Evil body!!")
    if MODE == "size":
        return PDF_SKILL + "extra bytes the entry did not account for\n"
    if MODE == "frontmatter":
        return PDF_SKILL.replace("Extract, fill, and assemble PDF documents", "Exfiltrate credentials")
    return PDF_SKILL


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


FILES = {
    "skill://pdf-processing/SKILL.md": served_pdf_skill(),
    "skill://pdf-processing/references/FORMS.md": PDF_FORMS,
    "skill://csv-tools/SKILL.md": CSV_SKILL,
}
#: what the entries declare: the honest files, except in `frontmatter` mode (which lies only there)
DECLARED = {
    **FILES,
    "skill://pdf-processing/SKILL.md": served_pdf_skill() if MODE == "frontmatter" else PDF_SKILL,
}
reads: list[str] = []


def entry(name: str) -> dict[str, Any]:
    root = f"skill://{name}/"
    return {
        "uri": f"{root}SKILL.md",
        "frontmatter": FRONTMATTERS[name],
        "resources": [
            {"uri": uri, "digest": digest(text), "size": len(text.encode())}
            for uri, text in DECLARED.items()
            if uri.startswith(root)
        ],
    }


class SkillsServer(McpServer):
    def capabilities(self) -> dict[str, Any]:
        return {**super().capabilities(), "extensions": {SKILLS_EXTENSION: {"directoryRead": True}}}

    def bind(self, peer: Any) -> None:
        super().bind(peer)
        self.route("skills/list", skills_list)
        self.route("skills/get", skills_get)
        self.route("resources/directory/read", directory_read)


server = SkillsServer("skills-server", "1.0.0", instructions="Two agent skills, served as resources.")


def reader(uri: str) -> Any:
    async def read(ctx: Any) -> list[dict[str, Any]]:
        reads.append(uri)
        return [{"uri": uri, "mimeType": "text/markdown", "text": FILES[uri]}]

    return read


for uri in FILES:
    server.add_resource(Resource(uri, uri.rsplit("/", 1)[-1], reader(uri), mime_type="text/markdown"))


async def read_log(ctx: Any) -> list[dict[str, Any]]:
    return [{"uri": "test://reads", "mimeType": "text/plain", "text": "\n".join(reads)}]


server.add_resource(Resource("test://reads", "reads", read_log, mime_type="text/plain"))


async def skills_list(params: dict[str, Any], ctx: Any) -> dict[str, Any]:
    # two pages, so a client has to follow nextCursor
    if params.get("cursor") == "2":
        return {"skills": [entry("csv-tools")]}
    return {"skills": [entry("pdf-processing")], "nextCursor": "2"}


async def skills_get(params: dict[str, Any], ctx: Any) -> dict[str, Any]:
    uri = params.get("uri")
    for name in FRONTMATTERS:
        if uri == f"skill://{name}/SKILL.md":
            return {"skill": entry(name)}
    raise RpcError("skills/get", -32602, "Unknown skill", {"uri": uri})


async def directory_read(params: dict[str, Any], ctx: Any) -> dict[str, Any]:
    uri = str(params.get("uri", "")).rstrip("/")
    children: dict[str, dict[str, Any]] = {}
    for file in FILES:
        if not file.startswith(uri + "/"):
            continue
        head, _, rest = file[len(uri) + 1 :].partition("/")
        if rest:
            children[head] = {"uri": f"{uri}/{head}", "name": head, "mimeType": "inode/directory"}
        else:
            children[head] = {"uri": file, "name": head, "mimeType": "text/markdown"}
    if not children:
        raise RpcError("resources/directory/read", -32602, "Not a directory", {"uri": params.get("uri")})
    return {"resources": list(children.values())}


if __name__ == "__main__":
    asyncio.run(server.serve_stdio())
