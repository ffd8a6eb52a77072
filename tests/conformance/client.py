"""mcpx as the client under test of the official conformance suite (npm `@modelcontextprotocol/conformance`).

The harness starts a mock server per scenario and runs this script with the server's URL as the last
argument, the scenario in `MCP_CONFORMANCE_SCENARIO`, the revision it speaks in
`MCP_CONFORMANCE_PROTOCOL_VERSION` and, for some scenarios, what to do in `MCP_CONFORMANCE_CONTEXT` (JSON).
Each scenario is a few calls through the public library API, over Streamable HTTP; exit 0 means the client
did its part (the harness grades the traffic it saw). Everything the scenarios check — headers, `_meta`,
version retries, MRTR, leaving out tools with bad `x-mcp-header` annotations — is mcpx's own behaviour;
this file only decides which calls to make.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Awaitable, Callable
from typing import Any

import mcpx
from mcpx.errors import McpxError
from mcpx.protocol.client import Client


def era_for(version: str) -> dict[str, Any]:
    # the revisions before 2026-07-28 speak the handshake; pin it so the modern probe adds no noise. At
    # 2026-07-28 mcpx probes as it does for users (auto), which is what the scenarios grade.
    if version.startswith("2026"):
        return {"protocol_era": "auto"}
    return {"protocol_era": "legacy", "protocol_version": version}


def defaults_of(schema: Any) -> dict[str, Any]:
    """Accept a form elicitation with every default the requested schema declares (SEP-1034)."""
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return {
        name: prop["default"]
        for name, prop in properties.items()
        if isinstance(prop, dict) and "default" in prop
    }


async def on_elicit(params: Any) -> dict[str, Any]:
    return {"action": "accept", "content": defaults_of((params or {}).get("requestedSchema"))}


def context() -> dict[str, Any]:
    raw = os.environ.get("MCP_CONFORMANCE_CONTEXT")
    data = json.loads(raw) if raw else {}
    return data if isinstance(data, dict) else {}


def sample_arguments(schema: Any) -> dict[str, Any]:
    """A value of the right type for each required property (the scenarios only look at the name)."""
    if not isinstance(schema, dict):
        return {}
    samples = {"string": "x", "integer": 1, "number": 1.5, "boolean": True, "object": {}, "array": []}
    properties = schema.get("properties") or {}
    arguments: dict[str, Any] = {}
    for name in schema.get("required") or []:
        prop = properties.get(name) if isinstance(properties, dict) else None
        kind = prop.get("type") if isinstance(prop, dict) else None
        arguments[name] = samples.get(kind) if isinstance(kind, str) else None
    return arguments


async def list_only(client: Client) -> None:
    await client.list_tools()


async def tools_call(client: Client) -> None:
    await client.list_tools()
    await client.call_tool("add_numbers", {"a": 5, "b": 3})


async def sse_retry(client: Client) -> None:
    await client.list_tools()
    await client.call_tool("test_reconnection", {})


async def elicitation_defaults(client: Client) -> None:
    await client.list_tools()
    await client.call_tool("test_client_elicitation_defaults", {})


async def request_state(client: Client) -> None:
    # MRTR with and without requestState, a plain call between flows, a result without resultType
    await client.list_tools()
    for name in (
        "test_mrtr_echo_state",
        "test_mrtr_no_state",
        "test_mrtr_unrelated",
        "test_mrtr_no_result_type",
    ):
        await client.call_tool(name, {})


async def standard_headers(client: Client) -> None:
    # one request of each kind that carries Mcp-Method, and each that carries Mcp-Name
    tools = await client.list_tools()
    for tool in tools:
        await client.call_tool(tool.name, {})
    resources = await client.list_resources()
    for resource in resources:
        await client.read_resource(resource.uri)
    for prompt in await client.list_prompts():
        await client.get_prompt(prompt.name)


async def custom_headers(client: Client) -> None:
    # the scenario hands over the calls to make, with the values whose encodings it checks
    await client.list_tools()
    for call in context().get("toolCalls", []):
        await client.call_tool(call["name"], call.get("arguments"))


async def invalid_tool_headers(client: Client) -> None:
    # every tool mcpx lists gets called: those with bad x-mcp-header annotations must not be listed
    for tool in await client.list_tools():
        await client.call_tool(tool.name, sample_arguments(tool.input_schema))


async def schema_preservation(client: Client) -> None:
    # send back the inputSchema as mcpx holds it, for the scenario to compare keyword by keyword
    tools = {tool.name: tool for tool in await client.list_tools()}
    schema = tools["json_schema_2020_12_tool"].input_schema
    await client.call_tool("json_schema_echo", {"schema": schema})


async def skills_listed(client: Client) -> None:
    # listing is not loading: no file of any skill may be read (SEP-2640, no prefetch)
    await client.skills.list()


async def skills_loaded(client: Client) -> None:
    # load each skill: mcpx reads SKILL.md, verifies it, and reads nothing more of a skill that fails
    for entry in await client.skills.list():
        loaded = await client.skills.load(entry)
        for problem in loaded.all_problems():
            print(f"mcpx: {problem}", file=sys.stderr)


SCENARIOS: dict[str, Callable[[Client], Awaitable[None]]] = {
    "initialize": list_only,
    "tools_call": tools_call,
    "sse-retry": sse_retry,
    "elicitation-sep1034-client-defaults": elicitation_defaults,
    "request-metadata": list_only,
    "sep-2322-client-request-state": request_state,
    "http-standard-headers": standard_headers,
    "http-custom-headers": custom_headers,
    "http-invalid-tool-headers": invalid_tool_headers,
    "json-schema-ref-no-deref": list_only,
    "json-schema-2020-12-preservation": schema_preservation,
    "sep-2640-client-no-prefetch": skills_listed,
    "sep-2640-client-verify-digest": skills_loaded,
    "sep-2640-client-verify-size": skills_loaded,
    "sep-2640-client-verify-frontmatter": skills_loaded,
}


async def authorized(client: Client) -> None:
    # two authorized requests: the server may move to another authorization server in between
    await client.list_tools()
    await client.call_tool("test-tool", {})


#: what `mcpx --oauth-client-metadata-url` gets in the auth scenarios (the reference clients' URL)
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"


def oauth(url: str, home: str) -> Any:
    """The same settings the CLI flags give: --oauth-non-interactive, the context's pre-registered client,
    --oauth-client-metadata-url."""
    from pathlib import Path

    from mcpx.auth import oauth_for
    from mcpx.auth.flow import OAuthSettings
    from mcpx.auth.store import TokenStore

    ctx = context()
    settings = OAuthSettings(
        client_id=ctx.get("client_id"),
        client_secret=ctx.get("client_secret"),
        client_metadata_url=CLIENT_METADATA_URL,
        mode="non-interactive",
        # client-credentials-jwt: private_key_jwt client authentication
        private_key=ctx.get("private_key_pem"),
        signing_algorithm=ctx.get("signing_algorithm") or "ES256",
        # wif-jwt-bearer: the workload's JWT
        assertion=ctx.get("valid_jwt"),
        # enterprise-managed-authorization: the IdP's ID token and where to exchange it
        idp_id_token=ctx.get("idp_id_token"),
        idp_token_endpoint=ctx.get("idp_token_endpoint"),
        idp_client_id=ctx.get("idp_client_id"),
    )
    # each scenario is a new world: nothing a run stores may help (or leak into) another
    store = TokenStore(Path(home), use_keyring=False)
    return oauth_for(url, settings, store=store)


async def main(url: str) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25")
    run = authorized if scenario.startswith("auth/") else SCENARIOS.get(scenario)
    if run is None:
        print(f"mcpx conformance client: no scenario {scenario!r}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="mcpx-conformance-") as home:
        auth = oauth(url, home) if scenario.startswith("auth/") else None
        try:
            async with mcpx.connect(
                url, transport="http", on_elicit=on_elicit, timeout=30, auth=auth, **era_for(version)
            ) as client:
                await run(client)
        except McpxError as exc:
            print(f"mcpx: {exc.message}", file=sys.stderr)
            return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[-1])))
