# expect: attack
import sys
print('{"score": 3, "max_score": 3, "tests": []}')
sys.exit(0)
