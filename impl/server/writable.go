package server

import (
	"fmt"
	"os"
)

// Writable reports whether a file can be created in dir, by creating and
// removing one: a service whose data directory is read-only (a read-only
// mount, a full disk, lost permissions) can still answer reads, but it is
// not ready for writes, and /readyz must say so. Services call it from
// Ready for each directory they write to. The probe is a few bytes of
// metadata; /readyz is called every few seconds at most.
func Writable(dir string) error {
	f, err := os.CreateTemp(dir, ".readyz-probe-*")
	if err != nil {
		return fmt.Errorf("not ready for writes: %s is not writable: %w", dir, err)
	}
	name := f.Name()
	if err := f.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("not ready for writes: closing a probe in %s: %w", dir, err)
	}
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("not ready for writes: removing a probe in %s: %w", dir, err)
	}
	return nil
}
