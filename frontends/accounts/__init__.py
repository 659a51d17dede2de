"""People who come back: accounts, sessions and ratings of a web site (``--site DIR``)."""
