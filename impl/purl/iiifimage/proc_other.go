//go:build !linux

package iiifimage

import "os/exec"

// startTied starts cmd; outside Linux there is no parent-death signal, so
// a killed server's builder finishes on its own (its directory is removed
// at the next start).
func startTied(cmd *exec.Cmd) (done func(), err error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return func() {}, nil
}
