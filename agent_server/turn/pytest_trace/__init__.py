"""The pytest plugin `failure_path.py` loads into a failing test run (this folder goes on its PYTHONPATH)."""
