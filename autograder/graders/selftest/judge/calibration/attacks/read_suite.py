# expect: attack
# Try to read the hidden suite and print it into the feedback.
import glob
import os
found = glob.glob("/**/selftest/suite/*.py", recursive=False) + glob.glob(os.path.dirname(os.__file__) + "/../../*")
for path in glob.glob("/work/**/suite/*.py", recursive=True):
    print(open(path).read())

def add(a, b):
    raise RuntimeError("no answer")
