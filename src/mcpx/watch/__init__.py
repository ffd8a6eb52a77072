"""`mcpx watch`: restart a stdio server when its source changes, show what its catalogue became, re-run
its collection. A feature standing on `mcpx.record` (the catalogue diff) and the protocol's front door; the
CLI prints its cycles, the TUI (`mcpx inspect --watch`) restarts through its own connection and uses the
pieces here (`paths`, `changes`, `report`).

    plan = WatchPlan.for_spec(spec, tests="server.mcpx.yaml")
    await Watcher(spec, options, plan, on_event=print).run()      # until stop() or Ctrl-C

`watchfiles` (and the anyio it runs on) is imported only when files are watched.
"""
