# expect: wrong subtraction
def add(a, b):
    return a - b
