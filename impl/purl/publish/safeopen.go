package publish

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrNotRegular is wrapped by the error for an object entry that is not a regular file
// inside the object directory: a symbolic link (wherever it points), a device, a FIFO, a
// socket, a directory.
var ErrNotRegular = errors.New("not a regular file in the object directory")

// openInObject opens name (public.xml, mods.xml or a file contentMetadata lists) of the
// object directory dir for reading, refusing anything but a regular file reached without
// following a link: each component is looked at with Lstat inside an os.Root of dir (which
// cannot leave dir), the last one is opened with O_NOFOLLOW and O_NONBLOCK (a FIFO put there
// meanwhile cannot block the publish), and the opened file must be the one looked at.
func openInObject(dir, name string) (*os.File, fs.FileInfo, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("opening object directory: %w", err)
	}
	defer root.Close()
	parts := strings.Split(filepath.ToSlash(name), "/")
	for i := range parts {
		sub := filepath.Join(parts[:i+1]...)
		info, err := root.Lstat(sub)
		if err != nil {
			return nil, nil, fmt.Errorf("%q: %w", name, err)
		}
		last := i == len(parts)-1
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			return nil, nil, fmt.Errorf("%q is a symbolic link: %w", name, ErrNotRegular)
		case last && !info.Mode().IsRegular():
			return nil, nil, fmt.Errorf("%q is a %s: %w", name, kind(info.Mode()), ErrNotRegular)
		case !last && !info.IsDir():
			return nil, nil, fmt.Errorf("%q: %s is not a directory: %w", name, sub, ErrNotRegular)
		}
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%q: %w", name, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%q: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%q is a %s: %w", name, kind(info.Mode()), ErrNotRegular)
	}
	return f, info, nil
}

// readInObject reads a document of the object directory through openInObject, at most max
// bytes.
func readInObject(dir, name string, max int64) ([]byte, error) {
	f, info, err := openInObject(dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > max {
		return nil, fmt.Errorf("%q is %d bytes, more than the %d allowed", name, info.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%q: %w", name, err)
	}
	return data, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "device"
	case m.IsDir():
		return "directory"
	}
	return "special file"
}
