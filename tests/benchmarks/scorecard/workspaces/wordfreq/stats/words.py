import re

WORD = re.compile(r"[a-z']+")


def words(text):
    return WORD.findall(text.lower())
