"""`mcpx call` against a well-behaved server on the official Python SDK (tests/servers/sdk_everything.py),
in both protocol eras: every method, the output formats, the exit codes and the error line."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import jsonschema
import pytest
from call_harness import call, server, text_of

EVERYTHING = server("sdk_everything.py")
ERAS = ["legacy", "modern"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run(era: str, *args: str, **kwargs):
    """Most tests pin the era, so a feature is tested apart from era detection (tested on its own)."""
    return call(EVERYTHING, "--protocol-era", era, *args, **kwargs)


def tools_by_name(era: str) -> dict[str, dict]:
    result = run(era, "--method", "tools/list", "--format", "json").result()
    return {tool["name"]: tool for tool in result["tools"]}


def test_tools_list_shows_rich_schemas() -> None:
    tools = tools_by_name("legacy")
    assert {"plan_trip", "forecast", "count_slowly", "chatty", "fail", "echo", "read_env", "where"} <= set(
        tools
    )

    schema = tools["plan_trip"]["inputSchema"]
    props = schema["properties"]
    assert set(schema["required"]) == {"traveller", "destinations"}
    assert props["destinations"] == {"items": {"type": "string"}, "title": "Destinations", "type": "array"}
    assert props["cabin"]["enum"] == ["economy", "premium", "business"]
    assert props["cabin"]["default"] == "economy"
    assert props["nights"]["default"] == 3
    assert {"type": "null"} in props["budget"]["anyOf"]
    # the nested object comes through as a $ref into $defs, intact
    traveller = schema["$defs"][props["traveller"]["$ref"].rsplit("/", 1)[1]]
    address = schema["$defs"][traveller["properties"]["address"]["$ref"].rsplit("/", 1)[1]]
    assert set(address["required"]) == {"street", "city"}

    out = tools["forecast"]["outputSchema"]
    assert out["type"] == "object" and set(out["required"]) == {
        "city",
        "temperature_c",
        "conditions",
        "humid",
    }


def test_nested_arguments_from_tool_args_json() -> None:
    args = {
        "traveller": {"name": "Ada", "age": 36, "address": {"street": "1 Loop Rd", "city": "London"}},
        "destinations": ["Paris", "Rome"],
        "cabin": "business",
        "budget": None,
        "tags": ["work", "food"],
    }
    printed = run(
        "legacy", "--method", "tools/call", "--tool-name", "plan_trip", "--tool-args-json", json.dumps(args)
    ).text()  # exit 0: not an isError result
    assert printed == "Ada (36) from London: Paris → Rome, 3 nights in business, no budget [work, food]"


def test_tool_arg_values_parse_as_json_when_they_can() -> None:
    printed = run(
        "modern",
        "--method",
        "tools/call",
        "--tool-name",
        "plan_trip",
        "--tool-arg",
        'traveller={"name": "Bo", "age": 7, "address": {"street": "s", "city": "Oslo"}}',
        "--tool-arg",
        'destinations=["Bergen"]',
        "--tool-arg",
        "nights=5",
        "--tool-arg",
        "budget=99.5",
    ).text()
    assert printed == "Bo (7) from Oslo: Bergen, 5 nights in economy, budget 99.5"


def test_tool_arg_that_is_not_json_stays_a_string() -> None:
    printed = run(
        "legacy", "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hello world"
    ).text()
    assert printed == "hello world"
    # a value that is a JSON number is sent as a number: the string-typed tool refuses it
    assert (
        run("modern", "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=42").returncode
        == 5
    )


@pytest.mark.parametrize("era", ERAS)
def test_structured_output_matches_its_output_schema(era: str) -> None:
    schema = tools_by_name(era)["forecast"]["outputSchema"]
    result = run(
        era,
        "--method",
        "tools/call",
        "--tool-name",
        "forecast",
        "--tool-arg",
        "city=Lima",
        "--format",
        "json",
    ).result()
    structured = result["structuredContent"]
    assert structured == {
        "city": "Lima",
        "temperature_c": 21.5,
        "conditions": ["sunny", "breezy"],
        "humid": False,
    }
    jsonschema.validate(structured, schema)
    # the unstructured twin carries the same data as JSON text
    assert json.loads(text_of(result)) == structured


@pytest.mark.parametrize("era", ERAS)
def test_tool_error_prints_the_result_and_exits_5(era: str) -> None:
    proc = run(
        era, "--method", "tools/call", "--tool-name", "fail", "--tool-arg", "reason=the flux capacitor"
    )
    error = proc.failure(5, "tool_error")
    # the isError result's content is printed (the text format); exit 5 says it was an error
    assert "the flux capacitor" in proc.stdout
    assert "fail" in error["message"]


def test_unknown_tool_exits_5() -> None:
    proc = run("modern", "--method", "tools/call", "--tool-name", "no_such_tool")
    error = proc.failure(5, "tool_error")
    assert "no_such_tool" in error["message"]


@pytest.mark.parametrize("era", ERAS)
def test_progress_notifications_reach_the_traffic(era: str) -> None:
    """`count_slowly` reports progress only when the request carries a progressToken."""
    proc = run(
        era,
        "--method",
        "tools/call",
        "--tool-name",
        "count_slowly",
        "--tool-arg",
        "steps=3",
        "--tool-arg",
        "delay=0.1",
        "--traffic",
    )
    assert proc.text() == "counted to 3"
    progress = [line for line in proc.traffic() if " ← " in line and "notifications/progress" in line]
    assert len(progress) == 3, f"expected three progress notifications in --traffic\n{proc}"
    last = json.loads(progress[-1].split(" ← ", 1)[1])
    assert last["params"]["message"] == "step 3 of 3" and last["params"]["progress"] == 3


@pytest.mark.parametrize("era", ERAS)
def test_log_messages_reach_the_traffic_with_log_level(era: str) -> None:
    proc = run(era, "--method", "tools/call", "--tool-name", "chatty", "--log-level", "debug", "--traffic")
    assert proc.text() == "said three things"
    logs = [line for line in proc.traffic() if " ← " in line and "notifications/message" in line]
    assert len(logs) == 3, f"expected three notifications/message frames in --traffic\n{proc}"
    assert "a structured warning" in logs[-1]


def test_resources_list_and_read_text() -> None:
    listed = run("legacy", "--method", "resources/list", "--format", "json").result()
    uris = {r["uri"]: r for r in listed["resources"]}
    assert {"test://readme", "test://pixel.png"} <= set(uris)
    assert uris["test://pixel.png"]["mimeType"] == "image/png"

    text = run("modern", "--method", "resources/read", "--uri", "test://readme").text()
    assert text == "Hello from the readme.\nSecond line."


@pytest.mark.parametrize("era", ERAS)
def test_resource_read_binary(era: str) -> None:
    binary = run(era, "--method", "resources/read", "--uri", "test://pixel.png", "--format", "json").result()
    content = binary["contents"][0]
    assert "text" not in content
    assert base64.b64decode(content["blob"]).startswith(PNG_SIGNATURE)


def test_resource_template_list_and_read() -> None:
    templates = run("modern", "--method", "resources/templates/list").result()["resourceTemplates"]
    assert [t["uriTemplate"] for t in templates] == ["notes://{topic}"]
    read = run("legacy", "--method", "resources/read", "--uri", "notes://whales", "--format", "json").result()
    assert read["contents"][0]["text"] == "Notes about whales."
    assert read["contents"][0]["uri"] == "notes://whales"


def test_reading_an_unknown_resource_is_a_json_rpc_error() -> None:
    error = run("legacy", "--method", "resources/read", "--uri", "test://nothing-here").failure(
        1, "rpc_error"
    )
    assert "resources/read" in error["message"]
    assert isinstance(error.get("rpc_code"), int)


def test_prompts_list_shows_arguments() -> None:
    prompts = {p["name"]: p for p in run("legacy", "--method", "prompts/list").result()["prompts"]}
    assert {"review_code", "greeting"} <= set(prompts)
    arguments = {a["name"]: a for a in prompts["review_code"]["arguments"]}
    assert arguments["code"]["required"] is True
    assert arguments["language"].get("required") is not True


@pytest.mark.parametrize("era", ERAS)
def test_prompts_get_with_arguments(era: str) -> None:
    got = run(
        era,
        "--method",
        "prompts/get",
        "--prompt-name",
        "review_code",
        "--prompt-args",
        "code=fn main() {}",
        "--prompt-args",
        "language=rust",
        "--format",
        "json",
    ).result()
    message = got["messages"][0]
    assert message["role"] == "user"
    assert message["content"]["text"] == "Please review this rust code:\n\nfn main() {}"


def test_unknown_prompt_is_a_json_rpc_error() -> None:
    run("modern", "--method", "prompts/get", "--prompt-name", "nope").failure(1, "rpc_error")


def test_completion_for_a_prompt_argument() -> None:
    prompt = {
        "ref": {"type": "ref/prompt", "name": "review_code"},
        "argument": {"name": "language", "value": "p"},
    }
    got = run("legacy", "--method", "completion/complete", "--params", json.dumps(prompt)).result()
    assert got["completion"]["values"] == ["python", "perl", "php"]


def test_completion_for_a_template_argument() -> None:
    template = {
        "ref": {"type": "ref/resource", "uri": "notes://{topic}"},
        "argument": {"name": "topic", "value": "w"},
    }
    got = run("modern", "--method", "completion/complete", "--params", json.dumps(template)).result()
    assert got["completion"]["values"] == ["weather", "whales", "wine"]


def test_text_format_is_the_content_as_text() -> None:
    proc = run("legacy", "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=héllo")
    assert proc.stdout == "héllo\n"


def test_json_format_is_exactly_one_line() -> None:
    proc = run(
        "modern",
        "--method",
        "tools/call",
        "--tool-name",
        "echo",
        "--tool-arg",
        "text=a\nb",
        "--format",
        "json",
    )
    assert proc.stdout.count("\n") == 1 and proc.stdout.endswith("\n")
    assert text_of(proc.result()) == "a\nb"


def test_json_format_on_failure_prints_nothing_on_stdout_but_the_result() -> None:
    proc = run("legacy", "--method", "tools/call", "--tool-name", "fail", "--format", "json")
    proc.failure(5, "tool_error")
    body = json.loads(proc.stdout)
    assert list(body) == ["result"] and body["result"]["isError"] is True
    assert proc.stdout.count("\n") == 1


def test_ping() -> None:
    # ping exists in the handshake era only (2026-07-28 removed it)
    assert run("legacy", "--method", "ping").result() == {}


def test_initialize_prints_what_the_handshake_returned() -> None:
    opened = run("legacy", "--method", "initialize").result()
    assert opened["serverInfo"] == {"name": "sdk-everything", "version": "1.2.3"}
    assert opened["protocolVersion"] == "2025-11-25"


def test_env_cwd_and_dashed_server_args(tmp_path: Path) -> None:
    env = run(
        "legacy", "-e", "MCPX_PROBE_VALUE=forty two", "--method", "tools/call", "--tool-name", "read_env",
        "--tool-arg", "name=MCPX_PROBE_VALUE",
    ).text()  # fmt: skip
    assert env == "forty two"

    proc = call(
        EVERYTHING, "plain", "--cwd", str(tmp_path), "--protocol-era", "modern", "--method", "tools/call",
        "--tool-name", "where", "--format", "json", "--", "--dashed", "-x",
    )  # fmt: skip
    where = proc.result()["structuredContent"]
    assert Path(where["cwd"]).resolve() == tmp_path.resolve()
    assert where["argv"] == ["plain", "--dashed", "-x"]


def test_default_flags_find_the_era_and_call() -> None:
    """No era flags: what a user types. The SDK server speaks both eras; auto picks one and works."""
    proc = call(
        EVERYTHING, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=plain", "--traffic"
    )
    assert proc.text() == "plain"
    assert any("era:" in line for line in proc.traffic())


def test_auto_era_copes_with_a_server_slower_to_start_than_the_probe() -> None:
    """The probe's clock starts with the process, so a server that starts slowly answers server/discover
    after the probe gave up, then refuses `initialize` with -32022 naming the modern revision it speaks.
    Both are proof of a modern server: mcpx must end up connected, not fail."""
    proc = call(
        EVERYTHING, "--probe-timeout", "0.1", "--method", "tools/call", "--tool-name", "echo",
        "--tool-arg", "text=late", "--traffic",
    )  # fmt: skip
    assert proc.text() == "late"
