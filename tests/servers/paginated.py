"""Serves tools, resources, templates and prompts in pages linked by nextCursor.

usage: paginated.py [items per list, default 7] [page size, default 3]
Cursors are opaque strings ("page-<n>"); an unknown cursor gets -32602.
"""

import sys

import bare

COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 7
PAGE = int(sys.argv[2]) if len(sys.argv) > 2 else 3

ITEMS = {
    "tools": [bare.tool(f"tool-{i}") for i in range(COUNT)],
    "resources": [{"uri": f"test://item/{i}", "name": f"item-{i}"} for i in range(COUNT)],
    "resourceTemplates": [{"uriTemplate": f"test://tpl{i}/{{x}}", "name": f"tpl-{i}"} for i in range(COUNT)],
    "prompts": [{"name": f"prompt-{i}"} for i in range(COUNT)],
}


def pages(key):
    def handler(message):
        cursor = (message.get("params") or {}).get("cursor")
        start = 0
        if cursor is not None:
            if not str(cursor).startswith("page-"):
                bare.error(message["id"], -32602, f"invalid cursor {cursor!r}")
                return bare.NO_ANSWER
            start = int(cursor[5:]) * PAGE
        page = {key: ITEMS[key][start : start + PAGE]}
        if start + PAGE < COUNT:
            page["nextCursor"] = f"page-{start // PAGE + 1}"
        return page

    return handler


bare.serve(
    name="paginated",
    capabilities={"tools": {}, "resources": {}, "prompts": {}},
    methods={
        "tools/list": pages("tools"),
        "resources/list": pages("resources"),
        "resources/templates/list": pages("resourceTemplates"),
        "prompts/list": pages("prompts"),
    },
)
