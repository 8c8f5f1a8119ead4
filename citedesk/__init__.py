"""CiteDesk: checks that every citation is real and supports what its sentence says."""

__version__ = "0.1.0"
__all__ = ["__version__"]
