"""The History tab: calls as they finished, loaded back into a form, saved for the server."""
