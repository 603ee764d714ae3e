"""Inline completion: fill-in-the-middle with repository context, served by `textDocument/inlineCompletion`.

`service.py` (debounce, supersede, cache, stream, trim), `backends.py` (llama.cpp `/infill`, Ollama `/api/generate`,
OpenAI-compatible `/v1/completions`), `endpoint.py` (which server and model), `templates.py` (each family's FIM
tokens), `context.py` (ring of recent chunks, definitions from the index), `trim.py` (where a suggestion ends),
`window.py` (the lines around the cursor, cut from the document's chunks).
"""

__all__: list[str] = []
