package main

import (
	"strings"
	"testing"
)

// Socket activation meant for another process is refused by name, not
// taken for this one's socket.
func TestListenRefusesAnotherProcessesSockets(t *testing.T) {
	t.Setenv("LISTEN_FDS", "1")
	t.Setenv("LISTEN_PID", "1")
	ln, activated, err := listen("127.0.0.1:0")
	if err == nil {
		ln.Close()
		t.Fatal("listen took a socket passed to process 1")
	}
	if !activated || !strings.Contains(err.Error(), "LISTEN_PID") {
		t.Fatalf("listen: activated=%v, %v", activated, err)
	}
}

// Without socket activation, listen opens addr itself.
func TestListenOnAddr(t *testing.T) {
	t.Setenv("LISTEN_FDS", "")
	ln, activated, err := listen("127.0.0.1:0")
	if err != nil || activated {
		t.Fatalf("listen: activated=%v, %v", activated, err)
	}
	ln.Close()
}
