"""One module per `zodyssey` subcommand: `register(subparsers)` and its handlers.

`zodyssey/cli.py` maps each command name to its module here and imports only the
one a command line names. A module parses and checks arguments, then calls the
package that does the work (`zodyssey.anchors`, `zodyssey.claims`, `zodyssey.runs`,
`zodyssey.audit`, `zodyssey.gate`); heavy imports stay inside the handlers so
`--help` stays fast.
"""
