"""`mcpx call` against the reference server `@modelcontextprotocol/server-everything` 2026.8.31 over stdio.

Every tool it lists is called, except those that only work by asking the client something (sampling,
elicitation, roots), and each result is checked for what it should say. Resources, templates, prompts
and completion too. The server comes from the repo's node_modules, installed by the README's test
command (`scripts/test`); without it these tests fail, they do not skip: CI always has it.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import json
from typing import Any

import jsonschema
import pytest
from call_harness import ROOT, call, text_of

import mcpx

pytestmark = pytest.mark.npm
# the module fixture only finds the server's binary: its tests need not share a worker (tests/conftest.py)
SPREAD_OVER_WORKERS = True

VERSION = "2026.8.31"
BIN = ROOT / "node_modules" / ".bin" / "mcp-server-everything"
PACKAGE = ROOT / "node_modules" / "@modelcontextprotocol" / "server-everything" / "package.json"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: tools that only work by sending the client a request — not called here (the task-augmented ones, which
#: mcpx runs as client-side tasks, are called in test_tasks_both_ways)
ASKS_THE_CLIENT = {
    "trigger-elicitation-request",
    "trigger-url-elicitation",
    "trigger-sampling-request",
    "get-roots-list",
    "trigger-sampling-request-async",
    "trigger-elicitation-request-async",
}


@pytest.fixture(scope="module")
def everything() -> str:
    if not BIN.exists():
        pytest.fail(
            f"{BIN.relative_to(ROOT)} is missing: run the README's test command (scripts/test), which installs "
            f"@modelcontextprotocol/server-everything@{VERSION} into node_modules",
            pytrace=False,
        )
    installed = json.loads(PACKAGE.read_text())["version"]
    if installed != VERSION:
        pytest.fail(
            f"server-everything {installed} is installed, these tests pin {VERSION}: run scripts/test",
            pytrace=False,
        )
    return str(BIN)


def run(server: str, *args: str, **kwargs: Any):
    return call(server, "--format", "json", *args, **kwargs)


def tool(server: str, name: str, *args: str, **kwargs: Any) -> dict[str, Any]:
    result = run(server, "--method", "tools/call", "--tool-name", name, *args, **kwargs).result()
    assert result.get("isError") is not True, result
    return result


def blocks(result: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [b for b in result["content"] if b["type"] == kind]


# -- one check per tool ---------------------------------------------------------------------------------
def check_echo(server: str) -> None:
    result = tool(server, "echo", "--tool-arg", "message=hello, everything")
    assert text_of(result) == "Echo: hello, everything"


def check_get_sum(server: str) -> None:
    result = tool(server, "get-sum", "--tool-arg", "a=2", "--tool-arg", "b=3")
    assert text_of(result) == "The sum of 2 and 3 is 5."


def check_get_tiny_image(server: str) -> None:
    result = tool(server, "get-tiny-image")
    [image] = blocks(result, "image")
    assert image["mimeType"] == "image/png"
    assert base64.b64decode(image["data"], validate=True).startswith(PNG_SIGNATURE)


def check_get_annotated_message(server: str) -> None:
    result = tool(
        server, "get-annotated-message", "--tool-arg", "messageType=error", "--tool-arg", "includeImage=true"
    )
    [text] = blocks(result, "text")
    assert text["text"] == "Error: Operation failed"
    assert text["annotations"] == {"priority": 1.0, "audience": ["user", "assistant"]}
    [image] = blocks(result, "image")
    assert base64.b64decode(image["data"]).startswith(PNG_SIGNATURE)
    assert image["annotations"]["audience"] == ["user"]


def check_get_env(server: str) -> None:
    result = tool(server, "get-env", "-e", "MCPX_EVERYTHING_MARKER=seen by the server")
    env = json.loads(text_of(result))
    assert env["MCPX_EVERYTHING_MARKER"] == "seen by the server"


def check_get_resource_links(server: str) -> None:
    result = tool(server, "get-resource-links", "--tool-arg", "count=4")
    links = blocks(result, "resource_link")
    assert [link["uri"] for link in links] == [
        "demo://resource/dynamic/blob/1",
        "demo://resource/dynamic/text/2",
        "demo://resource/dynamic/blob/3",
        "demo://resource/dynamic/text/4",
    ]
    assert text_of(result).startswith("Here are 4 resource links")


def check_get_resource_reference(server: str) -> None:
    result = tool(
        server, "get-resource-reference", "--tool-arg", "resourceType=Blob", "--tool-arg", "resourceId=7"
    )
    [embedded] = blocks(result, "resource")
    resource = embedded["resource"]
    assert resource["uri"] == "demo://resource/dynamic/blob/7"
    assert base64.b64decode(resource["blob"]).decode().startswith("Resource 7: This is a base64 blob")


def check_get_structured_content(server: str) -> None:
    tools = run(server, "--method", "tools/list").result()["tools"]
    schema = next(t for t in tools if t["name"] == "get-structured-content")["outputSchema"]
    result = tool(server, "get-structured-content", "--tool-arg", "location=Chicago")
    structured = result["structuredContent"]
    assert structured == {"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82}
    jsonschema.validate(structured, schema)
    assert json.loads(text_of(result)) == structured


def check_gzip_file_as_resource(server: str) -> None:
    original = b"mcpx was here\n" * 50
    data_uri = "data:text/plain;base64," + base64.b64encode(original).decode()
    result = tool(
        server, "gzip-file-as-resource", "--tool-arg", "name=note.txt.gz", "--tool-arg", f"data={data_uri}",
        "--tool-arg", "outputType=resource",
    )  # fmt: skip
    [embedded] = blocks(result, "resource")
    assert embedded["resource"]["mimeType"] == "application/gzip"
    assert embedded["resource"]["uri"].endswith("note.txt.gz")
    assert gzip.decompress(base64.b64decode(embedded["resource"]["blob"])) == original


def check_toggle_simulated_logging(server: str) -> None:
    result = tool(server, "toggle-simulated-logging")
    assert text_of(result).startswith("Started simulated, random-leveled logging")


def check_toggle_subscriber_updates(server: str) -> None:
    result = tool(server, "toggle-subscriber-updates")
    assert text_of(result).startswith("Started simulated resource updated notifications")


def check_trigger_long_running_operation(server: str) -> None:
    result = tool(
        server, "trigger-long-running-operation", "--tool-arg", "duration=0.6", "--tool-arg", "steps=3"
    )
    assert text_of(result) == "Long running operation completed. Duration: 0.6 seconds, Steps: 3."


def check_simulate_research_query(server: str) -> None:
    # taskSupport "required": mcpx calls it as a task by itself (the server refuses it otherwise), polls
    # tasks/get, and prints what tasks/result returns; the ambiguous query's question (input_required)
    # arrives through the waiting tasks/result and is answered from --elicit
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as answers:
        answers.write('{"interpretation": "snake"}')
    proc = call(
        server, "--method", "tools/call", "--tool-name", "simulate-research-query", "--tool-arg", "topic=python",
        "--tool-arg", "ambiguous=true", "--elicit", f"@{answers.name}", "--traffic",
    )  # fmt: skip
    assert proc.text().startswith("# Research Report: python (snake)"), str(proc)
    sent = [line for line in proc.traffic() if "→" in line]
    assert any('"task":{"ttl":' in line and '"tools/call"' in line for line in sent), str(proc)
    assert any('"method":"tasks/result"' in line for line in sent), str(proc)
    assert any('"method":"tasks/get"' in line for line in sent), str(proc)
    assert any('"status":"input_required"' in line for line in proc.traffic()), str(proc)


CHECKS = {
    "echo": check_echo,
    "get-sum": check_get_sum,
    "get-tiny-image": check_get_tiny_image,
    "get-annotated-message": check_get_annotated_message,
    "get-env": check_get_env,
    "get-resource-links": check_get_resource_links,
    "get-resource-reference": check_get_resource_reference,
    "get-structured-content": check_get_structured_content,
    "gzip-file-as-resource": check_gzip_file_as_resource,
    "toggle-simulated-logging": check_toggle_simulated_logging,
    "toggle-subscriber-updates": check_toggle_subscriber_updates,
    "trigger-long-running-operation": check_trigger_long_running_operation,
    "simulate-research-query": check_simulate_research_query,
}


def test_every_listed_tool_has_a_check(everything: str) -> None:
    listed = {t["name"] for t in run(everything, "--method", "tools/list").result()["tools"]}
    unchecked = listed - set(CHECKS) - ASKS_THE_CLIENT
    assert not unchecked, f"server-everything lists tools this test does not call: {sorted(unchecked)}"
    assert set(CHECKS) <= listed, f"tools this test expects are not listed: {sorted(set(CHECKS) - listed)}"


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_tool(name: str, everything: str) -> None:
    CHECKS[name](everything)


def test_long_running_operation_reports_progress(everything: str) -> None:
    """Progress only flows when the request carries a progressToken; the operation (3 × 0.5 s) outlasts
    --timeout 1 and only finishes if progress restarts the clock."""
    proc = call(
        everything, "--method", "tools/call", "--tool-name", "trigger-long-running-operation",
        "--tool-arg", "duration=1.5", "--tool-arg", "steps=3", "--timeout", "1", "--traffic",
    )  # fmt: skip
    assert proc.text().startswith("Long running operation completed")
    assert sum("notifications/progress" in line for line in proc.traffic()) == 3, str(proc)


# -- resources, templates, prompts, completion, logging --------------------------------------------------
def test_resources_list_and_read(everything: str) -> None:
    resources = run(everything, "--method", "resources/list").result()["resources"]
    documents = [r for r in resources if r["uri"].startswith("demo://resource/static/document/")]
    assert documents, resources
    first = documents[0]
    read = run(everything, "--method", "resources/read", "--uri", first["uri"]).result()
    [content] = read["contents"]
    assert content["uri"] == first["uri"]
    assert content["mimeType"] == first["mimeType"] == "text/markdown"
    assert len(content["text"]) > 100 and content["text"].lstrip().startswith("#")


def test_resource_templates_list_and_read_through_them(everything: str) -> None:
    templates = run(everything, "--method", "resources/templates/list").result()["resourceTemplates"]
    assert {t["uriTemplate"] for t in templates} == {
        "demo://resource/dynamic/text/{resourceId}",
        "demo://resource/dynamic/blob/{resourceId}",
    }
    text = run(everything, "--method", "resources/read", "--uri", "demo://resource/dynamic/text/5").result()
    assert text["contents"][0]["text"].startswith("Resource 5: This is a plaintext resource")
    blob = run(everything, "--method", "resources/read", "--uri", "demo://resource/dynamic/blob/6").result()
    assert (
        base64.b64decode(blob["contents"][0]["blob"]).decode().startswith("Resource 6: This is a base64 blob")
    )


def test_unknown_resource_is_a_json_rpc_error(everything: str) -> None:
    run(everything, "--method", "resources/read", "--uri", "demo://resource/dynamic/text/zero").failure(
        1, "rpc_error"
    )


def test_resource_subscribe(everything: str) -> None:
    assert (
        run(everything, "--method", "resources/subscribe", "--uri", "demo://resource/dynamic/text/1").result()
        == {}
    )


def test_prompts_list(everything: str) -> None:
    prompts = {p["name"]: p for p in run(everything, "--method", "prompts/list").result()["prompts"]}
    assert {"simple-prompt", "args-prompt", "completable-prompt", "resource-prompt"} <= set(prompts)
    args = {a["name"]: a["required"] for a in prompts["args-prompt"]["arguments"]}
    assert args == {"city": True, "state": False}


def test_prompts_get_with_arguments(everything: str) -> None:
    got = run(
        everything, "--method", "prompts/get", "--prompt-name", "args-prompt",
        "--prompt-args", "city=Boston", "--prompt-args", "state=MA",
    ).result()  # fmt: skip
    assert got["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "What's weather in Boston, MA?"}}
    ]


def test_prompt_with_an_embedded_resource(everything: str) -> None:
    got = run(
        everything, "--method", "prompts/get", "--prompt-name", "resource-prompt",
        "--prompt-args", "resourceType=Text", "--prompt-args", "resourceId=2",
    ).result()  # fmt: skip
    embedded = got["messages"][1]["content"]
    assert embedded["type"] == "resource"
    assert embedded["resource"]["uri"] == "demo://resource/dynamic/text/2"


def test_completion_for_prompt_arguments(everything: str) -> None:
    department = {
        "ref": {"type": "ref/prompt", "name": "completable-prompt"},
        "argument": {"name": "department", "value": "S"},
    }
    got = run(everything, "--method", "completion/complete", "--params", json.dumps(department)).result()
    assert got["completion"]["values"] == ["Sales", "Support"]
    name = {
        "ref": {"type": "ref/prompt", "name": "completable-prompt"},
        "argument": {"name": "name", "value": ""},
        "context": {"arguments": {"department": "Engineering"}},
    }
    got = run(everything, "--method", "completion/complete", "--params", json.dumps(name)).result()
    assert got["completion"]["values"] == ["Alice", "Bob", "Charlie"]


def test_completion_for_a_template_argument(everything: str) -> None:
    params = {
        "ref": {"type": "ref/resource", "uri": "demo://resource/dynamic/text/{resourceId}"},
        "argument": {"name": "resourceId", "value": "42"},
    }
    got = run(everything, "--method", "completion/complete", "--params", json.dumps(params)).result()
    assert got["completion"]["values"] == ["42"]


def test_logging_set_level(everything: str) -> None:
    assert run(everything, "--method", "logging/setLevel", "--log-level", "warning").result() == {}


def test_initialize_shows_the_server(everything: str) -> None:
    opened = run(everything, "--method", "initialize").result()
    assert (
        opened["serverInfo"]["name"].startswith("mcp-servers/everything")
        or "everything" in opened["serverInfo"]["name"]
    )
    assert opened["protocolVersion"] == "2025-11-25"
    assert {"tools", "resources", "prompts", "logging", "completions"} <= set(opened["capabilities"])


def test_js_target_runs_with_node(everything: str) -> None:
    script = PACKAGE.parent / "dist" / "index.js"
    printed = call(
        str(script), "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=js"
    ).text()
    assert printed == "Echo: js"


# -- the library, for what one `mcpx call` cannot do -----------------------------------------------------
async def test_tasks_both_ways(everything: str) -> None:
    """One session: the two async tools that ask mcpx for a client-side task (sampling, elicitation) and
    poll mcpx's tasks/get and tasks/result, at once; then tasks/list (the research query, a server-side
    task, is called from mcpx call in check_simulate_research_query)."""
    asked: list[str] = []

    async def on_elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params["message"])
        properties = params["requestedSchema"]["properties"]
        if "interpretation" in properties:
            return {"action": "accept", "content": {"interpretation": "snake"}}
        return {"action": "accept", "content": {k: "x" for k in properties}}

    async def on_sample(params: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "sampled!"}, "model": "mcpx-test"}

    statuses: list[str] = []
    async with mcpx.connect(everything, timeout=30, on_elicit=on_elicit, on_sample=on_sample) as client:
        assert client.tasks.tool_calls and client.tasks.can_list and client.tasks.can_cancel
        client.tasks.on_change(
            lambda state: statuses.append(state.status) if state.side == "server" else None
        )
        research, sampled, elicited = await asyncio.gather(
            client.tasks.call_tool("simulate-research-query", {"topic": "python", "ambiguous": True}),
            client.call_tool("trigger-sampling-request-async", {"prompt": "a haiku"}),
            client.call_tool("trigger-elicitation-request-async", {}),
        )
        listed = await client.tasks.list()
    assert "# Research Report: python (snake)" in text_of(research)
    assert "input_required" in statuses and statuses[-1] == "completed", statuses
    assert any("multiple interpretations" in message for message in asked)
    assert "[COMPLETED]" in text_of(sampled.model_dump()) and "sampled!" in text_of(sampled.model_dump())
    assert "[COMPLETED]" in text_of(elicited.model_dump()), text_of(elicited.model_dump())
    assert any(task["status"] == "completed" for task in listed)
    served = [s for s in client.tasks.known.values() if s.side == "client"]
    assert sorted(s.method for s in served) == ["elicitation/create", "sampling/createMessage"]
    assert all(s.status == "completed" for s in served)
