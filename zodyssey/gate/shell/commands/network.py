"""Downloads: curl and wget write the files they are told to."""

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg
from zodyssey.gate.shell.words import (
    has_option,
    option_values,
    split_options,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zodyssey.gate.shell.commands import Walker


_CURL_FILE_OPTIONS = (
    "-o",
    "--output",
    "-D",
    "--dump-header",
    "-c",
    "--cookie-jar",
    "--trace",
    "--trace-ascii",
    "--stderr",
    "--libcurl",
    "--etag-save",
    "--hsts",
    "--alt-svc",
)
_CURL_UNBOUNDED = (
    "-O",
    "--remote-name",
    "--remote-name-all",
    "-J",
    "--remote-header-name",
    "--output-dir",
    "-K",
    "--config",
    "--create-dirs",
)


@handles("curl")
def _curl(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    options, _ = split_options(
        args,
        "oDcHdXuAebFmwxTrCYyzEKQtU",
        (
            *_CURL_FILE_OPTIONS,
            "--header",
            "--data",
            "--data-raw",
            "--data-binary",
            "--data-urlencode",
            "--request",
            "--user",
            "--user-agent",
            "--referer",
            "--cookie",
            "--form",
            "--max-time",
            "--write-out",
            "--proxy",
            "--upload-file",
            "--range",
            "--url",
            "--connect-timeout",
            "--retry",
            "--retry-delay",
            "--retry-max-time",
            "--cacert",
            "--cert",
            "--key",
            "--resolve",
            "--json",
            "--config",
            "--output-dir",
            "--time-cond",
            "--quote",
        ),
    )
    names = {name for name, _ in options}
    if names & set(_CURL_UNBOUNDED) or any(
        "%output{" in (v or "\0") for v in option_values(options, "-w", "--write-out")
    ):
        w.unknown(text, "curl writes files it does not name")
        return cwd
    outputs = option_values(options, *_CURL_FILE_OPTIONS)
    outputs = [v for v in outputs if v != "-"]
    if outputs:
        w.write(text, cwd, [Arg(v) for v in outputs], "curl writes a file")
    else:
        w.read(text)
    return cwd


@handles("wget")
def _wget(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    options, _ = split_options(
        args,
        "OoaPeUtTwQ",
        (
            "--output-document",
            "--output-file",
            "--append-output",
            "--directory-prefix",
            "--user-agent",
            "--tries",
            "--timeout",
            "--wait",
            "--quota",
            "--header",
        ),
    )
    documents = option_values(options, "-O", "--output-document")
    logs = option_values(options, "-o", "--output-file", "-a", "--append-output")
    if not documents or has_option(
        options,
        "-P",
        "--directory-prefix",
        "-e",
        "--execute",
        "-b",
        "--background",
        "--config",
    ):
        w.unknown(text, "wget saves downloads under names it does not state")
        return cwd
    files = [Arg(v) for v in [*documents, *logs] if v != "-"]
    if files:
        w.write(text, cwd, files, "wget writes a file")
    else:
        w.read(text)
    return cwd
