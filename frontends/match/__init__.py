"""The match runner: processes, schedule, statistics and the bot checker."""
