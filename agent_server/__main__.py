from .launch import main

if __name__ == "__main__":  # the index's worker processes (spawn) import this module too
    raise SystemExit(main())
