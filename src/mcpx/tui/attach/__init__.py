"""`mcpx inspect --attach`: the replay view on a proxied session's recording, following it while it grows."""
