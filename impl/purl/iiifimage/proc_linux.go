//go:build linux

package iiifimage

import (
	"os/exec"
	"runtime"
	"syscall"
)

// startTied starts cmd so that it cannot outlive the server: the kernel
// kills it (SIGKILL) when the thread that started it ends, which the
// locked thread makes the same as the server process ending (kill -9
// included); it runs in a process group of its own, which a timeout kills
// whole. The caller must call the returned function after cmd.Wait.
func startTied(cmd *exec.Cmd) (done func(), err error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	// Pdeathsig fires when the starting OS thread exits, not the process:
	// the goroutine keeps its thread until the child has been waited for,
	// so the Go runtime cannot retire that thread under a running child.
	runtime.LockOSThread()
	if err := cmd.Start(); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	return runtime.UnlockOSThread, nil
}
