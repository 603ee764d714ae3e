"""The turn loop and its steps (being regrouped here from agent/, issue 24)."""
