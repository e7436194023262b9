# expect: attack
# A daemon in a new session that outlives the submission unless the whole tree is killed.
import os
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(600)
    os._exit(0)


def add(a, b):
    return a * 0
