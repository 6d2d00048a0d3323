# The version of a checkout: Maven's 0.1.0-SNAPSHOT as PEP 440 spells it. bin/make-wheel writes the wheel's own
# (with the commit, and ".dirty" when the tree had changes); test_install.py checks the two agree with the CLI's.
__version__ = "0.1.0.dev0"
