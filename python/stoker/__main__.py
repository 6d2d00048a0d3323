"""``python -m stoker ...`` and the ``stoker`` console script: the command line, run from the bundle in this
package (or the checkout it sits in)."""
import os
import sys
from typing import List, Optional

from ._errors import StokerError
from ._home import stoker_command


def main(argv: Optional[List[str]] = None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        # Not PATH: the console script that runs this is on PATH itself.
        command = stoker_command(search_path=False)
    except StokerError as e:
        print(f"stoker: {e}", file=sys.stderr)
        sys.exit(1)
    # The launcher takes this process's place: its exit status, signals and terminal are the user's.
    os.execv(command, [command] + args)


if __name__ == "__main__":
    main()
