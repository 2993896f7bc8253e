import sys

from conformance.cli.command import main

sys.exit(main())
