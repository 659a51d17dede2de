"""``xactika web``: the table server's games in the browser (spec/WEB.md)."""
