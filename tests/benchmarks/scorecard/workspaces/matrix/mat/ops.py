def transpose(m):
    n = len(m)
    return [[m[j][i] for j in range(n)] for i in range(n)]


def shape(m):
    return (len(m), len(m[0]) if m else 0)
