"""What every face shares: the core started one way (`face_host.py`), the one exception -> JSON-RPC error table
(`rpc_errors.py`), stdin read without blocking the event loop (`stdin.py`). A face imports these, never another face."""
