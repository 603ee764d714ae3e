from .values import parse_bool


def load(lines):
    out = {}
    for line in lines:
        if "=" not in line:
            continue
        key, value = (part.strip() for part in line.split("=", 1))
        out[key] = parse_bool(value) if key in ("debug", "verbose") else value
    return out
