"""Built-in bots: the agent protocol and registry, heuristics, sampler and search."""
