"""execrl: turn running code into training signal for code-generating language models."""

from execrl.sandbox import run

__version__ = "0.1.0"

__all__ = ["__version__", "run"]
