"""The rules engine every game shares: settings, events, the fold, views, log checks."""
