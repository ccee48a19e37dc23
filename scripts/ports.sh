# Sourced by the benchmark scripts that start servers on loopback.

# N free TCP ports on 127.0.0.1, space-separated (bound at once, so all distinct).
free_ports() {
    python3 -c "import socket
s = [socket.socket() for _ in range($1)]
[x.bind(('127.0.0.1', 0)) for x in s]
print(*[x.getsockname()[1] for x in s])"
}

# Wait up to 60 s for something to listen on 127.0.0.1:PORT; exit the script if nothing does.
wait_port() {
    for _ in $(seq 600); do
        (echo > /dev/tcp/127.0.0.1/$1) 2> /dev/null && return
        sleep 0.1
    done
    echo "port $1 never opened" >&2
    exit 1
}
