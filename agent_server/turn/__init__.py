"""The turn and its steps (the loop itself still lives in agent/loop.py until the regrouping of issue 24)."""
