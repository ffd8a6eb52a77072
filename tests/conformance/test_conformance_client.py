"""The official conformance suite (npm `@modelcontextprotocol/conformance`, pinned in package.json) grading
mcpx as a client over Streamable HTTP, through the adapter beside this file.

Cheap by batching: each requirement set (`--requirements 2025-11-25`, `--requirements 2026-07-28`) runs
once, all its scenarios at once in one suite process (one Node start instead of one per scenario, about
0.5 s of CPU each), and every test reads its scenario's verdict from that run's `checks.json`. A scenario
that did not pass in the crowd (the timing-sensitive `sse-retry`, or a sign-in slowed past a timeout on a
loaded machine) is run again on its own once, as the SDKs' conformance jobs re-run failures solo; only
that verdict counts. Scenarios outside both sets (2025-03-26 back-compat, the Skills extension) run solo.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "node_modules" / ".bin"
ADAPTER = Path(__file__).with_name("client.py")

pytestmark = pytest.mark.npm


def _node_major() -> int:
    node = shutil.which("node", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if node is None:
        return 0
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    match = re.match(r"v(\d+)", version)
    return int(match.group(1)) if match else 0


def conformance(*selection: str, out: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    # `exec`: the harness runs the command through /bin/sh and its timeout kills only that shell otherwise
    command = f"exec {shlex.quote(sys.executable)} {shlex.quote(str(ADAPTER))}"
    return subprocess.run(
        [str(BIN / "conformance"), "client", "--command", command, *selection, "--timeout", "60000",
         "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"},
        cwd=ROOT,
    )  # fmt: skip


def run_scenario(scenario: str, version: str, out: Path) -> subprocess.CompletedProcess[str]:
    # extension scenarios are on no spec timeline: they run at the harness's default revision
    revision = [] if version == "extension" else ["--spec-version", version]
    return conformance("--scenario", scenario, *revision, out=out)


def checks_of(out: Path, scenario: str) -> list[dict] | None:
    """The checks a run saved for `scenario`: `<out>/<scenario>-<timestamp>/checks.json` (`auth/dpop` and
    `auth/dpop-nonce` share a prefix, so the timestamp is matched whole)."""
    parent, _, name = f"{out}/{scenario}".rpartition("/")
    stamp = re.compile(re.escape(name) + r"-\d{4}-\d{2}-\d{2}T[\d-]+Z")
    found = [p for p in Path(parent).glob(f"{name}-*") if stamp.fullmatch(p.name)]
    if len(found) != 1 or not (found[0] / "checks.json").exists():
        return None
    return json.loads((found[0] / "checks.json").read_text())


def verdict(checks: list[dict] | None) -> bool:
    """Passed only with at least one passed check and no failure or warning (the suite's own rule)."""
    statuses = [check.get("status") for check in checks or []]
    return "SUCCESS" in statuses and not any(status in ("FAILURE", "WARNING") for status in statuses)


def passed(proc: subprocess.CompletedProcess[str], out: Path, scenario: str) -> bool:
    return proc.returncode == 0 and verdict(checks_of(out, scenario))


#: the handshake era's scenarios (issue 8, and SEP-1034 defaults from issue 9) at 2025-11-25
LEGACY = ["initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults"]
#: every client scenario of `--requirements 2026-07-28` that is not about authorization, and the
#: JSON Schema 2020-12 preservation scenario (run there but not scored; strictest at this revision)
MODERN = [
    "tools_call",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
    "json-schema-2020-12-preservation",
]


#: the authorization scenarios of `--requirements 2025-11-25` (listed with `conformance list --client`)
AUTH = [
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
]
#: the authorization scenarios only `--requirements 2026-07-28` has
AUTH_2026 = [
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
]
#: the 2025-03-26 back-compat scenarios (no PRM; metadata at the root, or the default endpoints)
AUTH_2025_03_26 = ["auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback"]
#: extension scenarios (run by the suite, not scored): the no-person grants (client credentials with a
#: secret or a private_key_jwt assertion, enterprise-managed authorization, workload identity), DPoP-bound
#: tokens with and without server nonces; the Skills extension (SEP-2640): no prefetch, and a SKILL.md
#: that fails its digest, size or frontmatter is not used
EXTENSIONS = [
    "auth/client-credentials-basic",
    "auth/client-credentials-jwt",
    "auth/enterprise-managed-authorization",
    "auth/dpop",
    "auth/dpop-nonce",
    "auth/wif-jwt-bearer",
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
]


@pytest.mark.skipif(not (BIN / "conformance").exists(), reason="npm test peers not installed (scripts/test)")
@pytest.mark.skipif(_node_major() < 22, reason="the conformance suite needs Node >= 22")
@pytest.mark.parametrize(
    ("scenario", "version"),
    [(name, "2025-11-25") for name in LEGACY + AUTH]
    + [(name, "2026-07-28") for name in MODERN + AUTH + AUTH_2026]
    + [(name, "2025-03-26") for name in AUTH_2025_03_26]
    + [(name, "extension") for name in EXTENSIONS],
)
def test_client_scenario(
    scenario: str, version: str, requirement_runs: Callable[[str], Path], tmp_path: Path
) -> None:
    # the requirement sets' runs include the auth extensions too (not scored there)
    batch = (
        version if version in REQUIREMENT_SETS else REQUIREMENT_SETS[0] if version == "extension" else None
    )
    if batch is not None and verdict(checks_of(requirement_runs(batch), scenario)):
        return
    out = tmp_path / "solo"
    proc = run_scenario(scenario, version, out)
    assert passed(proc, out, scenario), f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"


#: the requirement sets run whole, once each, all scenarios at once
REQUIREMENT_SETS = ("2025-11-25", "2026-07-28")


@pytest.fixture(scope="module")
def requirement_runs(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """`--requirements REVISION` run once (on first need) for the whole module: where its results are."""
    runs: dict[str, Path] = {}

    def run(revision: str) -> Path:
        if revision not in runs:
            out = tmp_path_factory.mktemp(f"requirements-{revision}")
            # a run cut short leaves the verdicts it has: the rest are run solo
            with contextlib.suppress(subprocess.TimeoutExpired):
                conformance("--requirements", revision, out=out, timeout=400)
            runs[revision] = out
        return runs[revision]

    return run
