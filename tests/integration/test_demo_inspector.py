"""The demo server through the official MCP Inspector's CLI (npm `@modelcontextprotocol/inspector --cli`),
in each of its protocol eras. Needs the npm peers (Node >= 22.19 and the inspector in node_modules)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
pytestmark = [pytest.mark.npm, pytest.mark.timeout(120)]


def _node() -> str | None:
    """A Node the inspector accepts (>= 22.19): the npm peers' own first, then the PATH's."""
    for candidate in (ROOT / "node_modules/.bin/node", shutil.which("node")):
        if candidate is None or not os.path.exists(candidate):
            continue
        version = subprocess.run([str(candidate), "--version"], capture_output=True, text=True).stdout
        major, minor = (int(part) for part in version.lstrip("v").split(".")[:2])
        if (major, minor) >= (22, 19):
            return str(candidate)
    return None


NODE = _node()
if NODE is None or not LAUNCHER.exists():
    pytest.skip(
        "needs the npm peers: @modelcontextprotocol/inspector in node_modules and Node >= 22.19",
        allow_module_level=True,
    )


def inspector(*args: str, era: str = "legacy") -> tuple[int, Any, str]:
    """Run the inspector's CLI on the demo server; (exit code, the JSON it printed, its stderr)."""
    command = [NODE, str(LAUNCHER), "--cli", sys.executable, "-m", "mcpx.demo", "--protocol-era", era]
    proc = subprocess.run([*command, *args, "--format", "json"], capture_output=True, text=True, timeout=90)
    out = proc.stdout.strip() or proc.stderr.strip().splitlines()[-1]
    return proc.returncode, json.loads(out), proc.stderr


@pytest.mark.parametrize("era", ["legacy", "modern", "auto"])
def test_the_inspector_lists_the_tools(era: str) -> None:
    code, out, _ = inspector("--method", "tools/list", era=era)
    assert code == 0
    names = [tool["name"] for tool in out["result"]["tools"]]
    assert len(names) == 20 and names[:3] == ["echo", "add", "weather"]


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_the_inspector_calls_tools(era: str) -> None:
    code, echo, _ = inspector(
        "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi", era=era
    )
    assert code == 0 and echo["result"]["content"] == [{"type": "text", "text": "hi"}]
    if era == "modern":
        assert echo["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mcpx-demo"
    order = {
        "customer": {"name": "Ann"},
        "items": [{"sku": "TEA-001", "quantity": 2}],
        "metadata": {"k": "v"},
    }
    code, placed, _ = inspector(
        "--method", "tools/call", "--tool-name", "place_order", "--tool-args-json", json.dumps(order), era=era
    )
    assert code == 0 and placed["result"]["structuredContent"] == {"received": order}
    code, weather, _ = inspector(
        "--method", "tools/call", "--tool-name", "weather", "--tool-arg", "city=Oslo", era=era
    )
    assert code == 0 and weather["result"]["structuredContent"]["city"] == "Oslo"
    code, failed, stderr = inspector("--method", "tools/call", "--tool-name", "fail", era=era)
    assert code == 5 and failed["result"]["isError"] is True
    assert json.loads(stderr.strip().splitlines()[-1])["error"]["code"] == "tool_is_error"


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_the_inspector_reads_resources_and_prompts(era: str) -> None:
    code, listed, _ = inspector("--method", "resources/list", era=era)
    assert code == 0 and [r["uri"] for r in listed["result"]["resources"]][:3] == [
        "demo://readme", "demo://config.json", "demo://logo.png"
    ]  # fmt: skip
    code, read, _ = inspector("--method", "resources/read", "--uri", "demo://weather/Rome/today", era=era)
    assert code == 0 and json.loads(read["result"]["contents"][0]["text"])["day"] == "today"
    code, templates, _ = inspector("--method", "resources/templates/list", era=era)
    assert code == 0 and len(templates["result"]["resourceTemplates"]) == 2
    code, prompt, _ = inspector(
        "--method", "prompts/get", "--prompt-name", "greeting", "--prompt-args", "name=Ann", "language=french",
        era=era,
    )  # fmt: skip
    assert code == 0
    assert prompt["result"]["messages"][0]["content"]["text"] == "Greet Ann in a casual way, in french."
