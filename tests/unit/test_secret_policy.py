"""The one secret policy (mcpx.wire.secret_policy): the rules, the known values, URLs, files."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from mcpx.wire.private_files import private_dir, write_private
from mcpx.wire.secret_policy import SecretPolicy
from mcpx.wire.secret_rules import MASK, looks_secret, mask, mask_url, secret_param


def test_mask_keeps_the_scheme_and_a_tail_of_long_secrets_only() -> None:
    assert mask("Bearer abcdefghijkl1a2b") == "Bearer ••••1a2b"
    assert mask("Bearer short") == "Bearer ••••"
    assert mask("s3cret") == "••••"
    assert mask("Bearer ••••1a2b") == "Bearer ••••1a2b"  # masked already: left alone
    assert mask('abcdefghij\\"xyz') == "••••"  # a tail that would cut an escape shows nothing


def test_secret_looking_names() -> None:
    for name in ("GITHUB_TOKEN", "API_KEY", "client_secret", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY"):
        assert looks_secret(name)
    for name in ("PATH", "HOME", "MODE", "LANG"):
        assert not looks_secret(name)
    for name in ("api_key", "key", "token", "access_token", "secret", "password", "sig", "code", "X-Api-Key"):
        assert secret_param(name), name
    for name in ("page", "state", "response_type", "code_challenge", "scope", "q"):
        assert not secret_param(name), name
    policy = SecretPolicy()
    assert policy.env({"API_KEY": "k-1234567890ab", "MODE": "x"}) == {"API_KEY": "••••90ab", "MODE": "x"}


def test_request_headers_are_masked_unless_known_harmless() -> None:
    policy = SecretPolicy()
    shown = policy.headers(
        {
            "Cookie": "a=b",
            "Accept": "*/*",
            "X-Api-Key": "key-0123456789abcd",
            "X-Tenant": "acme",
            "Mcp-Session-Id": "0123456789abcdef0123",
            "MCP-Protocol-Version": "2025-06-18",
            "Mcp-Param-City": "Paris",
        },
        request=True,
    )
    assert shown == {
        "Cookie": "••••",
        "Accept": "*/*",
        "X-Api-Key": "••••abcd",
        "X-Tenant": "••••",
        "Mcp-Session-Id": "01234567…",
        "MCP-Protocol-Version": "2025-06-18",
        "Mcp-Param-City": "Paris",
    }
    # in responses only credentials and the names the user called secret are masked by name
    policy.name_headers(["X-Echo"])
    answer = policy.headers({"Set-Cookie": "sid=1", "X-Echo": "hello", "Content-Type": "a/b"}, request=False)
    assert answer == {"Set-Cookie": "••••", "X-Echo": "••••", "Content-Type": "a/b"}


def test_oauth_fields_in_json_escaped_json_forms_and_credentials_in_text() -> None:
    policy = SecretPolicy()
    body = '{"access_token": "eyJhbGciOi.abc.def", "refresh_token":"r-123456789012", "expires_in": 3600}'
    assert policy.text(body) == '{"access_token": "••••.def", "refresh_token":"••••9012", "expires_in": 3600}'
    # the same fields inside JSON text carried in a JSON string (a tool's text content)
    inner = json.dumps(
        {"content": [{"type": "text", "text": json.dumps({"client_secret": "cs-9876543210"})}]}
    )
    assert "cs-9876543210" not in policy.text(inner)
    twice = json.dumps({"text": json.dumps({"text": json.dumps({"access_token": "at-555666777888"})})})
    assert "at-555666777888" not in policy.text(twice)
    form = "grant_type=authorization_code&code_verifier=abcdefghijklmnop&client_secret=xyz"
    assert policy.text(form) == "grant_type=authorization_code&code_verifier=••••mnop&client_secret=••••"
    assert policy.text("Authorization: Bearer abc.def.ghi-jkl") == "Authorization: Bearer ••••-jkl"
    assert policy.text("auth: basic dXNlcjpwYXNzd29yZA==") == "auth: basic ••••ZA=="
    plain = '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'
    assert policy.text(plain) is plain


def test_known_values_are_masked_in_every_spelling() -> None:
    policy = SecretPolicy()
    policy.learn_target(
        env={"MY_TOKEN": 'hunter2"hunter2\\é', "MODE": "verbose"},
        headers={"X-Api-Key": "k-abcdefgh"},
        url="http://alice:pa55w0rd!@host/mcp?api_key=AK-123456&page=2",
    )
    secret = 'hunter2"hunter2\\é'
    for spelling in (secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]):
        assert secret not in policy.text(f"x {spelling} y") and spelling not in policy.text(f"x {spelling} y")
    escaped_twice = json.dumps(json.dumps({"v": secret}))
    assert "hunter2" not in policy.text(escaped_twice)
    assert "k-abcdefgh" not in policy.text("the server says k-abcdefgh")
    assert "pa55w0rd" not in policy.text("password was pa55w0rd!")
    assert "pa55w0rd" not in policy.text("quoted pa55w0rd%21")  # URL-encoded
    assert "AK-123456" not in policy.text("echo AK-123456")
    assert policy.text("started in verbose mode") == "started in verbose mode"


def test_urls_lose_userinfo_and_secret_query_values() -> None:
    url = "http://alice:pa55w0rd@host:8080/mcp?api_key=AK-123456&page=2&token=t0k3n-abcdef&sig=xyz#frag"
    shown = mask_url(url)
    assert shown.startswith("http://host:8080/mcp?")
    for secret in ("alice", "pa55w0rd", "AK-123456", "t0k3n-abcdef", "xyz"):
        assert secret not in shown
    assert "page=2" in shown and shown.endswith("#frag")
    assert mask_url("https://example.com/mcp") == "https://example.com/mcp"
    # a URL inside text is cleaned too
    assert "pa55w0rd" not in SecretPolicy().text(f"cannot reach {url}: refused")


def test_facts_are_copied_not_changed() -> None:
    policy = SecretPolicy(secret_headers=["X-Api-Key"])
    facts = {
        "headers": {"authorization": "Bearer tokentokentoken", "x-api-key": "k-1", "accept": "*/*"},
        "status": 200,
    }
    masked = policy.facts(facts)
    assert masked == {
        "headers": {"authorization": "Bearer ••••oken", "x-api-key": "••••", "accept": "*/*"},
        "status": 200,
    }
    assert facts["headers"]["authorization"] == "Bearer tokentokentoken"  # the live log keeps its own
    untouched = {"pid": 7, "command": ["python", "s.py"], "env_keys": ["API_TOKEN"]}
    assert policy.facts(untouched) is untouched


def test_private_files_and_folders(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        target = tmp_path / "a" / "b" / "cache.json"
        write_private(target, "{}")
        assert stat.S_IMODE(target.stat().st_mode) == 0o600
        assert stat.S_IMODE((tmp_path / "a").stat().st_mode) == 0o700
        assert stat.S_IMODE((tmp_path / "a" / "b").stat().st_mode) == 0o700
        write_private(f"{tmp_path}/c/d/e.json", b"[]")
        assert (tmp_path / "c" / "d" / "e.json").read_bytes() == b"[]"  # a str path, bytes, two new folders
        assert stat.S_IMODE((tmp_path / "c").stat().st_mode) == 0o700
        mine = tmp_path / "wide"
        mine.mkdir(mode=0o755)
        assert private_dir(mine) == mine
        assert stat.S_IMODE(mine.stat().st_mode) == 0o755  # a folder the user made is left alone
        private_dir(mine, tighten=True)
        assert stat.S_IMODE(mine.stat().st_mode) == 0o700
    finally:
        os.umask(old)


def test_check_secrets_lists_what_still_looks_secret_without_showing_it(tmp_path: Path) -> None:
    from mcpx.record.secret_check import check_file

    lines = [
        {"mcpx_recording": 1, "secrets": "included", "target": {"env": {"API_TOKEN": "tok-1234567890"}}},
        {"seq": 0, "facts": {"headers": {"authorization": "Bearer abcdefghijkl", "accept": "*/*"}}},
        {
            "seq": 1,
            "raw": json.dumps({"result": {"content": [{"text": json.dumps({"api_key": "k-998877"})}]}}),
        },
        {"seq": 2, "raw": "GET http://u:pw-12345678@h/x?token=t-55555555 ghp_" + "a" * 36},
        {"seq": 3, "facts": {"headers": {"authorization": "Bearer ••••ijkl", "content-type": "a/b"}}},
        {"seq": 4, "raw": '{"id":1,"error":{"code":-32601,"message":"no"}}', "facts": {"event": "x"}},
    ]
    path = tmp_path / "r.mcpx.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    findings = check_file(path)
    where = {(f.line, f.what) for f in findings}
    assert (1, "the value of 'API_TOKEN'") in where
    assert (2, "the value of 'authorization'") in where
    assert (3, "the value of 'api_key'") in where
    assert {(4, "a URL with a password or a secret query value"), (4, "GitHub token")} <= where
    assert not [f for f in findings if f.line in (5, 6)]  # masked, or nothing secret
    shown = " ".join(f.describe() for f in findings)
    for secret in ("tok-1234567890", "abcdefghijkl", "k-998877", "pw-12345678", "t-55555555"):
        assert secret not in shown


def test_fragments_mask_the_pieces_of_a_secret_a_wrap_cut_over_two_lines() -> None:
    policy = SecretPolicy(["sk-live-0123456789"])
    first, second = "│ token: sk-live-01234│ other pane", '│56789", "next": 1  │'
    masked_first, masked_second = policy.fragments(first), policy.fragments(second)
    assert "sk-live" not in masked_first and "01234" not in masked_first
    assert "56789" not in masked_second
    assert len(masked_first) == len(first) and len(masked_second) == len(second)  # layout kept
    assert masked_first.startswith("│ token: ") and masked_first.endswith("│ other pane")
    assert masked_second.endswith('", "next": 1  │')
    # text that only resembles an edge of the secret, inside a longer word, is left alone
    for line in ("a word sk-lived here", "x56789y and 2345678", "short sk- and 789"):
        assert policy.fragments(line) == line
    assert SecretPolicy().fragments(first) == first  # nothing known, nothing changed


def test_facts_remembered_as_shown_are_masked_again_once_a_secret_is_learned() -> None:
    policy = SecretPolicy()
    facts = {"event": "http-request", "headers": {"x-tenant": "tenant-secret-77", "accept": "a/b"}}
    assert policy.facts(facts) is facts  # nothing to mask: the same dict
    again = policy.facts({"headers": {"x-tenant": "tenant-secret-77"}})
    assert again["headers"]["x-tenant"] == "tenant-secret-77"
    policy.add("tenant-secret-77")  # (a host sent it in a header that is not harmless)
    shown = policy.facts(facts)
    assert shown is not facts and MASK in shown["headers"]["x-tenant"] and shown["headers"]["accept"] == "a/b"
    assert facts["headers"]["x-tenant"] == "tenant-secret-77"  # the log's own facts are never changed
    policy.name_headers(["accept"])  # a header named secret: masked by name from now on
    assert policy.facts(facts)["headers"]["accept"] == mask("a/b")


def test_a_facts_headers_are_masked_from_memory_and_anew_once_a_secret_is_learned() -> None:
    policy = SecretPolicy()
    headers = {"x-echo": "tok-abcdef123456", "content-type": "application/json"}
    facts = {"event": "http-response", "headers": headers, "status": 200, "elapsed_ms": 1.5}
    assert policy.facts(facts) is facts  # nothing known to mask
    policy.add("tok-abcdef123456")
    second = policy.facts(facts)
    assert second["headers"]["x-echo"] != "tok-abcdef123456" and second["headers"]["content-type"] == (
        "application/json"
    )
    assert headers["x-echo"] == "tok-abcdef123456"  # the event's own facts are left as they are
    third = policy.facts(facts)  # from memory: the same, in a dict of its own
    assert third == second and third["headers"] is not second["headers"]
    assert policy.facts({"headers": {"x": ["tok-abcdef123456"]}})["headers"]["x"] != ["tok-abcdef123456"]
