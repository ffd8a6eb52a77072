#!/usr/bin/env bash
# Copy the official MCP JSON Schemas from a checkout of the specification repository into
# src/mcpx/check/schemas/ (byte for byte), and print the commit and the checksums for its README.md.
#   scripts/vendor_mcp_schemas.sh PATH/TO/modelcontextprotocol [COMMIT]
set -euo pipefail
repo=$1
commit=${2:-HEAD}
out=$(dirname "$0")/../src/mcpx/check/schemas
for revision in 2024-11-05 2025-03-26 2025-06-18 2025-11-25 2026-07-28; do
  git -C "$repo" show "$commit:schema/$revision/schema.json" > "$out/$revision.json"
done
echo "Commit: $(git -C "$repo" rev-parse "$commit")"
(cd "$out" && sha256sum ./*.json)
