"""`python -m crlookup.builder grow ROOT`: the background build of the editions still to come."""

import sys

from crlookup.builder.pipeline import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
