"""The network: the table server, remote seats and remote bots over TCP or TLS."""
