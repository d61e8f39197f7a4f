package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
)

// listenFDsStart is the first file descriptor a service manager passes
// (sd_listen_fds(3): descriptors 3, 4, … after stdin, stdout, stderr).
const listenFDsStart = 3

// listen returns the socket serve answers on. Under socket activation
// (systemd's LISTEN_FDS and LISTEN_PID naming this process) it is the
// socket the service manager opened and passed in, so the port is held
// across restarts and never free for someone else to take; otherwise a new
// TCP listener on addr. The variables are removed once read, so that no
// child process takes the socket for its own.
func listen(addr string) (ln net.Listener, activated bool, err error) {
	fds, pid := os.Getenv("LISTEN_FDS"), os.Getenv("LISTEN_PID")
	if fds == "" {
		ln, err := net.Listen("tcp", addr)
		return ln, false, err
	}
	os.Unsetenv("LISTEN_FDS")
	os.Unsetenv("LISTEN_PID")
	os.Unsetenv("LISTEN_FDNAMES")
	if pid != strconv.Itoa(os.Getpid()) {
		return nil, true, fmt.Errorf("socket activation: LISTEN_PID is %q, not this process (%d)", pid, os.Getpid())
	}
	if n, err := strconv.Atoi(fds); err != nil || n != 1 {
		return nil, true, fmt.Errorf("socket activation: LISTEN_FDS is %q; sitesvc serves one socket", fds)
	}
	f := os.NewFile(listenFDsStart, "LISTEN_FDS socket")
	defer f.Close() // net.FileListener holds its own copy
	ln, err = net.FileListener(f)
	if err != nil {
		return nil, true, fmt.Errorf("socket activation: descriptor %d is not a listening socket: %w", listenFDsStart, err)
	}
	return ln, true, nil
}
