"""The terminal client and the `tractor` command."""
