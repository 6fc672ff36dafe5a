"""Rule systems, the game log, the tablet web app and the command line."""
