"""Tables over the network: ``xactika serve`` and ``xactika connect``."""
