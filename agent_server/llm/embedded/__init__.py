"""The embedded provider: llama.cpp (from the `xllamacpp` wheel) run by agent-server itself, in a child process.

`catalogue` names the models it can fetch, `download` fetches and verifies them into the user's cache, `runner` is
the child process, `server` starts, shares and stops it. Once running it is an ordinary llama.cpp server, so the
OpenAI-compatible provider and its `/props` discovery do the rest.
"""
