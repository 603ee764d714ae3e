"""The small-model guards of a turn: answers that announce work and stop, deflections, repeating streams, repeated
tool calls, tool definitions a server dropped. Each is a verdict the loop acts on (seeds 002 and 003)."""
