# Sourced by the scripts that start `mien serve --port 0` in the background (api-check, live-check, study-check).
# serve_port LOG PID: prints the port the service says it listens on (its first line in LOG), waiting up to 10 s;
# fails with LOG shown when the process exits first or never says.
serve_port() {
    local log=$1 pid=$2 port=""
    for _ in $(seq 100); do
        port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$log")
        [ -n "$port" ] && { echo "$port"; return 0; }
        kill -0 "$pid" 2>/dev/null || { echo "mien serve exited: $(cat "$log")" >&2; return 1; }
        sleep 0.1
    done
    echo "mien serve did not say where it listens: $(cat "$log")" >&2
    return 1
}
