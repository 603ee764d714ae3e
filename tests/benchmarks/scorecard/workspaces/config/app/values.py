def parse_bool(text):
    return text.strip() in ("true", "yes", "1", "on", "True", "False")
