"""Tools whose names and shapes agent hosts reject or mangle; `grow` adds a tool and says list_changed.

Names: `read.file` (a dot), `x` twice (a duplicate), a 70-character name, `silent` (no description),
`scalar` (an input schema that is not an object). usage: odd_names.py [server name for the log]
"""

import bare

TOOLS = [
    bare.tool("read.file", path=None),
    bare.tool("x"),
    bare.tool("x"),
    bare.tool("a_tool_whose_name_goes_on_and_on_well_past_what_hosts_accept_in_total"),
    {"name": "silent", "inputSchema": {"type": "object"}},
    {"name": "scalar", "description": "Takes a bare string.", "inputSchema": {"type": "string"}},
    bare.tool("grow"),
]


def grow(message):
    TOOLS.append(bare.tool(f"grown_{len(TOOLS)}"))
    bare.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    return bare.text("grew")


bare.serve(
    name="odd-names",
    tools=TOOLS,
    calls={"grow": grow},
    capabilities={"tools": {"listChanged": True}},
)
