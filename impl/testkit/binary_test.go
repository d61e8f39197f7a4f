package testkit

import (
	"net"
	"net/http"
	"strings"
	"testing"
)

// A port taken by another server between freePort and the child's bind must
// not pass for the child being ready, even when that server answers /readyz.
func TestStartRefusesSomeoneElsesServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	decoy := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ready\n")) })}
	go decoy.Serve(ln)
	defer decoy.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	s, err := start(Binary(t), RepoRoot(t), t.TempDir(), port, []string{"--services", "purl"})
	if err == nil {
		s.kill()
		t.Fatal("start took the decoy on its port for the sitesvc it started")
	}
	if !strings.Contains(err.Error(), "exited before it was ready") {
		t.Errorf("start: %v", err)
	}
}

func TestListeningLine(t *testing.T) {
	for logs, want := range map[string]bool{
		"time=x level=INFO msg=listening addr=127.0.0.1:8080\n":                 true,
		"time=x level=INFO msg=listening addr=127.0.0.1:80801\n":                false,
		`{"time":"x","level":"INFO","msg":"listening","addr":"127.0.0.1:8080"}`: true,
		"msg=serve failed addr=127.0.0.1:8080\n":                                false,
	} {
		if got := listening(logs, "127.0.0.1:8080"); got != want {
			t.Errorf("listening(%q) = %v", logs, got)
		}
	}
}
