"""The viewport overlay: each Reach constraint's goal as shapes in world coordinates."""
