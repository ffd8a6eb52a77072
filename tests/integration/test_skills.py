"""The Skills extension (SEP-2640) against tests/servers/skills_server.py, a server on mcpx's demo peer:
listing never fetches a file, loading verifies each one (size, digest, frontmatter) and stops at the first
that fails, and `mcpx call --method skills/list|skills/get [--verify]` shows and checks the same."""

from __future__ import annotations

import sys

import pytest
from call_harness import call, server

import mcpx
from mcpx.errors import RpcError
from mcpx.target import ServerSpec

SKILLS = server("skills_server.py")


def skills_server(*mode: str) -> ServerSpec:
    return ServerSpec(command=[sys.executable, SKILLS, *mode])


async def reads(client: mcpx.Client) -> list[str]:
    """The files the server has served so far (it counts them in a resource of its own)."""
    result = await client.request("resources/read", {"uri": "test://reads"})
    text = result["contents"][0]["text"]
    return text.splitlines() if text else []


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_listing_reads_nothing_and_loading_verifies_every_file(era: str) -> None:
    async with mcpx.connect(skills_server(), protocol_era=era) as client:
        assert client.skills.declared == {"directoryRead": True}
        entries = await client.skills.list()  # two pages
        assert [e.name for e in entries] == ["pdf-processing", "csv-tools"]
        assert entries[1].frontmatter["license"] == "MIT"
        assert [f.size for f in entries[0].files or ()] == [97, 29]
        assert await reads(client) == []  # no prefetch: listing is not loading

        got = await client.skills.get("skill://csv-tools/SKILL.md")
        assert got.raw == entries[1].raw
        with pytest.raises(RpcError) as unknown:
            await client.skills.get("skill://nope/SKILL.md")
        assert unknown.value.error_code == -32602

        children = await client.skills.read_directory("skill://pdf-processing")
        assert {(c["uri"], c["mimeType"]) for c in children} == {
            ("skill://pdf-processing/SKILL.md", "text/markdown"),
            ("skill://pdf-processing/references", "inode/directory"),
        }
        assert await reads(client) == []

        loaded = await client.skills.load(entries[0])
        assert loaded.ok, loaded.all_problems()
        assert [v.file.uri for v in loaded.files] == [
            "skill://pdf-processing/SKILL.md",
            "skill://pdf-processing/references/FORMS.md",
        ]
        assert loaded.files[0].content is not None and b"Skill body." in loaded.files[0].content
        assert await reads(client) == [v.file.uri for v in loaded.files]
        assert not any(event.flags for event in client.traffic)


@pytest.mark.parametrize(
    ("mode", "problem"),
    [
        ("digest", "digest mismatch"),
        ("size", "size mismatch: the entry declares 97 bytes, the server sent 139"),
        ("frontmatter", "frontmatter 'description' differs"),
    ],
)
async def test_a_file_that_fails_verification_is_not_used_and_nothing_after_it_is_read(
    mode: str, problem: str
) -> None:
    async with mcpx.connect(skills_server(mode), protocol_era="legacy") as client:
        pdf, csv = await client.skills.list()
        loaded = await client.skills.load(pdf)
        assert not loaded.ok
        assert [v.file.uri for v in loaded.files] == ["skill://pdf-processing/SKILL.md"]
        assert loaded.files[0].content is None  # unverified content is never handed out
        assert any(problem in p for p in loaded.all_problems()), loaded.all_problems()
        assert await reads(client) == ["skill://pdf-processing/SKILL.md"]  # FORMS.md never fetched
        flags = [flag for event in client.traffic for flag in event.flags]
        assert any("pdf-processing" in flag and problem in flag for flag in flags), flags
        # the other skill is untouched by its neighbour's failure
        assert (await client.skills.load(csv)).ok


def test_call_skills_list_and_get_verify() -> None:
    listed = call(SKILLS, "--method", "skills/list", "--format", "json").result()
    assert [s["uri"] for s in listed["skills"]] == [
        "skill://pdf-processing/SKILL.md",
        "skill://csv-tools/SKILL.md",
    ]
    assert "verification" not in listed

    bad = call(
        SKILLS, "size", "--method", "skills/get", "--uri", "skill://pdf-processing/SKILL.md", "--verify"
    )
    error = bad.failure(6, "skill_verification_failed")
    assert "size mismatch" in error["message"]
    assert '"ok": false' in bad.stdout  # the report is printed before the failure

    usage = call(SKILLS, "--method", "skills/get")
    assert "needs --uri" in usage.failure(1, "usage")["message"]


def test_check_on_a_skills_server_and_on_one_that_lies_about_a_digest() -> None:
    from call_harness import mcpx as run_mcpx

    honest = run_mcpx("check", SKILLS, "--only", "skills")
    assert honest.returncode == 0, str(honest)
    assert "4 checks: 4 passed" in honest.stdout, str(honest)
    lying = run_mcpx("check", SKILLS, "digest", "--only", "skills")
    assert lying.returncode == 6, str(lying)
    failed = [line for line in lying.stdout.splitlines() if "FAIL" in line]
    assert len(failed) == 1 and "skills.files" in failed[0] and "digest mismatch" in failed[0], str(lying)
