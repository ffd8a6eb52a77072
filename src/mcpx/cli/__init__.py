"""The command-line face (typer). Never imports Textual unless a command opens the TUI."""
