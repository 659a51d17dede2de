"""The daily deal: 8 deals a day for everyone, committed at the start, revealed at the close."""
