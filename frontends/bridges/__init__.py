"""The AI bridges: OpenSpiel games and PettingZoo environments, and their encoding."""
