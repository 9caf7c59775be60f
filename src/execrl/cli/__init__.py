"""The execrl command line; one module per command group."""
