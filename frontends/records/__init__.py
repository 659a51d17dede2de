"""For auditors and players: audit, replay, convert records, and the signing key."""
