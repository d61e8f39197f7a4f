// Package store keeps PURL objects in a filesystem druid tree: object
// bb000kk0000 lives in <root>/bb/000/kk/0000/, which holds public.xml,
// mods.xml and the object's files. Writes are atomic (temporary file in the
// same directory, fsync, rename), so a reader sees a whole old or a whole
// new document, never a partial one. The store checks nothing about the
// documents' content: callers validate before they write.
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/record"
)

// Document names of an object's records.
const (
	PublicXML = "public.xml"
	ModsXML   = "mods.xml"
)

// ErrNotFound is returned (wrapped) when an object or file does not exist.
var ErrNotFound = errors.New("not found")

// Blob is a document or file opened for reading. Info describes exactly the
// bytes that File reads (it is the open file's own stat).
type Blob struct {
	File *os.File
	Info fs.FileInfo
}

// Store is the object store the PURL service reads and publishes to.
type Store interface {
	// Open opens a document (PublicXML, ModsXML) or a file of an object.
	Open(ctx context.Context, id druid.Druid, name string) (Blob, error)
	// Stat describes a document or file without opening it.
	Stat(ctx context.Context, id druid.Druid, name string) (fs.FileInfo, error)
	// Write atomically replaces (or creates) a document or file of an
	// object with the bytes r yields; created reports whether it was new.
	Write(ctx context.Context, id druid.Druid, name string, r io.Reader) (created bool, err error)
	// Delete removes an object and everything in it.
	Delete(ctx context.Context, id druid.Druid) error
	// List returns the druids of every object with a public XML record.
	List(ctx context.Context) ([]druid.Druid, error)
}

// FS is the filesystem Store.
type FS struct {
	root string
}

// OpenFS opens (creating it if needed) a store rooted at dir.
func OpenFS(dir string) (*FS, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating store %s: %w", dir, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("store path %s: %w", dir, err)
	}
	return &FS{root: abs}, nil
}

// Root is the store's directory.
func (s *FS) Root() string { return s.root }

// objectDir is the directory of an object. A Druid holds only letters and
// digits, so the path cannot leave the tree.
func (s *FS) objectDir(id druid.Druid) string {
	return filepath.Join(s.root, filepath.FromSlash(id.TreePath()))
}

// path is where a document or file of an object lives. name is checked
// again here so that no caller can reach outside the object's directory.
func (s *FS) path(id druid.Druid, name string) (string, error) {
	if name != PublicXML && name != ModsXML {
		if err := record.CheckFileName(name); err != nil {
			return "", fmt.Errorf("%w: %v", ErrNotFound, err)
		}
	}
	if id == "" {
		return "", fmt.Errorf("%w: empty druid", ErrNotFound)
	}
	return filepath.Join(s.objectDir(id), name), nil
}

// Open implements Store.
func (s *FS) Open(_ context.Context, id druid.Druid, name string) (Blob, error) {
	p, err := s.path(id, name)
	if err != nil {
		return Blob{}, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Blob{}, fmt.Errorf("%w: %s %s", ErrNotFound, id.Qualified(), name)
	}
	if err != nil {
		return Blob{}, fmt.Errorf("opening %s of %s: %w", name, id.Qualified(), err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return Blob{}, fmt.Errorf("stat %s of %s: %w", name, id.Qualified(), err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return Blob{}, fmt.Errorf("%w: %s %s is not a regular file", ErrNotFound, id.Qualified(), name)
	}
	return Blob{File: f, Info: info}, nil
}

// Stat implements Store.
func (s *FS) Stat(_ context.Context, id druid.Druid, name string) (fs.FileInfo, error) {
	p, err := s.path(id, name)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s %s", ErrNotFound, id.Qualified(), name)
	}
	if err != nil {
		return nil, fmt.Errorf("stat %s of %s: %w", name, id.Qualified(), err)
	}
	return info, nil
}

// ReadAll opens a document or file and reads it whole.
func ReadAll(ctx context.Context, s Store, id druid.Druid, name string) ([]byte, fs.FileInfo, error) {
	b, err := s.Open(ctx, id, name)
	if err != nil {
		return nil, nil, err
	}
	defer b.File.Close()
	data := make([]byte, b.Info.Size())
	if _, err := io.ReadFull(b.File, data); err != nil {
		return nil, nil, fmt.Errorf("reading %s of %s: %w", name, id.Qualified(), err)
	}
	return data, b.Info, nil
}

// Write implements Store.
func (s *FS) Write(_ context.Context, id druid.Druid, name string, r io.Reader) (bool, error) {
	p, err := s.path(id, name)
	if err != nil {
		return false, err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("creating %s: %w", dir, err)
	}
	// Temporary names start with a dot: no file of an object can, so a
	// leftover temporary file is never served.
	tmp, err := os.CreateTemp(dir, ".tmp-"+name+"-*")
	if err != nil {
		return false, fmt.Errorf("writing %s of %s: %w", name, id.Qualified(), err)
	}
	cleanup := func() { tmp.Close(); os.Remove(tmp.Name()) }
	if _, err := io.Copy(tmp, r); err != nil {
		cleanup()
		return false, fmt.Errorf("writing %s of %s: %w", name, id.Qualified(), err)
	}
	if err := tmp.Sync(); err != nil {
		cleanup()
		return false, fmt.Errorf("syncing %s of %s: %w", name, id.Qualified(), err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return false, fmt.Errorf("closing %s of %s: %w", name, id.Qualified(), err)
	}
	_, statErr := os.Stat(p)
	created := errors.Is(statErr, fs.ErrNotExist)
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return false, fmt.Errorf("replacing %s of %s: %w", name, id.Qualified(), err)
	}
	syncDir(dir)
	return created, nil
}

// Delete implements Store. The directory is first renamed out of the tree
// (one atomic step for readers), then removed.
func (s *FS) Delete(_ context.Context, id druid.Druid) error {
	dir := s.objectDir(id)
	if _, err := os.Stat(filepath.Join(dir, PublicXML)); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, id.Qualified())
	}
	trash := filepath.Join(s.root, fmt.Sprintf(".deleted-%s-%d", id, time.Now().UnixNano()))
	if err := os.Rename(dir, trash); err != nil {
		return fmt.Errorf("deleting %s: %w", id.Qualified(), err)
	}
	if err := os.RemoveAll(trash); err != nil {
		return fmt.Errorf("removing %s: %w", trash, err)
	}
	return nil
}

// List implements Store.
func (s *FS) List(_ context.Context) ([]druid.Druid, error) {
	var ids []druid.Druid
	err := filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != s.root {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != PublicXML {
			return nil
		}
		rel, err := filepath.Rel(s.root, filepath.Dir(p))
		if err != nil {
			return nil
		}
		id, err := druid.Parse(strings.ReplaceAll(filepath.ToSlash(rel), "/", ""))
		if err == nil && id.TreePath() == filepath.ToSlash(rel) {
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing store %s: %w", s.root, err)
	}
	slices.Sort(ids)
	return ids, nil
}

// Empty reports whether the store holds no object.
func (s *FS) Empty(ctx context.Context) (bool, error) {
	ids, err := s.List(ctx)
	return len(ids) == 0, err
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
