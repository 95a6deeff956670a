"""Writing to the scene: keys in bulk, keying sets, auto-keying, and the state saved before a
job to put back on failure or cancel."""
