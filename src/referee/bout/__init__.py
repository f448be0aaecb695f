"""The bout engine: commands in, events out, state as a fold of events."""
