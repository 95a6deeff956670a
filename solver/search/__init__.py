"""Global search around the local methods: where to start again after a local minimum, and
goals no pose can meet (cut short before any restart)."""
