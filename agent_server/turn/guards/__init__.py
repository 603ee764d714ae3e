"""Small-model guards around the turn loop."""
