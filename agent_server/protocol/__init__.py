"""The editor-facing adapter: the only package that knows pygls and LSP."""
