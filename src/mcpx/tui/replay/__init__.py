"""Recordings in the TUI: replay with a scrubber, the catalogue as of a moment, the recorded calls."""
