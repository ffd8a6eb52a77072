"""Many servers at once: the workspace and agent's-view tables, opening one in the inspector."""
