"""The session service's parts (the service itself is still agent/service.py; the lead's regrouping moves it here)."""
