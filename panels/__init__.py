"""The View3D sidebar panel ("Reach"): draw code only."""


def register() -> None:
    """Register panel classes."""


def unregister() -> None:
    """Unregister panel classes."""
