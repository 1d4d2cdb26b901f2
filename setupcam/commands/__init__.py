"""One module per `setupcam` subcommand; each exposes `register(subparsers)`."""
