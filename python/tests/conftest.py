import os
import sys

# The reference beside the tests, importable under --import-mode=importlib.
sys.path.insert(0, os.path.dirname(__file__))
