"""The player protocol (spec/PLAYER.md): the bot side, the host side, the Python API."""
