"""`python -m mcpx.demo`: the demo MCP server on stdio."""

import sys

from mcpx.demo.app import main

sys.exit(main())
