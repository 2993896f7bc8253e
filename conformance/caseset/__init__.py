"""Case files: loading and checking them, selecting cases, and making their inputs."""
