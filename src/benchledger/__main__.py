"""``python -m benchledger`` runs the command line."""

from benchledger.cli import main

main()
