"""The ``harness`` commands, one module per family; each command parses options and calls the library."""
