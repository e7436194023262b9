# expect: correct
def add(a, b):
    return a + b
