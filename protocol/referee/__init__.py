"""The referee protocol (spec/PROTOCOL.md): the sans-I/O session and its stdio loop."""
