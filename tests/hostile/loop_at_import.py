"""Loops forever at import: loading must time out."""
while True:
    pass
