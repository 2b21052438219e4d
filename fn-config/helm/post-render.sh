#!/bin/sh
# Runs the function on the chart's stream (stdin) and the plugin's arguments. Helm 4 keeps a
# post-renderer plugin's stderr to itself ("plugin ... exited with error" is all it says), so
# the function's messages go to Helm's own stderr where this process can share it: a
# terminal, a pipe, or a file Helm appends to (`2>>`). Not a socket, which Linux does not
# let a process open through /proc, nor a file Helm writes without appending (`2>file`),
# where Helm's own error would land over the function's: there the messages are dropped, as
# Helm drops them.
helm_stderr="/proc/$PPID/fd/2"

shareable() {
    [ -w "$helm_stderr" ] || return 1
    if [ -f "$helm_stderr" ]; then
        flags=$(sed -n 's/^flags:[[:space:]]*//p' "/proc/$PPID/fdinfo/2" 2>/dev/null)
        # O_APPEND is 02000; fdinfo prints the flags in octal with a leading 0.
        [ -n "$flags" ] && [ $((flags & 02000)) -ne 0 ] || return 1
    fi
    # In a subshell: a redirection that fails ends the shell that runs `:`.
    (: >>"$helm_stderr") 2>/dev/null
}

if shareable; then
    exec render-inference-identity render - "$@" 2>>"$helm_stderr"
fi
exec render-inference-identity render - "$@"
