"""The Skills extension's pure parts: entries parsed leniently, frontmatter read as JSON would see it,
and each file checked against its declared size and digest."""

from __future__ import annotations

from mcpx.protocol.skills import (
    SkillFile,
    compare_frontmatter,
    contents_bytes,
    digest_of,
    parse_entry,
    parse_frontmatter,
    verify_file,
)

SKILL = b"---\nname: a\ndescription: does a\nversion: 2024-01-02\n---\nbody\n"


def test_an_entry_with_bad_parts_is_kept_with_its_problems() -> None:
    entry = parse_entry(
        {
            "uri": "skill://a/SKILL.md",
            "frontmatter": {"name": "a"},
            "resources": [
                {"uri": "skill://a/SKILL.md", "digest": "md5:00", "size": -1},
                {"digest": digest_of(b"")},
            ],
        }
    )
    assert entry.name == "a"
    assert entry.files == (SkillFile("skill://a/SKILL.md", None, None),)
    assert len(entry.problems) == 3
    assert parse_entry({"uri": "skill://b/SKILL.md", "frontmatter": {}, "resources": "dynamic"}).files is None
    assert parse_entry("nonsense").problems[0] == "the entry has no uri"


def test_frontmatter_keeps_dates_as_strings_and_compares_over_every_field() -> None:
    assert parse_frontmatter(SKILL.decode()) == {
        "name": "a",
        "description": "does a",
        "version": "2024-01-02",
    }
    assert parse_frontmatter("no frontmatter") is None
    assert parse_frontmatter("---\n- a list\n---\n") is None
    assert compare_frontmatter({"name": "a", "description": "does a", "version": "2024-01-02"}, SKILL) == []
    differences = compare_frontmatter({"name": "a", "description": "does a"}, SKILL)
    assert differences == ["frontmatter 'version' differs: the entry says None, SKILL.md says '2024-01-02'"]
    assert compare_frontmatter({}, b"\xff") == ["SKILL.md is not UTF-8 text"]


def test_size_and_digest_are_both_checked() -> None:
    right = SkillFile("u", digest_of(SKILL), len(SKILL))
    assert verify_file(right, SKILL) == []
    assert [p.split(":")[0] for p in verify_file(right, SKILL + b"x")] == ["size mismatch", "digest mismatch"]
    assert [p.split(":")[0] for p in verify_file(right, SKILL.replace(b"body", b"evil"))] == [
        "digest mismatch"
    ]


def test_contents_become_bytes_from_text_or_blob() -> None:
    assert contents_bytes({"contents": [{"uri": "u", "text": "é"}]}) == ("é".encode(), None)
    assert contents_bytes({"contents": [{"uri": "u", "blob": "aGk=", "mimeType": "x/y"}]}) == (b"hi", "x/y")
    assert contents_bytes({"contents": [{"uri": "u", "blob": "!!"}]}) == (None, None)
    assert contents_bytes({"contents": []}) == (None, None)
