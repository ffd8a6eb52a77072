from mcpx.cli.main import run

run()
