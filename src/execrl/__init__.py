"""execrl: turn running code into training signal for code-generating language models."""

__version__ = "0.1.0"
