"""The line protocol: event text, records, the sans-I/O session and process clients."""
