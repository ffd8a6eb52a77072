"""The server's catalogue: the browser of tools, resources, templates and prompts, and each item's detail
panel.
"""
