package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A malformed --addr is reported as a malformed address, and --hours-db with a URL scheme
// other than postgres:// or postgresql:// is refused by its scheme, both before anything
// starts or touches the data directory (the first was "is another server running
// there?", the second a SQLite file named "mysql:" failing with "out of memory (14)").
func TestServeRefusesBadAddrAndDatabase(t *testing.T) {
	b := newLoneBinary(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--addr", "8080"}, `--addr: "8080" is not a listen address`},
		{[]string{"--addr", "localhost"}, `--addr: "localhost" is not a listen address`},
		{[]string{"--addr", ":99999"}, `port 99999 is not 0–65535`},
		{[]string{"--addr", ":eighty"}, `port "eighty" is neither a number nor a known service name`},
		{[]string{"--addr", "127.0.0.1:"}, `has no port`},
		{[]string{"--addr", "a b:80"}, `is not a host name or IP address`},
		{[]string{"--hours-db", "mysql://u:p@db.example.org/hours"}, `--hours-db: the mysql:// scheme is not supported: give a postgres:// (or postgresql://) URL`},
		{[]string{"--hours-db", "sqlite:///var/lib/hours.db"}, `the sqlite:// scheme is not supported`},
		{[]string{"--hours-db", "POSTGRES://db/hours"}, `write the scheme postgres:// in lower case`},
	} {
		data := filepath.Join(t.TempDir(), "data")
		out, stderr, err := b.run(t, append([]string{"serve", "--data", data}, c.args...)...)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("serve %s: %v\nstdout %q\nstderr %q\nwant %q", strings.Join(c.args, " "), err, out, stderr, c.want)
		}
		if strings.Contains(stderr, "another server") || strings.Contains(stderr, "service ready") {
			t.Errorf("serve %s: %s", strings.Join(c.args, " "), stderr)
		}
		if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("serve %s made the data directory: %v", strings.Join(c.args, " "), err)
		}
	}
	// Addresses and databases of every accepted form pass the checks.
	for _, ok := range []string{":8080", "127.0.0.1:0", "[::1]:8080", "localhost:http", "host.example.org:443"} {
		if err := checkAddr(ok); err != nil {
			t.Errorf("--addr %s: %v", ok, err)
		}
	}
	for _, ok := range []string{"", "/var/lib/sitesvc/hours.db", "hours.db", "postgres://u@db/hours?sslmode=require", "postgresql://db/hours"} {
		if err := checkHoursDB(ok); err != nil {
			t.Errorf("--hours-db %s: %v", ok, err)
		}
	}
}
