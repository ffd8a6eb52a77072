"""Masking secrets as recordings are written."""

from __future__ import annotations

from mcpx.record.redact import Redactor, looks_secret, mask, mask_env, mask_headers


def test_mask_keeps_the_scheme_and_a_tail_of_long_secrets_only() -> None:
    assert mask("Bearer abcdefghijkl1a2b") == "Bearer ••••1a2b"
    assert mask("Bearer short") == "Bearer ••••"
    assert mask("s3cret") == "••••"
    assert mask("Bearer ••••1a2b") == "Bearer ••••1a2b"  # masked already: left alone


def test_secret_looking_names() -> None:
    for name in ("GITHUB_TOKEN", "API_KEY", "client_secret", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY"):
        assert looks_secret(name)
    for name in ("PATH", "HOME", "MODE", "LANG"):
        assert not looks_secret(name)
    assert mask_env({"API_KEY": "k-1234567890ab", "MODE": "x"}) == {"API_KEY": "••••90ab", "MODE": "x"}
    assert mask_headers({"Cookie": "a=b", "Accept": "*/*"}) == {"Cookie": "••••", "Accept": "*/*"}


def test_oauth_fields_in_json_and_forms_and_credentials_in_text() -> None:
    redactor = Redactor()
    body = '{"access_token": "eyJhbGciOi.abc.def", "refresh_token":"r-123456789012", "expires_in": 3600}'
    assert (
        redactor.text(body) == '{"access_token": "••••.def", "refresh_token":"••••9012", "expires_in": 3600}'
    )
    form = "grant_type=authorization_code&code_verifier=abcdefghijklmnop&client_secret=xyz"
    assert redactor.text(form) == "grant_type=authorization_code&code_verifier=••••mnop&client_secret=••••"
    assert redactor.text("Authorization: Bearer abc.def.ghi-jkl") == "Authorization: Bearer ••••-jkl"
    assert redactor.text("auth: basic dXNlcjpwYXNzd29yZA==") == "auth: basic ••••ZA=="
    plain = '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'
    assert redactor.text(plain) is plain


def test_known_literals_are_masked_anywhere() -> None:
    redactor = Redactor.for_target({"MY_TOKEN": "hunter2-hunter2", "MODE": "verbose"}, {"X-Api-Key": "k"})
    assert (
        redactor.text("started with hunter2-hunter2 in verbose mode")
        == "started with ••••ter2 in verbose mode"
    )


def test_facts_are_copied_not_changed() -> None:
    redactor = Redactor(secret_headers=["X-Api-Key"])
    facts = {
        "headers": {"authorization": "Bearer tokentokentoken", "x-api-key": "k-1", "accept": "*/*"},
        "status": 200,
    }
    masked = redactor.facts(facts)
    assert masked == {
        "headers": {"authorization": "Bearer ••••oken", "x-api-key": "••••", "accept": "*/*"},
        "status": 200,
    }
    assert facts["headers"]["authorization"] == "Bearer tokentokentoken"  # the live log keeps its own
    untouched = {"pid": 7, "command": ["python", "s.py"], "env_keys": ["API_TOKEN"]}
    assert redactor.facts(untouched) is untouched
